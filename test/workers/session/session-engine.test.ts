// The session engine's GET …/stream (src/session/session-engine.ts, openStream): a resume from a Last-Event-ID inside
// a turn that is no longer the newest gets the rest of that turn, ending with [DONE] at its last frame, and the resume
// from there the newer turn from its start, where it got the newer turn and never the rest of its own.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { StreamLog } from "../../../src/session/stream/stream-log";
import {
  api,
  heldToolUrl,
  lastTurnAtRest,
  readFrames,
  releaseTool,
  type Setup,
  script,
  send,
  sessionStub,
  setup,
  sseFrames,
  uid,
} from "../helpers";

type Frame = { id: number | null; data: string };

const WORDS = Array.from({ length: 30 }, (_, i) => `one${i}`).join(" ");

/**
 * Turn 1 streams 30 words slowly; the client reads its first 4 frames and hangs up, and the turn ends unread. The turn's
 * id and the id of the last frame the client read.
 */
async function droppedTurn(s: Setup): Promise<{ turn: string; lastId: number }> {
  await script(s.model, [{ reply: { text: WORDS }, faults: { event_delay_ms: 10 } }]);
  const res = await api(`/v1/sessions/${s.session}/messages`, { method: "POST", key: s.key, json: { content: "go" } });
  const turn = res.headers.get("x-turn-id") as string;
  const head = await readFrames(res, 4);
  expect(await lastTurnAtRest(s)).toBe("completed");
  return { turn, lastId: head.at(-1)?.id as number };
}

/** `turnId`'s frames in the session's stream log after `after`, as a stream sends them, and the [DONE] at the last. */
async function loggedAfter(s: Setup, turnId: string, after: number): Promise<Frame[]> {
  const frames = await runInDurableObject(await sessionStub(s), (_i, state) =>
    new StreamLog(state.storage.sql).page(turnId, after, 1_000).frames.map((f) => ({
      id: f.id,
      data: JSON.stringify(f.chunk),
    })),
  );
  return [...frames, { id: frames.at(-1)?.id ?? null, data: "[DONE]" }];
}

/** GET …/stream from `lastId`: its x-turn-id and frames. */
async function resume(s: Setup, lastId: number): Promise<{ turn: string | null; frames: Frame[] }> {
  const res = await api(`/v1/sessions/${s.session}/stream`, {
    key: s.key,
    headers: { "last-event-id": String(lastId) },
  });
  expect(res.status).toBe(200);
  return { turn: res.headers.get("x-turn-id"), frames: await sseFrames(res) };
}

/** A turn that answers `text` and completes; its id. */
async function textTurn(s: Setup, text: string): Promise<string> {
  await script(s.model, [{ reply: { text } }]);
  const turn = await send(s, { content: "again" });
  expect(turn.body.status).toBe("completed");
  return turn.body.turn_id;
}

const typeOf = (f: Frame | undefined) => (f ? (JSON.parse(f.data) as { type: string }).type : undefined);

describe("a resume from inside a turn that is no longer the newest", () => {
  it("gets the rest of that turn, then from its last frame the newer turn from its start", async () => {
    const s = await setup();
    const first = await droppedTurn(s);
    const secondTurn = await textTurn(s, "second answer");

    const rest = await resume(s, first.lastId);
    expect(rest.turn).toBe(first.turn);
    expect(rest.frames).toEqual(await loggedAfter(s, first.turn, first.lastId));
    const next = await resume(s, rest.frames.at(-1)?.id as number);
    expect(next.turn).toBe(secondTurn);
    expect(typeOf(next.frames[0])).toBe("start");
    expect(next.frames.at(-1)?.data).toBe("[DONE]");
  });

  it("gets the rest of that turn while the newer one runs, then from its last frame the newer one live", async () => {
    const hold = uid("resume-newer");
    const s = await setup({
      tools: [
        {
          name: "slow",
          description: "held",
          input_schema: { type: "object", properties: {} },
          execution: { type: "http", url: heldToolUrl(hold) },
        },
      ],
    });
    const first = await droppedTurn(s);
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_resume_newer", name: "slow", input: {} }] } },
      { reply: { text: "second answer" } },
    ]);
    const second = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "again" },
    });
    const secondTurn = second.headers.get("x-turn-id");
    // The newer turn is running: its tool call is held until released.
    await readFrames(second, 1);

    const rest = await resume(s, first.lastId);
    expect(rest.turn).toBe(first.turn);
    expect(rest.frames).toEqual(await loggedAfter(s, first.turn, first.lastId));
    const res = await api(`/v1/sessions/${s.session}/stream`, {
      key: s.key,
      headers: { "last-event-id": String(rest.frames.at(-1)?.id) },
    });
    expect(res.headers.get("x-turn-id")).toBe(secondTurn);
    await releaseTool(hold);
    const frames = await sseFrames(res);
    expect(typeOf(frames[0])).toBe("start");
    expect(typeOf(frames.at(-2))).toBe("finish");
  });

  it("from 0, which names no frame, gets the newest turn from its start", async () => {
    const s = await setup();
    await textTurn(s, "first answer");
    const second = await textTurn(s, "second answer");

    const resumed = await resume(s, 0);
    expect(resumed.turn).toBe(second);
    expect(typeOf(resumed.frames[0])).toBe("start");
  });

  it("gets the newest turn from its start when the rest of its own turn was swept", async () => {
    const s = await setup();
    const first = await droppedTurn(s);
    // The log keeps the newest three turns: the fourth's end sweeps the first's frames.
    await textTurn(s, "second answer");
    await textTurn(s, "third answer");
    const fourth = await textTurn(s, "fourth answer");

    const resumed = await resume(s, first.lastId);
    expect(resumed.turn).toBe(fourth);
    expect(typeOf(resumed.frames[0])).toBe("start");
  });
});
