/**
 * The resumption of a paused turn (`resumeIfReady`, the engine's, after client results or approval answers were
 * stored): the turn resumes once nothing is awaited, its runner started again; else the answer is its state.
 */
import type { AgentConfig } from "../agents/types";
import type { Result } from "../model/errors";
import { isPaused } from "../model/turn";
import type { EngineMembers, StartRunner } from "./engine-members";
import type { AnswerMode, TurnAnswer } from "./rpc-types";
import type { TurnRow } from "./turn/turn-store";

/**
 * A paused turn continues once nothing is awaited (no open approval, every
 * client result in): the answers are delivered by the resumed runner
 * (approved calls run there). A turn still running (a sibling server call)
 * is answered like a resumed one. Otherwise the pause's status follows what
 * is still awaited, and the answer is the turn's current state.
 */
export async function resumeIfReady(
  engine: EngineMembers,
  start: StartRunner,
  agent: AgentConfig,
  before: TurnRow | null,
  mode: AnswerMode,
  since: number,
): Promise<Result<TurnAnswer>> {
  // Read again: the caller's copy may predate an await during which another request resumed the turn.
  const latest = before ? engine.turns.get(before.id) : null;
  const paused = isPaused(latest?.status);
  if (latest && paused && !engine.running && engine.approvals.readyToResume()) {
    const approvalsPending = engine.approvals.onOpenCalls().length > 0;
    // Read before they close: the resumed segment tells the clients' results (the paused stream never had them).
    const answered = engine.history.openCalls();
    const { refitted, unloaded } = engine.tx(() => {
      engine.turns.resume(latest.id, engine.streamLog.head());
      const refitted = engine.tools.refit(agent);
      // With approvals the resumed runner writes the results after running the approved calls.
      if (approvalsPending) return { refitted, unloaded: [] };
      const closed = engine.tools.closeOpenCalls(agent, { turnId: latest.id, reason: "no result was recorded" });
      return { refitted, unloaded: closed.unloaded };
    });
    if (refitted.length) {
      engine.eventLog.record("tools_unloaded", latest.id, { names: refitted, reason: "tools_limit" });
    }
    if (unloaded.length) {
      engine.eventLog.record("tools_unloaded", latest.id, { names: unloaded, reason: "row_limit" });
    }
    engine.hooks.resumed(latest.id);
    start(agent, latest.id, latest, answered);
    const resumed = engine.turns.get(latest.id) as TurnRow;
    return { ok: true, ...(await engine.answer(resumed, mode, since, false, resumed.segment_start)) };
  }
  // The turn still runs (a sibling server call of this step is not done): answered as a resumed turn is, a
  // stream following it live from here, JSON once it ends or pauses again. (A turn still paused for other
  // results answers its state, as JSON.)
  if (latest && engine.running?.turnId === latest.id) {
    return { ok: true, ...(await engine.answer(latest, mode, since, false, engine.streamLog.head())) };
  }
  if (latest && paused && engine.approvals.pending().length === 0 && latest.status === "awaiting_approval") {
    engine.turns.setStatus(latest.id, "awaiting_tool_results");
    // The pause changed: a run whose turn this is concludes now (it cannot answer client calls), and runs
    // queued behind the approval may start.
    engine.hooks.settled(latest.id, "awaiting_tool_results");
    engine.hooks.arm();
  }
  const current = latest ? engine.result(latest.id, since) : null;
  return {
    ok: true,
    turn_id: latest?.id ?? "",
    replayed: false,
    ...(current ? { result: current } : {}),
  };
}
