/**
 * A session's stream log (src/session/stream/stream-log.ts) in a session object: what a live stream of it is handed, write
 * by write (each write crosses to the client as one stream chunk: frames that only open or close a message, step or
 * part wait for the next frame; nothing else waits, and nothing is held back once the stream ends), and what a
 * replay of its rows reads (a page at a time, all of it past a live client's backlog bound, up to a paused turn's
 * pause, never a [DONE] for rows deleted under it). The cap on open streams is in subscribers.test.ts beside this.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { REPLAY_PAGE_ROWS, StreamLog } from "../../../../src/session/stream/stream-log";
import { STREAM_ROW_BUDGET_BYTES } from "../../../../src/storage/limits";
import { readRest, sessionStub, setup } from "../../helpers";

const NOTHING = "(nothing written)";

type Write = string[] | string | null;

/** Reads a subscriber's stream write by write: the next chunk, null at its end, or NOTHING when none comes soon. */
function writesOf(stream: ReadableStream<Uint8Array>): () => Promise<Write> {
  const reader = stream.getReader();
  let pending: Promise<string | null> | null = null;
  return async () => {
    pending ??= reader.read().then((r) => (r.done ? null : new TextDecoder().decode(r.value)));
    const soon = new Promise<typeof NOTHING>((resolve) => setTimeout(() => resolve(NOTHING), 20));
    const chunk = await Promise.race([pending, soon]);
    if (chunk === NOTHING) return NOTHING;
    pending = null;
    // Each frame by its type ([DONE] for the end marker).
    return chunk === null ? null : [...chunk.matchAll(/"type":"([\w-]+)"|\[DONE\]/g)].map((m) => m[1] ?? "[DONE]");
  };
}

/**
 * In a fresh session object: a stream log with one live subscriber of `turn`; `steps` appends frames and reads
 * the subscriber's writes with `next`, and returns what it read.
 */
async function withSubscriber(
  turn: string,
  steps: (log: StreamLog, next: () => Promise<Write>) => Promise<Write[]>,
): Promise<Write[]> {
  return runInDurableObject(await sessionStub(await setup()), (_i, state) => {
    const log = new StreamLog(state.storage.sql);
    return steps(log, writesOf(log.open(turn, log.head(), true)));
  });
}

describe("stream log writes to a live subscriber", () => {
  it("hands the opening frames over with the first text delta, as one write", async () => {
    const turn = "turn_stream_log_openers";
    const writes = await withSubscriber(turn, async (log, next) => {
      log.append(turn, [{ type: "start", messageId: "m1" }, { type: "start-step" }]);
      log.append(turn, [{ type: "text-start", id: "t1" }]);
      const before = await next();
      log.append(turn, [{ type: "text-delta", id: "t1", delta: "Hi" }]);
      return [before, await next()];
    });
    expect(writes).toEqual([NOTHING, ["start", "start-step", "text-start", "text-delta"]]);
  });

  it("hands each text delta over in the task it is appended in", async () => {
    const turn = "turn_stream_log_deltas";
    const writes = await withSubscriber(turn, async (log, next) => {
      log.append(turn, [{ type: "text-delta", id: "t1", delta: "a" }]);
      const first = await next();
      log.append(turn, [{ type: "text-delta", id: "t1", delta: "b" }]);
      return [first, await next()];
    });
    expect(writes).toEqual([["text-delta"], ["text-delta"]]);
  });

  it("sends the closing frames it holds when the stream ends", async () => {
    const turn = "turn_stream_log_closers";
    const writes = await withSubscriber(turn, async (log, next) => {
      log.append(turn, [{ type: "text-end", id: "t1" }, { type: "finish-step" }]);
      const before = await next();
      log.end(turn);
      return [before, await next(), await next()];
    });
    expect(writes).toEqual([NOTHING, ["text-end", "finish-step", "[DONE]"], null]);
  });
});

describe("a resume with more to replay than a live client may fall behind", () => {
  it("gets the whole replay, then the live frames and the end, instead of being dropped", async () => {
    const turn = "turn_stream_log_big_replay";
    const { xs, text } = await runInDurableObject(await sessionStub(await setup()), async (_i, state) => {
      const log = new StreamLog(state.storage.sql);
      const start = log.head();
      // 12 × 400 KiB of text deltas: 4.8 MiB to replay, over the 4 MiB a live client may fall behind.
      const big = "x".repeat(400 * 1024);
      for (let i = 0; i < 12; i++) log.append(turn, [{ type: "text-delta", id: "t1", delta: big }]);
      log.persist();
      const reader = log.open(turn, start, true).getReader();
      log.append(turn, [{ type: "text-delta", id: "t1", delta: "LIVE" }]);
      log.end(turn);
      const decoder = new TextDecoder();
      let text = "";
      for (let r = await reader.read(); !r.done; r = await reader.read())
        text += decoder.decode(r.value, { stream: true });
      const xs = [...text.matchAll(/"delta":"(x+)"/g)].reduce((n, m) => n + (m[1]?.length ?? 0), 0);
      return { xs, text: text.slice(-300) };
    });
    expect(xs).toBe(12 * 400 * 1024);
    expect(text).toContain('"delta":"LIVE"');
    expect(text).toContain("[DONE]");
  });
});

describe("a resume's replay", () => {
  it("comes a page of rows at a time, not the turn's whole log in one write", async () => {
    const turn = "turn_stream_log_replay_pages";
    const first = await runInDurableObject(await sessionStub(await setup()), async (_i, state) => {
      const log = new StreamLog(state.storage.sql);
      const start = log.head();
      // 12 rows of 400 KiB: 4.8 MiB stored for this turn.
      const big = "x".repeat(400 * 1024);
      for (let i = 0; i < 12; i++) log.append(turn, [{ type: "text-delta", id: "t1", delta: big }]);
      log.end(turn);
      const r = await log.open(turn, start, false).getReader().read();
      return r.value?.byteLength ?? 0;
    });
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(REPLAY_PAGE_ROWS * STREAM_ROW_BUDGET_BYTES);
  });
});

/** A turn's first segment in a stream log: openers, 6 rows of 400 KiB of text (a replay of several pages). */
function firstSegment(log: StreamLog, turn: string): void {
  log.append(turn, [{ type: "start", messageId: "m1" }, { type: "start-step" }, { type: "text-start", id: "t1" }]);
  const big = "x".repeat(400 * 1024);
  for (let i = 0; i < 6; i++) log.append(turn, [{ type: "text-delta", id: "t1", delta: big }]);
}

/** The segment that resumes a paused turn: written under the same turn id, cut off after its first delta. */
function resumedSegment(log: StreamLog, turn: string): void {
  log.append(turn, [{ type: "start", messageId: "m1" }, { type: "start-step" }, { type: "text-start", id: "t2" }]);
  log.append(turn, [{ type: "text-delta", id: "t2", delta: "SEG2-PARTIAL" }]);
}

const PAUSE = [{ type: "text-end", id: "t1" }, { type: "finish-step" }, { type: "finish" }] as const;
/** The turn's `finish` and then [DONE]: the stream ended at the pause. */
const ENDS_AT_FINISH = /"type":"finish"[^\n]*\n\n(id: \d+\n)?data: \[DONE\]\n\n$/;

describe("a stream of a paused turn ends at its pause", () => {
  it("a replay still paging when the turn pauses does not read on into the segment that resumes it", async () => {
    const turn = "turn_stream_log_paused_live_replay";
    const text = await runInDurableObject(await sessionStub(await setup()), async (_i, state) => {
      const log = new StreamLog(state.storage.sql);
      const start = log.head();
      firstSegment(log, turn);
      log.persist();
      const reader = log.open(turn, start, true).getReader();
      await reader.read();
      log.append(turn, [...PAUSE]);
      log.end(turn);
      resumedSegment(log, turn);
      return readRest(reader);
    });
    expect(text).not.toContain("SEG2-PARTIAL");
    expect(text).toMatch(ENDS_AT_FINISH);
  });

  it("a replay opened while the turn was paused does not read on into the segment that resumes it", async () => {
    const turn = "turn_stream_log_paused_replay";
    const text = await runInDurableObject(await sessionStub(await setup()), async (_i, state) => {
      const log = new StreamLog(state.storage.sql);
      const start = log.head();
      firstSegment(log, turn);
      log.append(turn, [...PAUSE]);
      log.end(turn);
      const reader = log.open(turn, start, false).getReader();
      await reader.read();
      resumedSegment(log, turn);
      log.persist();
      return readRest(reader);
    });
    expect(text).not.toContain("SEG2-PARTIAL");
    expect(text).toMatch(ENDS_AT_FINISH);
  });
});

describe("a replay whose log is deleted under it", () => {
  it("is dropped (the client reconnects), not ended with a [DONE] that passes for the turn's end", async () => {
    const turn = "turn_stream_log_cleared_replay";
    const text = await runInDurableObject(await sessionStub(await setup()), async (_i, state) => {
      const log = new StreamLog(state.storage.sql);
      const start = log.head();
      firstSegment(log, turn);
      log.append(turn, [...PAUSE]);
      log.end(turn);
      const reader = log.open(turn, start, false).getReader();
      await reader.read();
      log.clear();
      return readRest(reader);
    });
    expect(text).toBe("dropped");
  });
});
