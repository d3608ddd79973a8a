import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { StreamLog } from "../../src/session/stream/log";
import { sessionStub, setup } from "./helpers";

/**
 * What a live subscriber of the stream log (src/session/stream/log.ts) is handed, write by write: each write
 * crosses to the client as one stream chunk. Frames that only open or close a message, step or part wait for the
 * next frame; nothing else waits, and nothing is held back once the stream ends.
 */

const NOTHING = "(nothing written)";

/** Reads a subscriber's stream write by write: the next chunk, null at its end, or NOTHING when none comes soon. */
function writesOf(stream: ReadableStream<Uint8Array>): () => Promise<string[] | string | null> {
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

describe("stream log writes to a live subscriber", () => {
  it("hands the opening frames over with the first text delta, as one write", async () => {
    const stub = await sessionStub(await setup());
    const writes = await runInDurableObject(stub, async (_i, state) => {
      const log = new StreamLog(state.storage.sql);
      const turn = "turn_stream_log_openers";
      const next = writesOf(log.open(turn, log.head(), true));
      const seen = [];
      log.append(turn, [{ type: "start", messageId: "m1" }, { type: "start-step" }]);
      log.append(turn, [{ type: "text-start", id: "t1" }]);
      seen.push(await next());
      log.append(turn, [{ type: "text-delta", id: "t1", delta: "Hi" }]);
      seen.push(await next());
      log.end(turn);
      return seen;
    });
    expect(writes).toEqual([NOTHING, ["start", "start-step", "text-start", "text-delta"]]);
  });

  it("hands each text delta over in the task it is appended in", async () => {
    const stub = await sessionStub(await setup());
    const writes = await runInDurableObject(stub, async (_i, state) => {
      const log = new StreamLog(state.storage.sql);
      const turn = "turn_stream_log_deltas";
      const next = writesOf(log.open(turn, log.head(), true));
      const seen = [];
      for (const delta of ["a", "b"]) {
        log.append(turn, [{ type: "text-delta", id: "t1", delta }]);
        seen.push(await next());
      }
      log.end(turn);
      return seen;
    });
    expect(writes).toEqual([["text-delta"], ["text-delta"]]);
  });

  it("sends the closing frames it holds when the stream ends", async () => {
    const stub = await sessionStub(await setup());
    const writes = await runInDurableObject(stub, async (_i, state) => {
      const log = new StreamLog(state.storage.sql);
      const turn = "turn_stream_log_closers";
      const next = writesOf(log.open(turn, log.head(), true));
      const seen = [];
      log.append(turn, [{ type: "text-end", id: "t1" }, { type: "finish-step" }]);
      seen.push(await next());
      log.end(turn);
      seen.push(await next());
      seen.push(await next());
      return seen;
    });
    expect(writes).toEqual([NOTHING, ["text-end", "finish-step", "[DONE]"], null]);
  });
});
