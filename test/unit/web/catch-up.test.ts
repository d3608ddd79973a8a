// The web client's catching up with turns run in another tab (web/src/catch-up.ts `missedTurn`): a stored message
// after the page's head that no stream of the page brought makes it read the session again.
import { describe, expect, it } from "vitest";
import { missedTurn } from "../../../web/src/catch-up.ts";
import type { MessagePage } from "../../../web/src/session-reads.ts";
import type { StoredMessage } from "../../../web/src/transcript.ts";

function stored(seq: number, turnId: string | null, role: "user" | "assistant" = "user"): StoredMessage {
  return { seq, role, origin: role === "user" ? "client" : "model", turn_id: turnId, parts: [] };
}

function page(messages: StoredMessage[], next: number | null = null): MessagePage {
  return { messages, next };
}

/** useChat's messages: the page's own message and the answer to it, turn_b, streamed live. */
const LIVE = [{ id: "u-live" }, { id: "msg_turn_b" }];

describe("missedTurn", () => {
  it("finds a turn another tab ran while this page sat idle, at its first message", () => {
    expect(missedTurn(page([stored(5, "turn_c"), stored(6, "turn_c", "assistant")]), [])).toBe(5);
  });

  it("misses nothing when the messages after the head are those of the turn the page streams", () => {
    expect(missedTurn(page([stored(4, "turn_b"), stored(5, "turn_b", "assistant")]), LIVE)).toBeNull();
  });

  it("finds a turn another tab ran before the page's own message, which it streams", () => {
    const after = [stored(5, "turn_c"), stored(6, "turn_c", "assistant"), stored(7, "turn_b")];
    expect(missedTurn(page(after), LIVE)).toBe(5);
  });

  it("finds a newer message of a turn the page showed from the history it read (the turn moved on)", () => {
    expect(missedTurn(page([stored(3, "turn_a", "assistant")]), LIVE)).toBe(3);
  });

  it("counts a page that is not the last as missed: what follows it is unknown", () => {
    expect(missedTurn(page([stored(4, "turn_b")], 4), LIVE)).toBe(4);
  });

  it("leaves out messages of no turn", () => {
    expect(missedTurn(page([stored(5, null)]), [])).toBeNull();
  });
});
