import type { SessionEngine } from "./engine";
import { TurnOutput } from "./turn/output";

const REASON = "the session restarted while this call was in flight";

/**
 * Runs on every wake-up, before any request is served. Runners live only in
 * memory, so a turn still marked `running` in storage was cut off by an
 * eviction or crash: it is marked interrupted and its open calls are answered
 * synthetically, all in one transaction, so nothing sent afterwards can break
 * the pairing. Paused turns (awaiting client results) are left as they are.
 */
export function recoverInterruptedTurns(engine: SessionEngine): number {
  const stuck = engine.turns.withStatus("running");
  // The lost instance may have sent frames it never wrote: their ids must not be handed out again.
  if (stuck.length > 0) engine.log.afterCrash();
  for (const turn of stuck) {
    const error = { code: "interrupted", message: "the session restarted while the turn was running", retryable: true };
    const { synthesized } = engine.tx(() => {
      const closed = engine.history.closeOpenCalls({ turnId: turn.id, reason: REASON });
      engine.turns.finish(turn.id, "interrupted", "interrupted", error);
      return closed;
    });
    engine.events.record("turn_interrupted", turn.id, { synthesized_tool_use_ids: synthesized });
    if (synthesized.length > 0) {
      engine.events.record("tool_result_synthesized", turn.id, { tool_use_ids: synthesized, reason: REASON });
    }
    // Clients that resume this turn's stream see how it ended.
    const out = new TurnOutput(engine.log, turn.id);
    out.emit({ type: "turn_error", code: error.code, message: error.message });
    out.emit({ type: "turn_finish", status: "interrupted", finish_reason: "error" });
    out.close();
  }
  return stuck.length;
}
