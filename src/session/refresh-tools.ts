/**
 * What an engine operation does first (`refreshTools`): the session's tool lists refreshed for the agent (MCP lists
 * need network I/O), so the checks after it run without an await, and a session deleted meanwhile answered as
 * `deleted` (nothing written). Used by sendMessage, retryTurn, submitToolResults, compactOnDemand and an approval's
 * expiry.
 */
import type { AgentConfig } from "../agents/types";
import type { Result } from "../model/errors";
import { deleted } from "./deleted";
import type { EngineMembers } from "./engine-members";

/**
 * Refreshes the tools for `agent`; a turn that resumes keeps its pinned tool set, so for it this only fills the
 * cache a fresh instance lacks. `generation`: the delete tombstone as it was before the await, for an operation
 * that awaits again to check (`stale`).
 */
export async function refreshTools(
  engine: Pick<EngineMembers, "env" | "tools" | "generation" | "stale">,
  agent: AgentConfig,
): Promise<Result<{ generation: number }>> {
  const generation = engine.generation;
  await engine.tools.refresh(agent, engine.env);
  if (engine.stale(generation)) return deleted();
  return { ok: true, generation };
}
