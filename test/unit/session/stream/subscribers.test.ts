// A session object's open client streams (src/session/stream/subscribers.ts) over a stream log held in memory: the
// keep-alive comment and its one timer, what the probe at the stream cap drops when the clients read nothing, the
// bound on how far behind a live client may fall, a replay that reads the log a page at a time as it is taken (and
// is dropped when a page cannot be read), and what the wipe of the session's storage does to the open streams.
import { afterEach, describe, expect, it, vi } from "vitest";
import { SSE_PING } from "../../../../src/session/stream/sse";
import { MAX_SUBSCRIBERS, Subscribers } from "../../../../src/session/stream/subscribers";
import type { UiChunk } from "../../../../src/session/stream/ui-chunks";

const PING_MS = 1_000;
const decoder = new TextDecoder();

interface Frame {
  id: number;
  chunk: UiChunk;
}

/** A stream log in memory: `frames` (of whatever turn asks), read `perPage` at a time; `reads` counts the pages read. */
function memoryLog(frames: Frame[] = [], perPage = Number.POSITIVE_INFINITY) {
  const log = {
    reads: 0,
    page(_turnId: string, after: number) {
      log.reads++;
      const rest = frames.filter((f) => f.id > after);
      return { frames: rest.slice(0, perPage), more: rest.length > perPage };
    },
    lastFrame: () => frames.at(-1)?.id ?? 0,
  };
  return log;
}

const asSent = (chunk: UiChunk): UiChunk => chunk;

function delta(id: number, text: string): Frame {
  return { id, chunk: { type: "text-delta", id: "t1", delta: text } };
}

/** Sends a live frame of `turn`, as the stream log does when it is appended. */
function send(subs: Subscribers, turn: string, frame: Frame): void {
  subs.broadcast(turn, frame.id, frame.chunk, JSON.stringify(frame.chunk));
}

/** The text of the next write a stream's client reads, or "dropped" when the stream was dropped. */
async function nextWrite(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  try {
    const r = await reader.read();
    return r.done ? "(end)" : decoder.decode(r.value);
  } catch {
    return "dropped";
  }
}

/** The client's next read, noted once it comes (`text` stays undefined until then), so a test never waits on it. */
function nextRead(reader: ReadableStreamDefaultReader<Uint8Array>): { text: string | undefined } {
  const read: { text: string | undefined } = { text: undefined };
  void nextWrite(reader).then((text) => {
    read.text = text;
  });
  return read;
}

/** Lets every pending promise reaction and macrotask of the streams run (real timers). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

afterEach(() => {
  vi.useRealTimers();
});

describe("the keep-alive", () => {
  it("a stream sent nothing for the interval gets the keep-alive comment", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const subs = new Subscribers(memoryLog(), PING_MS);
    const reader = subs.open("turn_subs_ping", 0, true, asSent).getReader();
    const next = nextRead(reader);
    await vi.advanceTimersByTimeAsync(PING_MS);
    expect(next.text).toBe(SSE_PING);
  });

  it("a stream sent a frame gets its keep-alive the interval after that frame, not after it opened", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const turn = "turn_subs_ping_after_frame";
    const subs = new Subscribers(memoryLog(), PING_MS);
    const reader = subs.open(turn, 0, true, asSent).getReader();
    await vi.advanceTimersByTimeAsync(PING_MS / 2);
    send(subs, turn, delta(1, "hi"));
    expect(await nextWrite(reader)).toContain('"delta":"hi"');
    const next = nextRead(reader);
    await vi.advanceTimersByTimeAsync(PING_MS / 2);
    const atOpenPlusInterval = next.text;
    await vi.advanceTimersByTimeAsync(PING_MS / 2);
    expect([atOpenPlusInterval, next.text]).toEqual([undefined, SSE_PING]);
  });

  it("its timer is set while a stream is open and cleared with the last one, so an idle object holds no timer", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const turn = "turn_subs_ping_timer";
    const subs = new Subscribers(memoryLog(), PING_MS);
    const none = vi.getTimerCount();
    const first = subs.open(turn, 0, true, asSent);
    const second = subs.open(turn, 0, true, asSent);
    const open = vi.getTimerCount();
    await first.cancel();
    await vi.advanceTimersByTimeAsync(0);
    const one = vi.getTimerCount();
    await second.cancel();
    await vi.advanceTimersByTimeAsync(0);
    expect({ none, open, one, closed: vi.getTimerCount() }).toEqual({ none: 0, open: 1, one: 1, closed: 0 });
  });
});

describe("the stream cap", () => {
  it("when no client takes the probe's keep-alives, the oldest stream is dropped once the probe has waited 1 s", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const turn = "turn_subs_cap_unread";
    const subs = new Subscribers(memoryLog(), 60 * PING_MS);
    const readers = Array.from({ length: MAX_SUBSCRIBERS + 1 }, () => subs.open(turn, 0, true, asSent).getReader());
    await vi.advanceTimersByTimeAsync(1_000);
    const [oldest, second] = readers;
    if (!oldest || !second) throw new Error("streams not opened");
    expect([await nextWrite(oldest), await nextWrite(second)]).toEqual(["dropped", SSE_PING]);
  });
});

describe("a live client that falls behind", () => {
  it("is dropped once more than 4 MiB it has not taken wait for it", async () => {
    const turn = "turn_subs_backlog";
    const subs = new Subscribers(memoryLog(), 60 * PING_MS);
    const reader = subs.open(turn, 0, true, asSent).getReader();
    const mib = "x".repeat(1024 * 1024);
    for (let id = 1; id <= 5; id++) {
      send(subs, turn, delta(id, mib));
      await settle();
    }
    expect(await nextWrite(reader)).toBe("dropped");
  });
});

describe("a replay", () => {
  it("reads the log's next page only once the client has taken the last", async () => {
    const turn = "turn_subs_replay_pages";
    const log = memoryLog([delta(1, "a"), delta(2, "b"), delta(3, "c"), delta(4, "d")], 2);
    const subs = new Subscribers(log, 60 * PING_MS);
    const reader = subs.open(turn, 0, false, asSent).getReader();
    await settle();
    const unread = log.reads;
    await nextWrite(reader);
    await settle();
    expect([unread, log.reads]).toEqual([1, 2]);
  });
});

describe("a replay whose log cannot be read", () => {
  it("is dropped when its next page throws (the log's table gone), not left open", async () => {
    const turn = "turn_subs_page_throws";
    const log = memoryLog([delta(1, "a"), delta(2, "b"), delta(3, "c")], 1);
    const subs = new Subscribers(
      {
        page: (turnId, after) => {
          if (log.reads > 0) throw new Error("no such table: stream_log");
          return log.page(turnId, after);
        },
        lastFrame: log.lastFrame,
      },
      60 * PING_MS,
    );
    const reader = subs.open(turn, 0, false, asSent).getReader();
    expect(await nextWrite(reader)).toContain('"delta":"a"');
    const next = nextRead(reader);
    await settle();
    expect(next.text).toBe("dropped");
  });
});

describe("the wipe of the session's storage", () => {
  it("drops every open stream, the live and the replaying, read or not", async () => {
    const turn = "turn_subs_reset_drops";
    const subs = new Subscribers(memoryLog([delta(1, "a"), delta(2, "b")], 1), 60 * PING_MS);
    const live = subs.open(turn, 0, true, asSent).getReader();
    const replay = subs.open(turn, 0, false, asSent).getReader();
    subs.reset();
    expect([await nextWrite(live), await nextWrite(replay)]).toEqual(["dropped", "dropped"]);
  });

  it("leaves no keep-alive timer, so the object can sleep", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const subs = new Subscribers(memoryLog(), PING_MS);
    subs.open("turn_subs_reset_timer", 0, true, asSent);
    const open = vi.getTimerCount();
    subs.reset();
    expect({ open, reset: vi.getTimerCount() }).toEqual({ open: 1, reset: 0 });
  });

  it("lets a stream whose end is already written be read to that end", async () => {
    const turn = "turn_subs_reset_ended";
    const subs = new Subscribers(memoryLog([delta(1, "a")]), 60 * PING_MS);
    const reader = subs.open(turn, 0, false, asSent).getReader();
    subs.reset();
    let text = "";
    for (let next = await nextWrite(reader); next !== "(end)" && next !== "dropped"; next = await nextWrite(reader))
      text += next;
    expect(text).toMatch(/"delta":"a".*data: \[DONE\]\n\n$/s);
  });
});
