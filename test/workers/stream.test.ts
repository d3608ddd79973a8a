// The SSE turn stream: the UI message stream protocol, resuming with Last-Event-ID, the AI SDK's reconnect URL across
// a turn's pauses, and useChat's regenerate on POST /chat.
import { describe, expect, it } from "vitest";
import {
  api,
  apiJson,
  clientTool,
  history,
  type Msg,
  readFrames,
  type Setup,
  script,
  send,
  setup,
  sseFrames,
} from "./helpers";

/** Sends a message whose turn pauses for a client tool's result (answered as JSON). */
async function pauseForClient(s: Setup): Promise<void> {
  const paused = await api(`/v1/sessions/${s.session}/messages`, {
    method: "POST",
    key: s.key,
    json: { content: "ask me" },
    headers: { accept: "application/json" },
  });
  expect(((await paused.json()) as { status: string }).status).toBe("awaiting_tool_results");
}

describe("SSE turn stream", () => {
  it("speaks the UI message stream protocol with an id on every frame and [DONE] last", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { thinking: "hmm", text: "Hello world, this is a reply." } }]);
    const res = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "hi" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    const frames = await sseFrames(res);
    const body = frames.slice(0, -1);
    // [DONE] carries an id too: the last chunk's, so resuming from it yields nothing new.
    expect(frames[frames.length - 1]).toEqual({ id: body[body.length - 1]?.id, data: "[DONE]" });
    const ids = body.map((f) => f.id as number);
    expect(ids.every((id) => Number.isInteger(id))).toBe(true);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    const types = body.map((f) => (JSON.parse(f.data) as { type: string }).type);
    expect(types[0]).toBe("start");
    expect(types).toContain("reasoning-delta");
    expect(types).toContain("text-delta");
    expect(types[types.length - 1]).toBe("finish");
  });

  it("resumes with Last-Event-ID: replayed + live frames equal the uninterrupted stream", async () => {
    const s = await setup();
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    await script(s.model, [{ reply: { text: words }, faults: { event_delay_ms: 15 } }]);
    const res = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "go" },
    });
    const head = await readFrames(res, 4);
    const lastId = head[head.length - 1]?.id as number;
    const resumed = await api(`/v1/sessions/${s.session}/stream`, {
      key: s.key,
      headers: { "last-event-id": String(lastId) },
    });
    expect(resumed.status).toBe(200);
    const tail = await sseFrames(resumed);
    const full = await sseFrames(await api(`/v1/sessions/${s.session}/stream?after=0`, { key: s.key }));
    expect([...head, ...tail]).toEqual(full);
    const text = [...head, ...tail]
      .filter((f) => f.data !== "[DONE]")
      .map((f) => JSON.parse(f.data) as { type: string; delta?: string })
      .filter((c) => c.type === "text-delta")
      .map((c) => c.delta)
      .join("");
    expect(text).toBe(words);
  });

  it("answers 204 when nothing is active and nothing was missed", async () => {
    const s = await setup();
    const none = await api(`/v1/sessions/${s.session}/stream`, { key: s.key });
    expect(none.status).toBe(204);
    await script(s.model, [{ reply: { text: "done" } }]);
    await (
      await api(`/v1/sessions/${s.session}/messages`, { method: "POST", key: s.key, json: { content: "x" } })
    ).text();
    expect((await api(`/v1/sessions/${s.session}/stream`, { key: s.key })).status).toBe(204);
  });

  it("names the turn a resumed stream belongs to in x-turn-id, as the turn's own stream does", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "done" } }]);
    const res = await api(`/v1/sessions/${s.session}/messages`, { method: "POST", key: s.key, json: { content: "x" } });
    const turnId = res.headers.get("x-turn-id");
    await res.text();
    expect(turnId).toBeTruthy();
    for (const path of [`/v1/sessions/${s.session}/stream`, `/v1/sessions/${s.session}/chat/${s.session}/stream`]) {
      const resumed = await api(`${path}?after=0`, { key: s.key });
      expect(resumed.status, path).toBe(200);
      expect(resumed.headers.get("x-turn-id"), path).toBe(turnId);
      await resumed.text();
    }
  });

  it("keeps running when the client disconnects, and the result is in history", async () => {
    const s = await setup();
    await script(s.model, [
      { reply: { text: "one two three four five six seven eight" }, faults: { event_delay_ms: 10 } },
    ]);
    const res = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "go" },
    });
    await readFrames(res, 2);
    for (let i = 0; i < 100; i++) {
      const state = (await (await api(`/v1/sessions/${s.session}`, { key: s.key })).json()) as { status: string };
      if (state.status === "idle") break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const msgs = (await (await api(`/v1/sessions/${s.session}/messages`, { key: s.key })).json()) as {
      messages: Array<{ role: string; parts: Array<{ text?: string }> }>;
    };
    expect(msgs.messages[1]?.parts[0]?.text).toBe("one two three four five six seven eight");
  });
});

describe("the AI SDK's default reconnect URL (useChat resume: true)", () => {
  it("GET /chat/{chatId}/stream replays the live turn from its start, like GET /stream", async () => {
    const s = await setup();
    const words = Array.from({ length: 30 }, (_, i) => `w${i}`).join(" ");
    await script(s.model, [{ reply: { text: words }, faults: { event_delay_ms: 15 } }]);
    const res = await api(`/v1/sessions/${s.session}/chat`, {
      method: "POST",
      key: s.key,
      json: { id: s.session, messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "go" }] }] },
    });
    await readFrames(res, 3);
    const resumed = await api(`/v1/sessions/${s.session}/chat/${s.session}/stream`, { key: s.key });
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    const frames = await sseFrames(resumed);
    const full = await sseFrames(await api(`/v1/sessions/${s.session}/stream?after=0`, { key: s.key }));
    expect(frames).toEqual(full);
  });

  it("replays every segment of a turn resumed after a pause, not only the live one", async () => {
    const s = await setup({ tools: [clientTool("ask_user")] });
    const words = Array.from({ length: 30 }, (_, i) => `w${i}`).join(" ");
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_seg1", name: "ask_user", input: { q: "which?" } }] } },
      { reply: { text: words }, faults: { event_delay_ms: 15 } },
    ]);
    const paused = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "ask me" },
      headers: { accept: "application/json" },
    });
    expect(((await paused.json()) as { status: string }).status).toBe("awaiting_tool_results");
    const resumed = await api(`/v1/sessions/${s.session}/tool-results`, {
      method: "POST",
      key: s.key,
      json: { results: [{ tool_use_id: "toolu_seg1", content: "the blue one" }] },
    });
    await readFrames(resumed, 3);
    // A reload while the second segment streams: the client has nothing, so it gets the whole turn.
    const frames = await sseFrames(await api(`/v1/sessions/${s.session}/chat/${s.session}/stream`, { key: s.key }));
    const text = frames.map((f) => f.data).join("\n");
    expect(text).toContain('"toolCallId":"toolu_seg1"');
    expect(text).toContain("w29");
    const full = await sseFrames(await api(`/v1/sessions/${s.session}/stream?after=0`, { key: s.key }));
    expect(frames).toEqual(full);
  });

  it("replays a client call answered in an earlier segment as already run, its result after it", async () => {
    const s = await setup({ tools: [clientTool("ask_user")] });
    const words = Array.from({ length: 30 }, (_, i) => `w${i}`).join(" ");
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_replay_done", name: "ask_user", input: { q: "which?" } }] } },
      { reply: { text: words }, faults: { event_delay_ms: 15 } },
    ]);
    await pauseForClient(s);
    const resumed = await api(`/v1/sessions/${s.session}/tool-results`, {
      method: "POST",
      key: s.key,
      json: { results: [{ tool_use_id: "toolu_replay_done", content: "the blue one" }] },
    });
    await readFrames(resumed, 3);
    // useChat's resume after a reload (no Last-Event-ID): onToolCall runs every offered call without providerExecuted.
    const chunks = (await sseFrames(await api(`/v1/sessions/${s.session}/stream`, { key: s.key })))
      .filter((f) => f.data !== "[DONE]")
      .map((f) => JSON.parse(f.data) as Record<string, unknown>);
    const ofCall = chunks.filter((c) => c.toolCallId === "toolu_replay_done" && c.type !== "tool-input-delta");
    expect(ofCall.map((c) => c.type)).toEqual(["tool-input-start", "tool-input-available", "tool-output-available"]);
    expect(ofCall[1]).toMatchObject({ providerExecuted: true, input: { q: "which?" } });
    expect(ofCall[2]).toMatchObject({ output: "the blue one" });
  });

  it("replays a client call still waiting for its result as an offer to run it", async () => {
    const s = await setup({ tools: [clientTool("ask_user")] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_replay_open", name: "ask_user", input: { q: "which?" } }] } },
    ]);
    await pauseForClient(s);
    const chunks = (await sseFrames(await api(`/v1/sessions/${s.session}/stream?after=0`, { key: s.key })))
      .filter((f) => f.data !== "[DONE]")
      .map((f) => JSON.parse(f.data) as Record<string, unknown>);
    const offer = chunks.find((c) => c.type === "tool-input-available" && c.toolCallId === "toolu_replay_open");
    expect(offer).toMatchObject({ toolName: "ask_user", input: { q: "which?" } });
    expect(offer).not.toHaveProperty("providerExecuted");
  });

  it("tells a client's result on the stream of the segment it resumes", async () => {
    const s = await setup({ tools: [clientTool("ask_user")] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_told", name: "ask_user", input: { q: "which?" } }] } },
      { reply: { text: "Blue it is." } },
    ]);
    await pauseForClient(s);
    const resumed = await api(`/v1/sessions/${s.session}/tool-results`, {
      method: "POST",
      key: s.key,
      json: { results: [{ tool_use_id: "toolu_told", content: '{"color":"blue"}', is_error: false }] },
    });
    const chunks = (await sseFrames(resumed))
      .filter((f) => f.data !== "[DONE]")
      .map((f) => JSON.parse(f.data) as Record<string, unknown>);
    const told = chunks.filter((c) => c.toolCallId === "toolu_told");
    expect(told).toEqual([
      { type: "tool-output-available", toolCallId: "toolu_told", output: { color: "blue" }, dynamic: true },
    ]);
  });

  it("tells a call the session answered itself once, in the turn's stream and its replay, across the pause", async () => {
    const s = await setup({ tools: [clientTool("ask_user")] });
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            // q must be a string: the tool phase answers this call itself; the step pauses for the other.
            { id: "toolu_once_bad", name: "ask_user", input: { q: 7 } },
            { id: "toolu_once_ok", name: "ask_user", input: { q: "which?" } },
          ],
        },
      },
      { reply: { text: "Blue it is." } },
    ]);
    await pauseForClient(s);
    const resumed = await api(`/v1/sessions/${s.session}/tool-results`, {
      method: "POST",
      key: s.key,
      json: { results: [{ tool_use_id: "toolu_once_ok", content: "blue" }] },
    });
    await resumed.text();
    const chunks = (await sseFrames(await api(`/v1/sessions/${s.session}/stream?after=0`, { key: s.key })))
      .filter((f) => f.data !== "[DONE]")
      .map((f) => JSON.parse(f.data) as { type: string; toolCallId?: string });
    const outcomes = (id: string) =>
      chunks.filter((c) => c.toolCallId === id && /^tool-(input-error|output-)/.test(c.type)).map((c) => c.type);
    expect(outcomes("toolu_once_bad")).toEqual(["tool-input-error"]);
    expect(outcomes("toolu_once_ok")).toEqual(["tool-output-available"]);
  });

  it("answers 204 when no turn is streaming", async () => {
    const s = await setup();
    expect((await api(`/v1/sessions/${s.session}/chat/${s.session}/stream`, { key: s.key })).status).toBe(204);
  });

  it("refuses a chat id other than the session id with a JSON 404", async () => {
    const s = await setup();
    const res = await api(`/v1/sessions/${s.session}/chat/another-chat/stream`, { key: s.key });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: "not_found" } });
  });
});

describe("useChat regenerate() on POST /chat (trigger: regenerate-message)", () => {
  /** What DefaultChatTransport sends for regenerate(): the history up to the user message to answer again. */
  const regenerateBody = (session: string) => ({
    id: session,
    trigger: "regenerate-message",
    messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "hi" }] }],
  });
  const texts = (msgs: Msg[]) => msgs.map((m) => `${m.role}: ${m.parts.map((p) => p.text ?? p.type).join("")}`);

  it("re-runs a failed newest turn as /retry does, streamed, without storing the user message again", async () => {
    const s = await setup();
    await script(s.model, [{ error: { status: 400, message: "bad thing" } }, { reply: { text: "Two." } }]);
    expect((await send(s, { content: "hi" })).body.status).toBe("failed");
    const res = await api(`/v1/sessions/${s.session}/chat`, {
      method: "POST",
      key: s.key,
      json: regenerateBody(s.session),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    await sseFrames(res);
    expect(texts(await history(s))).toEqual(["user: hi", "assistant: Two."]);
  });

  it("answers 409 nothing_to_retry after a completed turn and stores nothing", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "One." } }, { reply: { text: "Two." } }]);
    expect((await send(s, { content: "hi" })).body.status).toBe("completed");
    const res = await apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/chat`, {
      method: "POST",
      key: s.key,
      json: regenerateBody(s.session),
    });
    expect([res.status, res.body.error.code]).toEqual([409, "nothing_to_retry"]);
    expect(texts(await history(s))).toEqual(["user: hi", "assistant: One."]);
  });
});
