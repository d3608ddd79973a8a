/**
 * Types shared by a turn's runner and the phases of its steps: `RunnerDeps` (what the session hands a runner)
 * and `TurnContext` (one running turn). Types only.
 */
import type { AgentConfig } from "../../agents/types";
import type { Env } from "../../env";
import type { TurnStatus } from "../../model/turn";
import type { EventLog } from "../../observability/event-log";
import type { ApprovalStore } from "../approval-store";
import type { Compactor } from "../compaction/compactor";
import type { ContextBudget } from "../compaction/context-budget";
import type { HistoryStore } from "../history/history-store";
import type { SessionTools } from "../session-tools";
import type { StreamLog } from "../stream/stream-log";
import type { TurnOutput } from "./turn-output";
import type { TurnStore } from "./turn-store";

export interface RunnerDeps {
  storage: DurableObjectStorage;
  history: HistoryStore;
  turns: TurnStore;
  eventLog: EventLog;
  streamLog: StreamLog;
  tools: SessionTools;
  budget: ContextBudget;
  compactor: Compactor;
  approvals: ApprovalStore;
  env: Env;
  agent: AgentConfig;
  /** Called once when the turn ends or pauses; the session wakes waiters and clears its heartbeat. */
  onSettled(turnId: string, status: TurnStatus): void;
}

/** What the phases of a step share with the runner that owns them. */
export interface TurnContext {
  readonly deps: RunnerDeps;
  readonly turnId: string;
  readonly out: TurnOutput;
  readonly signal: AbortSignal;
  readonly cancelled: boolean;
  /** Runs SQL in one transaction; the in-memory history is dropped if it rolls back. */
  tx<T>(fn: () => T): T;
}
