/**
 * Client tool results (`submitToolResults`, the engine's): checked before anything is written (`checkSupplied`;
 * with `onlyPending`, the results of calls no longer pending are dropped first), stored in one transaction, then
 * the paused turn resumes if nothing else is awaited (`resumeIfReady`).
 */
import type { AgentConfig } from "../agents/types";
import type { Result } from "../model/errors";
import { failure } from "../model/errors";
import type { EngineMembers } from "./engine-members";
import type { SuppliedResult } from "./history/close-open-calls";
import { refreshTools } from "./refresh-tools";
import type { Mode, TurnAnswer } from "./rpc-types";
import { checkSupplied, pendingResults } from "./turn/answers";

export async function submitToolResults(
  engine: EngineMembers,
  agent: AgentConfig,
  supplied: SuppliedResult[],
  mode: Mode,
  onlyPending = false,
): Promise<Result<TurnAnswer>> {
  // The resumed turn keeps its pinned tool set; this only fills the cache a fresh instance lacks.
  const refreshed = await refreshTools(engine, agent);
  if (!refreshed.ok) return refreshed;
  const latest = engine.turns.latest();
  const pending = onlyPending ? pendingResults(engine.history, supplied) : { ok: true as const, results: supplied };
  if (!pending.ok) return pending;
  const { results } = pending;
  if (results.length === 0) return failure("late_result", "none of the supplied results answers a pending tool call");
  const checked = checkSupplied(engine, results, latest?.id ?? null);
  if (!checked.ok) return checked;
  const since = engine.history.nextSeq();
  engine.tx(() => {
    for (const r of results) engine.history.storeResult(r.tool_use_id, "resolved", r.content, r.is_error);
  });
  return engine.resumeIfReady(agent, latest, mode, since);
}
