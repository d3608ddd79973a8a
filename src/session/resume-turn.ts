/**
 * Which turn a stream resume continues (`olderTurnAt`, for the engine's `openStream`): the turn older than the newest
 * whose frames follow the client's Last-Event-ID, when the log holds them from there on.
 */
import type { StreamLog } from "./stream/stream-log";
import type { TurnStore } from "./turn/turn-store";

/**
 * The turn older than the newest (`latestId`) whose frames follow `after`, when the log holds them from `after` on:
 * a client that dropped mid turn, a newer turn started before it came back (a webhook run, another tab). Null when
 * the frames after `after` are the newest turn's, or were swept (the client then gets the newest turn, as a client
 * with no position in the log).
 */
export function olderTurnAt(streamLog: StreamLog, turns: TurnStore, after: number, latestId: string): string | null {
  const turnId = streamLog.turnAfter(after);
  if (turnId === null || turnId === latestId) return null;
  const turn = turns.get(turnId);
  // The turn's first frame is above `after`: what came between (the end of an older turn) was swept.
  return turn && turn.log_start <= after ? turnId : null;
}
