/**
 * `yieldTurn`: a promise that settles on the runtime's next timer, after the I/O already queued has run: the
 * sweeper's batches let requests that arrived meanwhile through, and a turn's streamed answer leaves after the
 * provider request it admitted (turn-calls.ts).
 */
export function yieldTurn(): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, 0));
}
