/**
 * `POST /compact` (`compactOnDemand`, the engine's `compact`): the session's view compacted now, outside any turn,
 * with the compactor a turn uses; refused while a turn runs, and writing nothing of a session deleted or a
 * conversation cleared while it awaited.
 */
import type { AgentConfig } from "../agents/types";
import type { Result } from "../model/errors";
import { failure } from "../model/errors";
import type { CompactionInfo } from "./compaction/compaction-info";
import { deleted } from "./deleted";
import type { EngineMembers } from "./engine-members";
import { refreshTools } from "./refresh-tools";

/**
 * `POST /compact`: compacts now, outside any turn (refused while one runs). `conversation` reads the engine's
 * count of conversations, which `clear` moves on.
 */
export async function compactOnDemand(
  engine: EngineMembers,
  conversation: () => number,
  agent: AgentConfig,
): Promise<Result<CompactionInfo>> {
  const refreshed = await refreshTools(engine, agent);
  if (!refreshed.ok) return refreshed;
  const { generation } = refreshed;
  engine.healOrphan();
  if (engine.turns.latest()?.status === "running") {
    return failure("turn_in_progress", "a turn is running; it compacts by itself when it needs to");
  }
  // As the provider counts it (`ContextBudget.ratio`), as a turn's compaction weighs it.
  const tokensBefore = Math.ceil(engine.budget.viewTokens() * engine.budget.ratio(agent.model));
  const startedIn = conversation();
  const out = await engine.compactor.compact(agent, {
    turnId: null,
    tokensBefore,
    signal: new AbortController().signal,
    current: () => !engine.stale(generation) && conversation() === startedIn,
  });
  if (engine.stale(generation)) return deleted();
  if (!out.ok) {
    engine.eventLog.record("compaction_failed", null, { reason: out.reason, tokens: tokensBefore });
    return failure("not_compacted", out.reason);
  }
  return { ok: true, ...out.info };
}
