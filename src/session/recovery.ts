import type { SessionEngine } from "./engine";
import { TurnOutput } from "./turn/output";
import type { TurnError } from "./turn/turns";

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
  for (const turn of stuck) {
    const error = { code: "interrupted", message: "the session restarted while the turn was running", retryable: true };
    endStuckTurn(engine, turn.id, "interrupted", error, REASON);
  }
  return stuck.length;
}

/**
 * Ends a turn that storage still calls `running` although no runner drives it (a restart, or a runner whose
 * own end could not be written): its open calls are answered synthetically and the turn gets `status`, in one
 * transaction; clients that resume its stream see how it ended.
 */
export function endStuckTurn(
  engine: SessionEngine,
  turnId: string,
  status: "interrupted" | "failed",
  error: TurnError,
  reason: string,
): void {
  const { synthesized } = engine.tx(() => {
    const closed = engine.history.closeOpenCalls({ turnId, reason });
    engine.turns.finish(turnId, status, status === "failed" ? "error" : status, error);
    return closed;
  });
  if (status === "interrupted")
    engine.events.record("turn_interrupted", turnId, { synthesized_tool_use_ids: synthesized });
  else engine.events.record("turn_finished", turnId, { status, finish_reason: "error", error });
  if (synthesized.length > 0) {
    engine.events.record("tool_result_synthesized", turnId, { tool_use_ids: synthesized, reason });
  }
  const out = new TurnOutput(engine.log, turnId);
  out.emit({ type: "turn_error", code: error.code, message: error.message });
  out.emit({ type: "turn_finish", status, finish_reason: "error" });
  out.close();
}
