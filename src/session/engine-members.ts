/**
 * The members of the session engine (`SessionEngine`, session-engine.ts) that its operations in files of their
 * own read (admit-turn.ts, cancel-turn.ts, clear-session.ts, compact-on-demand.ts, resume-if-ready.ts,
 * submit-tool-results.ts, …), as an interface the engine implements: they cannot import the class, which imports
 * them. What is private to the engine (its start of a runner, `StartRunner`; its count of cleared conversations)
 * is handed to an operation as an argument.
 */
import type { AgentConfig } from "../agents/types";
import type { Env } from "../env";
import type { Result } from "../model/errors";
import type { TurnStatus } from "../model/turn";
import type { EventLog } from "../observability/event-log";
import type { ApprovalStore } from "./approval-store";
import type { Compactor } from "./compaction/compactor";
import type { ContextBudget } from "./compaction/context-budget";
import type { ToolCallRow } from "./history/call-ledger";
import type { HistoryStore } from "./history/history-store";
import type { AnswerMode, TurnAnswer, TurnResult } from "./rpc-types";
import type { SessionTools } from "./session-tools";
import type { StreamLog } from "./stream/stream-log";
import type { TurnRow, TurnStore } from "./turn/turn-store";

/**
 * What the operations use of the running turn's runner (TurnRunner): named here, not imported, so that files the
 * runner itself imports (approval-answers.ts) can read the engine through this interface without a cycle.
 */
interface RunningTurn {
  readonly turnId: string;
  cancel(reason: string): void;
}

export interface EngineMembers {
  readonly env: Env;
  readonly history: HistoryStore;
  readonly turns: TurnStore;
  readonly eventLog: EventLog;
  readonly streamLog: StreamLog;
  readonly tools: SessionTools;
  readonly budget: ContextBudget;
  readonly compactor: Compactor;
  readonly approvals: ApprovalStore;
  /** Set by the DO: `arm` re-arms the shared alarm (heartbeat + due jobs); `settled` lets runs see a turn stop. */
  hooks: { arm(): void; settled(turnId: string, status: TurnStatus): void; resumed(turnId: string): void };
  /** The runner of the turn that runs now, if any. */
  readonly running: RunningTurn | null;
  /** The delete tombstone: work that awaited I/O writes nothing once it moved (`stale`). */
  readonly generation: number;
  stale(generation: number): boolean;
  tx<T>(fn: () => T): T;
  healOrphan(message?: string): void;
  waitFor(turnId: string): Promise<void>;
  answer(turn: TurnRow, mode: AnswerMode, sinceSeq: number, replayed: boolean, logAfter: number): Promise<TurnAnswer>;
  result(turnId: string, sinceSeq: number): TurnResult;
  resumeIfReady(
    agent: AgentConfig,
    before: TurnRow | null,
    mode: AnswerMode,
    since: number,
  ): Promise<Result<TurnAnswer>>;
}

/**
 * The engine's start of a runner for a segment of a turn (its private `#start`), handed to the operations that
 * start one: `turn` (its kind and step budget) labels the segment's span; `answered`: the calls of the pause it
 * resumes (TurnRunner).
 */
export type StartRunner = (
  agent: AgentConfig,
  turnId: string,
  turn: { kind: string; max_steps: number },
  answered?: readonly ToolCallRow[],
) => void;
