/**
 * `POST /clear` (`clearSession`, the engine's `clear`): the conversation forgotten in one transaction, a paused turn
 * ended as cancelled and its open approvals declined, then their events and the runs' hook.
 */
import type { Result } from "../model/errors";
import { failure } from "../model/errors";
import { isPaused } from "../model/turn";
import { nowIso } from "../storage/sql";
import { recordDeclined } from "./approval-answers";
import type { EngineMembers } from "./engine-members";

/**
 * `POST /clear`: forgets the conversation (history, approvals, stream log, loaded tools, turns, the mark of a
 * provider's compaction dropped as too large) in one transaction, ending a paused turn as cancelled and
 * declining its open approvals (`by: "clear"`, each with its `approval_declined` event, as a cancel does);
 * refused while a turn runs. `nextConversation` moves the engine's count of conversations on: work that awaited
 * (an on-demand compaction's summary) writes nothing of the cleared one.
 */
export function clearSession(engine: EngineMembers, nextConversation: () => void): Result<{ cleared: true }> {
  if (engine.running) return failure("turn_in_progress", "cannot clear while a turn is running; cancel it first");
  const reason = "the session was cleared";
  const { paused, declined } = engine.tx(() => {
    const latest = engine.turns.latest();
    const paused = isPaused(latest?.status);
    if (paused && latest) engine.turns.finish(latest.id, "cancelled", "cleared", null);
    // Declined without a result for the call: the history that holds the call goes a line below.
    const declined = engine.approvals.closeAll(reason, "clear");
    engine.approvals.clear();
    engine.history.clear();
    engine.streamLog.clear();
    engine.tools.clear();
    engine.turns.clear();
    engine.compactor.clear();
    return { paused: paused && latest ? latest.id : null, declined };
  });
  nextConversation();
  engine.compactor.stopOnDemand();
  recordDeclined(engine.eventLog, declined, null, reason, "clear");
  if (paused) engine.eventLog.record("turn_finished", paused, { status: "cancelled", finish_reason: "cleared" });
  engine.eventLog.record("session_cleared", null, { at: nowIso() });
  // A run whose paused turn this was fails now ("the run's turn was cleared"), not at some later alarm.
  if (paused) engine.hooks.settled(paused, "cancelled");
  return { ok: true, cleared: true };
}
