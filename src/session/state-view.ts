/**
 * What `GET /v1/sessions/{id}` shows of a session: its turn status, counts, the last turn, the loaded
 * tools and open calls, the context budget, the approvals waiting for a person and the MCP servers,
 * all read from the engine's stores (most of them kept in memory).
 */
import type { AgentConfig } from "../agents/types";
import { DEFAULT_COMPACTION } from "../agents/types";
import { contextWindow } from "../providers/types";
import { openView } from "./approvals";
import type { SessionEngine } from "./engine";
import type { SessionInfo, SessionState } from "./rpc-types";

/** The session's state; `agent` (null when not asked for, or gone) adds its window and threshold. */
export function sessionState(e: SessionEngine, info: SessionInfo, agent: AgentConfig | null): SessionState {
  const window = agent ? contextWindow(agent.model) : null;
  const usage = e.compactor.usage();
  const latest = e.turns.latest();
  const status: SessionState["status"] =
    latest?.status === "running"
      ? "running"
      : latest?.status === "awaiting_tool_results" || latest?.status === "awaiting_approval"
        ? latest.status
        : latest?.status === "failed" || latest?.status === "interrupted"
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
    last_turn: latest
      ? {
          id: latest.id,
          status: latest.status,
          finish_reason: latest.finish_reason,
          error: latest.error ? JSON.parse(latest.error) : null,
        }
      : null,
    loaded_tools: e.loadedTools(),
    pending_tool_calls: e.pendingCalls(),
    context: {
      ...usage,
      context_window: window,
      threshold: agent ? (agent.compaction ?? DEFAULT_COMPACTION).threshold : null,
      used: window ? Math.round((usage.estimated_tokens / window) * 1000) / 1000 : null,
    },
    pending_approvals: e.approvals.pending().map(openView),
    mcp_servers: e.tools.mcp.statuses(),
  };
}
