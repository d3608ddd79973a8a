// A turn useChat holds live beside the stored history: the id its live message has (`turnMessageId`), and the stored
// entries less the turns useChat streams (`withoutLiveTurns`), so what the model wrote shows once. Pure, tested in
// plain vitest (test/unit/web/live-turns.test.ts).
import type { UIMessage } from "ai";
import type { Entry } from "./transcript";

/** The UI message id the server's stream gives a turn's assistant message, every segment (session/turn/turn-runner.ts). */
export function turnMessageId(turnId: string): string {
  return `msg_${turnId}`;
}

/**
 * The stored entries to show next to useChat's live messages: a turn useChat holds live (its stream was
 * resumed: a message `msg_<turn id>`) is shown from the stream alone, so what the model wrote in it is not
 * shown twice whichever of the history read and the resumed stream saw the turn first. `seeded` turns are
 * the exception: their live message only continues what the stored entries show (takeOpenApprovals).
 */
export function withoutLiveTurns(earlier: Entry[], live: UIMessage[], seeded: ReadonlySet<string>): Entry[] {
  const liveIds = new Set(live.map((m) => m.id));
  return earlier.filter(
    (e) => !(e.role === "assistant" && e.turnId && !seeded.has(e.turnId) && liveIds.has(turnMessageId(e.turnId))),
  );
}
