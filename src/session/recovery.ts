/**
 * Ending turns that no runner drives any more: `recoverInterruptedTurns` (run by the session object at every
 * wake-up, before any request; never throws) and `endStuckTurn`, also used by the engine for a runner that could
 * not write its own end. Open calls get synthetic results in the transaction that ends the turn, and the turn's
 * stream is closed with its outcome (`endStream`, which the engine also uses for a paused turn it cancels).
 */
import type { ErrorInfo } from "../model/errors";
import type { TurnStatus } from "../model/turn";
import type { EventLog } from "../observability/event-log";
import { log } from "../observability/log";
import { recordDeclined } from "./approval-answers";
import type { ApprovalStore } from "./approval-store";
import type { HistoryStore } from "./history/history-store";
import type { StreamLog } from "./stream/stream-log";
import type { UiFinishReason } from "./stream/turn-events";
import { TurnOutput } from "./turn/turn-output";
import type { TurnRow, TurnStore } from "./turn/turn-store";

/** What recovery uses of the session engine (src/session/session-engine.ts). */
interface RecoveryDeps {
  readonly history: HistoryStore;
  readonly turns: TurnStore;
  readonly eventLog: EventLog;
  readonly streamLog: StreamLog;
  readonly approvals: ApprovalStore;
  tx<T>(fn: () => T): T;
}

const REASON = "the session restarted while this call was in flight";

/**
 * Runs on every wake-up, before any request is served. Runners live only in
 * memory, so a turn still marked `running` in storage was cut off by an
 * eviction or crash: it is marked interrupted and its open calls are answered
 * synthetically, all in one transaction, so nothing sent afterwards can break
 * the pairing. Paused turns (awaiting client results) are left as they are.
 *
 * Recovery never throws: a turn whose repair fails (say, a stored result that
 * no longer reads) gets every open call answered synthetically without reading
 * stored results; if even that fails the turn is only marked `failed`. Either
 * way a `recovery_failed` event says what happened, and the object keeps serving.
 */
export function recoverInterruptedTurns(engine: RecoveryDeps): number {
  const stuck = engine.turns.withStatus("running");
  // The lost instance may have sent frames it never wrote: their ids must not be handed out again.
  if (stuck.length > 0) engine.streamLog.afterCrash();
  for (const turn of stuck) {
    const error = { code: "interrupted", message: "the session restarted while the turn was running", retryable: true };
    try {
      endStuckTurn(engine, turn, "interrupted", error, REASON);
    } catch (e) {
      salvageTurn(engine, turn, e);
    }
  }
  return stuck.length;
}

/**
 * Ends a turn that storage still calls `running` although no runner drives it (a restart, or a runner whose
 * own end could not be written): its open calls are answered synthetically and the turn gets `status`, in one
 * transaction; clients that resume its stream see the calls it closed and how it ended.
 */
export function endStuckTurn(
  engine: RecoveryDeps,
  turn: Pick<TurnRow, "id" | "log_start">,
  status: "interrupted" | "failed",
  error: ErrorInfo,
  reason: string,
): void {
  const turnId = turn.id;
  const { synthesized, declined } = engine.tx(() => {
    // An approval asked just before the cut closes with its call (which gets the synthetic result below).
    const declined = engine.approvals.closeAll(reason, "recovery");
    const closed = engine.history.closeOpenCalls({ turnId, reason });
    engine.turns.finish(turnId, status, status === "failed" ? "error" : status, error);
    return { ...closed, declined };
  });
  recordDeclined(engine.eventLog, declined, turnId, reason, "recovery");
  if (status === "interrupted")
    engine.eventLog.record("turn_interrupted", turnId, { synthesized_tool_use_ids: synthesized });
  else engine.eventLog.record("turn_finished", turnId, { status, finish_reason: "error", error });
  if (synthesized.length > 0) {
    engine.eventLog.record("tool_result_synthesized", turnId, { tool_use_ids: synthesized, reason });
  }
  endStream(
    engine.streamLog,
    turn,
    { declined, synthesized, reason },
    { status, reason: "error", finish: "error", error },
  );
}

function salvageTurn(engine: RecoveryDeps, turn: TurnRow, cause: unknown): void {
  const why = cause instanceof Error ? cause.message : String(cause);
  const error = {
    code: "recovery_failed",
    message: `the session restarted while the turn was running and its state could not be repaired as is: ${why}`,
    retryable: true,
  };
  let synthesized: string[] = [];
  let declined: ReturnType<ApprovalStore["closeAll"]> = [];
  let status: "interrupted" | "failed" = "interrupted";
  try {
    synthesized = engine.tx(() => {
      attempt(() => {
        declined = engine.approvals.closeAll(REASON, "recovery");
      });
      const closed = engine.history.closeOpenCalls({ turnId: turn.id, reason: REASON, discardStored: true });
      engine.turns.finish(turn.id, "interrupted", "interrupted", error);
      return closed.synthesized;
    });
    recordDeclined(engine.eventLog, declined, turn.id, REASON, "recovery");
  } catch {
    // Rolled back: no approval was declined after all.
    declined = [];
    status = "failed";
    attempt(() => engine.tx(() => engine.turns.finish(turn.id, "failed", "error", error)));
  }
  attempt(() =>
    engine.eventLog.record("recovery_failed", turn.id, { error: why, status, synthesized_tool_use_ids: synthesized }),
  );
  attempt(() =>
    endStream(
      engine.streamLog,
      turn,
      { declined, synthesized, reason: REASON },
      { status, reason: "error", finish: "error", error },
    ),
  );
}

/**
 * Clients that resume the stream of a turn no runner drives see how it ended: first what the turn's frames left
 * open is closed (the lost instance's text or reasoning part, a call whose input was streaming, its step), then
 * the calls it closed (declined approvals, the synthetic results; only those the frames started, as a call whose
 * frames were lost is one no client knows), as a runner's cancel or failure streams them, then its end. Recovery
 * ends interrupted turns with it, the engine a paused turn it cancels.
 */
export function endStream(
  streamLog: StreamLog,
  turn: Pick<TurnRow, "id" | "log_start">,
  closed: { declined: ReadonlyArray<{ call_id: string }>; synthesized: readonly string[]; reason: string },
  end: { status: TurnStatus; reason: string; finish: UiFinishReason; error: ErrorInfo | null },
): void {
  const out = new TurnOutput(streamLog, turn.id);
  out.takeOver(turn.log_start, closed.reason);
  out.closedCalls(closed.declined, closed.synthesized, closed.reason);
  out.end(turn.id, end.status, end.reason, end.finish, end.error);
  out.close();
}

function attempt(fn: () => void): void {
  try {
    fn();
  } catch (e) {
    log("error", "recovery_step_failed", { error: String(e), stack: (e as Error)?.stack });
  }
}
