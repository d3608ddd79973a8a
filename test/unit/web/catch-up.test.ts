// The web client's catching up with turns run in another tab (web/src/catch-up.ts `missedTurn`, `checkAfter`): a
// stored message after the page's head that no stream of the page brought makes it read the session again, and a
// check that finds none moves the head past what it read, so the next one reads only what was stored since.
import { describe, expect, it } from "vitest";
import { checkAfter, missedTurn } from "../../../web/src/catch-up.ts";
import type { StoredMessage } from "../../../web/src/from-history.ts";
import type { MessagePage } from "../../../web/src/session-reads.ts";

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

  it("does not count a full page (one with a next) of the page's own messages as missed", () => {
    expect(missedTurn(page([stored(4, "turn_b"), stored(5, "turn_b", "assistant")], 5), LIVE)).toBeNull();
  });

  it("leaves out messages of no turn", () => {
    expect(missedTurn(page([stored(5, null)]), [])).toBeNull();
  });
});

/** A session's stored messages read as GET …/messages does, `perPage` a page; `reads` records each `after`. */
function storedSession(all: StoredMessage[], perPage = 500) {
  const reads: number[] = [];
  const read = async (after: number): Promise<MessagePage> => {
    reads.push(after);
    const rest = all.filter((m) => m.seq > after);
    const messages = rest.slice(0, perPage);
    return page(messages, rest.length > perPage ? (messages.at(-1)?.seq ?? null) : null);
  };
  return { all, reads, read };
}

describe("checkAfter", () => {
  it("starts each check after the last message the one before it read, when that one missed nothing", async () => {
    const session = storedSession([stored(1, "turn_a"), stored(2, "turn_a", "assistant")]);
    const head = { current: 2 };
    const live: Array<{ id: string }> = [];
    // Three sends from this page, each answered on its own stream, each followed by a check.
    for (const [turn, seq] of [
      ["turn_b", 3],
      ["turn_c", 5],
      ["turn_d", 7],
    ] as const) {
      session.all.push(stored(seq, turn), stored(seq + 1, turn, "assistant"));
      live.push({ id: `u-${turn}` }, { id: `msg_${turn}` });
      expect(await checkAfter(session.read, head, () => live)).toBeNull();
    }
    expect(session.reads).toEqual([2, 4, 6]);
    expect(head.current).toBe(8);
  });

  it("reads on past a full page of the page's own messages and finds the turn another tab ran after it", async () => {
    const own = [stored(3, "turn_b"), stored(4, "turn_b", "assistant"), stored(5, "turn_b", "assistant")];
    const session = storedSession([...own, stored(6, "turn_c"), stored(7, "turn_c", "assistant")], 2);
    const head = { current: 2 };
    expect(await checkAfter(session.read, head, () => LIVE)).toBe(6);
    expect(session.reads).toEqual([2, 4]);
    expect(head.current).toBe(4);
  });

  it("keeps the head where it was when a check finds a turn missed", async () => {
    const session = storedSession([stored(3, "turn_c"), stored(4, "turn_c", "assistant")]);
    const head = { current: 2 };
    expect(await checkAfter(session.read, head, () => LIVE)).toBe(3);
    expect(head.current).toBe(2);
  });

  it("leaves the head to a read of the whole history that moved it while the check read", async () => {
    const head = { current: 2 };
    const read = async (): Promise<MessagePage> => {
      head.current = 9;
      return page([stored(3, "turn_b"), stored(4, "turn_b", "assistant")]);
    };
    expect(await checkAfter(read, head, () => LIVE)).toBeNull();
    expect(head.current).toBe(9);
  });
});
