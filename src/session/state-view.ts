/**
 * What `GET /v1/sessions/{id}` shows of a session: its turn status, counts, the last turn, the loaded
 * tools and open calls, the context budget, the approvals waiting for a person, the paused step and the
 * MCP servers, all read from the engine's stores (most of them kept in memory).
 */
import type { AgentConfig } from "../agents/types";
import { DEFAULT_COMPACTION } from "../agents/types";
import type { ToolResultContent } from "../model/message";
import { isPaused } from "../model/turn";
import { openView } from "./approval-store";
import type { PauseView, SessionInfo, SessionState } from "./rpc-types";
import type { SessionEngine } from "./session-engine";
import { outcomeOf } from "./turn/turn-store";

/**
 * The session's state; `agent` (null when not asked for, or gone) adds its threshold and the window compaction
 * works to (`ContextBudget.window`: the configured one, or a smaller one the model's provider reported).
 */
export function sessionState(e: SessionEngine, info: SessionInfo, agent: AgentConfig | null): SessionState {
  const window = agent ? e.budget.window(agent) : null;
  const usage = e.budget.usage(agent?.model);
  const latest = e.turns.latest();
  const turnStatus = latest?.status;
  const paused = isPaused(turnStatus);
  const status: SessionState["status"] =
    turnStatus === "running"
      ? "running"
      : paused
        ? turnStatus
        : turnStatus === "failed" || turnStatus === "interrupted"
          ? "failed"
          : "idle";
  return {
    id: info.id,
    agent: info.agent,
    status,
    created_at: info.created_at,
    metadata: info.metadata,
    turns: e.turns.count(),
    messages: e.history.count(),
    last_turn: latest ? outcomeOf(latest) : null,
    loaded_tools: e.loadedTools(),
    pending_tool_calls: e.pendingCalls(),
    context: {
      ...usage,
      context_window: window,
      threshold: agent ? (agent.compaction ?? DEFAULT_COMPACTION).threshold : null,
      used: window ? Math.round((usage.estimated_tokens / window) * 1000) / 1000 : null,
    },
    pending_approvals: e.approvals.pending().map(openView),
    pause: paused && latest ? pauseView(e, latest.id) : null,
    mcp_servers: e.tools.statuses(agent),
  };
}

/** The paused step: what its resumed segment will answer (every approval of the pause) and its calls' results. */
function pauseView(e: SessionEngine, turnId: string): PauseView {
  return {
    turn_id: turnId,
    approvals: e.approvals
      .onOpenCalls()
      .map((r) => ({ ...openView(r), status: r.status, decided_reason: r.decided_reason })),
    calls: e.history.openCalls().map((c) => ({
      id: c.id,
      name: c.name,
      execution: c.execution,
      state: c.state,
      ...(c.state === "pending"
        ? {}
        : { result: JSON.parse(c.result ?? '""') as ToolResultContent, is_error: c.is_error === 1 }),
    })),
  };
}
