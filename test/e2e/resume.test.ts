// Resumable streams through real workerd: a client drops after K frames, reconnects to GET /stream with
// Last-Event-ID, and ends up with exactly the frames (and the message) of an uninterrupted replay.
import { beforeAll, describe, expect, inject, it } from "vitest";
import { lookupAgent } from "../helpers/fixtures.ts";
import { Api, HttpError, Mock, parseSse, readSse, type SseFrame, type Step, uniqueModel } from "../helpers/index.ts";
import { assembleChunks, sdkChunks, sdkChunksOfFrames, textStream } from "./ui-stream.ts";

const api = new Api(inject("baseUrl"), inject("adminKey"));
const mock = new Mock(inject("mockUrl"));

let tenantKey: string;

beforeAll(async () => {
  tenantKey = (await api.createKey(`resume-${Date.now()}`)).key;
});

const LONG_TEXT =
  "Here is what I know so far about the question you asked, and I will now check the address book " +
  "for the exact entry so that the answer is precise rather than a guess from memory alone.";

/** A slow turn (20 ms between provider frames) with thinking, ~35 words of text and a client tool call. */
const slowReply: Step = {
  reply: {
    thinking: "The user wants an address; the lookup tool has it, so I will call it after a short preface.",
    text: LONG_TEXT,
    tool_calls: [{ name: "lookup", input: { key: "ada lovelace" } }],
  },
  faults: { event_delay_ms: 20 },
};

async function setup(prefix: string): Promise<{ model: string; session: string }> {
  const model = uniqueModel(prefix);
  const agent = `agent-${model}`;
  await api.putAgent(agent, lookupAgent(model));
  const session = (await api.createSession(tenantKey, agent)).id;
  return { model, session };
}

function dataFrames(frames: SseFrame[]): SseFrame[] {
  return frames.filter((f) => f.data !== "[DONE]");
}

function ids(frames: SseFrame[]): number[] {
  return frames.map((f) => {
    expect(f.id ?? "", `frame without a numeric id: ${f.data}`).toMatch(/^\d+$/);
    return Number(f.id);
  });
}

/** GET /stream?after=0: the whole log of the last turn, read as raw text once the turn is over (checked against the document as it is read). */
async function fullReplay(session: string): Promise<string> {
  const res = await api.request("GET", `/v1/sessions/${encodeURIComponent(session)}/stream?after=0`, {
    key: tenantKey,
    headers: { accept: "text/event-stream" },
  });
  if (res.status !== 200) throw new HttpError("GET /stream?after=0", res.status, await res.text());
  return res.text();
}

describe("reconnecting with Last-Event-ID", () => {
  it.each([1, 3, 6])("after a drop at frame %i: no gap, no duplicate, the same assembled message", async (k) => {
    const { model, session } = await setup(`resume-k${k}`);
    await mock.script(model, [slowReply]);

    // First connection: read K frames, then drop it.
    const first = await api.send(tenantKey, session, { content: "Where does Ada live?" });
    if (!first.ok) throw new HttpError("POST /messages", first.status, await first.text());
    const before = await readSse(first, { maxFrames: k });
    expect(before.end).toBe("max_frames");
    expect(before.frames).toHaveLength(k);
    const lastId = before.frames.at(-1)?.id ?? null;
    expect(lastId).not.toBeNull();

    // Second connection: resume after the last id received, follow to the end of the turn.
    const second = await api.stream(tenantKey, session, lastId ?? undefined);
    expect(second.status).toBe(200);
    expect(second.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    const after = await readSse(second);
    expect(after.done).toBe(true);

    // The uninterrupted log, once the turn is over (it paused for the client tool).
    const replayText = await fullReplay(session);
    const replay = dataFrames(parseSse(replayText));
    expect(parseSse(replayText).at(-1)?.data).toBe("[DONE]");

    const received = [...before.frames, ...dataFrames(after.frames)];
    const receivedIds = ids(received);
    for (let i = 1; i < receivedIds.length; i++) expect(receivedIds[i]).toBeGreaterThan(receivedIds[i - 1] ?? -1);
    expect(new Set(receivedIds).size).toBe(receivedIds.length);
    expect(receivedIds).toEqual(ids(replay));
    expect(received.map((f) => f.data)).toEqual(replay.map((f) => f.data));

    // The AI SDK assembles the same message from the two connections as from the replay.
    const resumed = await assembleChunks(await sdkChunksOfFrames(received));
    const whole = await assembleChunks(await sdkChunks(textStream(replayText)));
    expect(resumed.errors).toEqual([]);
    expect(whole.errors).toEqual([]);
    expect(resumed.message).toEqual(whole.message);

    // And that message is the full turn, not an empty one that would match trivially.
    const types = whole.message?.parts.map((p) => p.type) ?? [];
    expect(types).toEqual(expect.arrayContaining(["step-start", "reasoning", "text", "dynamic-tool"]));
    const text = whole.message?.parts.find((p) => p.type === "text");
    expect(text?.type === "text" ? text.text : undefined).toBe(LONG_TEXT);
  });
});

describe("GET /stream without Last-Event-ID", () => {
  it("answers 204 on a session that never ran a turn", async () => {
    const { session } = await setup("resume-idle-fresh");

    const res = await api.stream(tenantKey, session);

    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
  });

  it("answers 204 once the last turn has ended", async () => {
    const { model, session } = await setup("resume-idle-done");
    await mock.script(model, [{ reply: { text: "Done already." } }]);
    const turn = await api.sendJson(tenantKey, session, { content: "Anything?" });
    expect(turn.status).toBe("completed");

    const res = await api.stream(tenantKey, session);

    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
  });
});
