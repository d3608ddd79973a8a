/**
 * `POST /cancel` (`cancelTurn`, the engine's `cancel`): a running turn's runner is cancelled and awaited; a paused
 * turn, which no runner drives, is ended here: its open approvals declined, its open calls closed and the turn
 * finished as cancelled in one transaction, then its events, the runs' hooks and the end of its stream.
 */
import type { Result } from "../model/errors";
import { failure } from "../model/errors";
import type { TurnStatus } from "../model/turn";
import { log } from "../observability/log";
import { declineOpen, recordDeclined } from "./approval-answers";
import type { EngineMembers } from "./engine-members";
import { endStream } from "./recovery";

export async function cancelTurn(engine: EngineMembers): Promise<Result<{ status: TurnStatus; turn_id: string }>> {
  const latest = engine.turns.latest();
  if (
    !latest ||
    (latest.status !== "running" && latest.status !== "awaiting_tool_results" && latest.status !== "awaiting_approval")
  ) {
    return failure("no_active_turn", "there is no running turn to cancel");
  }
  const runner = engine.running;
  if (runner && runner.turnId === latest.id) {
    runner.cancel("the turn was cancelled");
    await engine.waitFor(latest.id);
  } else {
    const reason = "the turn was cancelled";
    const { synthesized, declined } = engine.tx(() => {
      const declined = declineOpen(engine.approvals, engine.history, reason, "cancel");
      const r = { ...engine.history.closeOpenCalls({ turnId: latest.id, reason }), declined };
      engine.turns.finish(latest.id, "cancelled", "cancelled", null);
      return r;
    });
    recordDeclined(engine.eventLog, declined, latest.id, reason, "cancel");
    if (synthesized.length)
      engine.eventLog.record("tool_result_synthesized", latest.id, { tool_use_ids: synthesized, reason });
    engine.eventLog.record("turn_finished", latest.id, { status: "cancelled", finish_reason: "cancelled" });
    // A run whose turn this was concludes now; a run that waited behind the paused turn may start.
    engine.hooks.settled(latest.id, "cancelled");
    engine.hooks.arm();
    // The paused turn's stream ends as a running turn's cancel ends it (the calls closed, then abort and
    // finish), so a client resuming it does not see the turn still waiting. Last, and never thrown: the turn is
    // cancelled whether or not its stream could say so.
    const end = { status: "cancelled", reason: "cancelled", finish: "other", error: null } as const;
    try {
      endStream(engine.streamLog, latest, { declined, synthesized, reason }, end);
    } catch (e) {
      log("error", "cancel_stream_end_failed", { turn_id: latest.id, error: String(e) });
    }
  }
  return { ok: true, status: engine.turns.get(latest.id)?.status ?? "cancelled", turn_id: latest.id };
}
