// A client resuming a turn's UI message stream with Last-Event-ID assembles the same message as one that never
// lost its connection (the replay itself, from the stream log, is tested in test/workers/stream.test.ts).
import { describe, expect, it } from "vitest";
import { coalesce } from "../../../../src/session/stream/coalesce";
import { parseSseFrames, sseDone } from "../../../../src/session/stream/sse";
import { assemble, assembleConnections, encodeAll, toFrames, toSse } from "./assemble";
import { FULL_TURN } from "./fixtures";

// The session's log, as stored: coalesced chunks with ids 1..n.
const chunks = coalesce(encodeAll(FULL_TURN));
const frames = toFrames(chunks);
const full = toSse(chunks);

/** What the session sends a reconnect with `Last-Event-ID: lastId` once the turn is over: the frames after it, then [DONE]. */
function replayAfter(lastId: number): string {
  return frames.slice(lastId).join("") + sseDone(frames.length);
}

/** The Last-Event-ID a client holds after reading `received`: the last id of a complete event. */
function lastEventId(received: string): number {
  let last = 0;
  for (const frame of parseSseFrames(received)) if (frame.id !== null) last = frame.id;
  return last;
}

describe("resume with Last-Event-ID", async () => {
  const expected = (await assemble(full)).message;

  it("the uninterrupted stream assembles", () => {
    expect(expected?.parts.length).toBeGreaterThan(5);
  });

  for (let k = 0; k <= frames.length; k++) {
    it(`cut after frame ${k}: the resumed message is the uninterrupted one`, async () => {
      const first = frames.slice(0, k).join("");
      expect(lastEventId(first)).toBe(k);
      const resumed = await assembleConnections([first, replayAfter(k)]);
      expect(resumed.errors).toEqual([]);
      expect(resumed.message).toEqual(expected);
    });
  }

  it("a connection cut mid-frame resumes from the last complete frame", async () => {
    let offset = 0;
    for (const frame of frames) {
      for (const cut of [offset + 1, offset + Math.floor(frame.length / 2), offset + frame.length - 1]) {
        const received = full.slice(0, cut);
        const resumed = await assembleConnections([received, replayAfter(lastEventId(received))]);
        expect(resumed.errors).toEqual([]);
        expect(resumed.message).toEqual(expected);
      }
      offset += frame.length;
    }
  });
});
