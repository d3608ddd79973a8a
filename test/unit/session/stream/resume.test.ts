import { describe, expect, it } from "vitest";
import { coalesce } from "../../../../src/session/stream/coalesce";
import { parseSseFrames, SSE_DONE } from "../../../../src/session/stream/sse";
import { assemble, assembleConnections, encodeAll, toFrames } from "./assemble";
import { FULL_TURN } from "./fixtures";

// The session's log, as stored: coalesced chunks with ids 1..n.
const frames = toFrames(coalesce(encodeAll(FULL_TURN)));
const full = frames.join("") + SSE_DONE;

/** What the server sends to a reconnect with `Last-Event-ID: lastId` once the turn is over. */
function replayAfter(lastId: number): string {
  return frames.slice(lastId).join("") + SSE_DONE;
}

/** The Last-Event-ID a client holds after reading `received`: the last id of a complete event. */
function lastEventId(received: string): number {
  let last = 0;
  for (const frame of parseSseFrames(received)) if (frame.id !== null) last = frame.id;
  return last;
}

describe("resume with Last-Event-ID", async () => {
  const expected = (await assemble(full)).message;

  it("the log has ids 1..n and the uninterrupted stream assembles", () => {
    expect(parseSseFrames(full).map((f) => f.id)).toEqual([...frames.map((_, i) => i + 1), null]);
    expect(expected?.parts.length).toBeGreaterThan(5);
  });

  for (let k = 0; k <= frames.length; k++) {
    it(`cut after frame ${k}: replay continues without duplicates or gaps`, async () => {
      const first = frames.slice(0, k).join("");
      const lastId = lastEventId(first);
      expect(lastId).toBe(k);
      const second = replayAfter(lastId);
      const ids = parseSseFrames(first + second).flatMap((f) => (f.id === null ? [] : [f.id]));
      expect(ids).toEqual(frames.map((_, i) => i + 1));
      const resumed = await assembleConnections([first, second]);
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

  it("reconnecting after [DONE] replays nothing but [DONE]", () => {
    expect(lastEventId(full)).toBe(frames.length);
    expect(replayAfter(lastEventId(full))).toBe(SSE_DONE);
  });
});
