// The stream of a turn a restart interrupted, as the AI SDK assembles it (src/session/recovery.ts): a client that
// resumes it after the restart gets what the lost instance left open closed (a text part, a call whose input was
// streaming, the step), whether the turn was cut mid text or mid tool input; and a call stored just before the
// restart, before the stream log's batch timer ran, replays with the text before it and then its synthetic result.
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { type DynamicToolUIPart, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { HistoryStore } from "../../../src/session/history/history-store";
import { parseSseFrames } from "../../../src/session/stream/sse";
import { api, patch, recordStream, restorePatches, type Setup, script, sessionStub, setup } from "../helpers";

afterEach(restorePatches);

const INTERRUPTED = "interrupted: the session restarted while the turn was running";

/** An http tool the session runs, answering after `delayMs`. */
const check = (delayMs: number) => ({
  name: "check",
  description: "a server-side check",
  input_schema: { type: "object", properties: { amount: { type: "number" }, note: { type: "string" } } },
  execution: { type: "http", url: `${env.MOCK_URL}/_tool?delay_ms=${delayMs}` },
});

interface Frame {
  id: number;
  chunk: UIMessageChunk;
}

/** Reads a live answer's frames until `enough` says so, then hangs up (the client's connection drops). */
async function readUntil(res: Response, enough: (frames: Frame[]) => boolean): Promise<Frame[]> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  let frames: Frame[] = [];
  while (!enough(frames)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    frames = parseSseFrames(text)
      .filter((f) => f.data !== "[DONE]")
      .map((f) => ({ id: f.id as number, chunk: JSON.parse(f.data) as UIMessageChunk }));
  }
  await reader.cancel().catch(() => {});
  return frames;
}

/** The text (`text-delta`) or call input (`tool-input-delta`) the frames carried, joined. */
function deltas(frames: Frame[], type: "text-delta" | "tool-input-delta"): string {
  let out = "";
  for (const { chunk } of frames) {
    if (chunk.type === type && chunk.type === "text-delta") out += chunk.delta;
    if (chunk.type === type && chunk.type === "tool-input-delta") out += chunk.inputTextDelta;
  }
  return out;
}

/** Waits until the session's stream log has written its frames up to `id` to storage (the restart keeps those). */
async function writtenUpTo(s: Setup, id: number): Promise<void> {
  const stub = await sessionStub(s);
  for (let i = 0; i < 500; i++) {
    const head = await runInDurableObject(
      stub,
      (_i, state) => state.storage.sql.exec<{ m: number | null }>("SELECT max(id) AS m FROM stream_log").one().m,
    );
    if ((head ?? 0) >= id) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`frames up to ${id} were never written`);
}

/** The turn's frames after `after`, as GET /stream replays them once the turn is over. */
async function resume(s: Setup, after: number): Promise<UIMessageChunk[]> {
  const res = await api(`/v1/sessions/${s.session}/stream`, {
    key: s.key,
    headers: { "last-event-id": String(after) },
  });
  expect(res.status).toBe(200);
  return parseSseFrames(await res.text())
    .filter((f) => f.data !== "[DONE]")
    .map((f) => JSON.parse(f.data) as UIMessageChunk);
}

/** The message useChat holds after reading `chunks`, and the stream errors it reported (a throw ends it there). */
async function assembled(chunks: UIMessageChunk[]): Promise<{ message: UIMessage | undefined; errors: string[] }> {
  const errors: string[] = [];
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });
  let message: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream, onError: (e) => errors.push((e as Error).message) })) {
    message = m;
  }
  return { message, errors };
}

/** Every text part done, no call left streaming its input, and no error but the interrupted turn's own. */
function expectClosed({ message, errors }: { message: UIMessage | undefined; errors: string[] }): UIMessage {
  expect(errors).toEqual([INTERRUPTED]);
  if (!message) throw new Error("no message assembled");
  expect(message.parts.filter((p) => (p.type === "text" || p.type === "reasoning") && p.state !== "done")).toEqual([]);
  expect(message.parts.filter((p) => p.type === "dynamic-tool" && p.state === "input-streaming")).toEqual([]);
  return message;
}

/** Starts a turn whose model answer is `reply` cut off after `events` frames (the model stalls there). */
async function stalled(s: Setup, reply: Record<string, unknown>, events: number): Promise<Response> {
  await script(s.model, [{ raw: await recordStream("anthropic", reply), faults: { stall_after_events: events } }]);
  return api(`/v1/sessions/${s.session}/messages`, { method: "POST", key: s.key, json: { content: "go" } });
}

describe("a turn's stream resumed after a restart", () => {
  it("cut mid text: the text part the lost instance left streaming is done", async () => {
    const s = await setup({ tools: [check(0)] });
    // message_start, the text block's start, a ping, "one", " two": then the model stalls.
    const running = await stalled(s, { text: "one two three four" }, 5);
    const seen = await readUntil(running, (fs) => deltas(fs, "text-delta") === "one two");
    const last = seen[seen.length - 1]?.id as number;
    await writtenUpTo(s, last);
    await abortAllDurableObjects();
    const message = expectClosed(await assembled([...seen.map((f) => f.chunk), ...(await resume(s, last))]));
    expect(message.parts.find((p) => p.type === "text")).toMatchObject({ text: "one two", state: "done" });
  });

  it("cut mid tool input: the call whose input was streaming ends in error", async () => {
    const s = await setup({ tools: [check(0)] });
    const reply = {
      text: "Looking.",
      tool_calls: [{ id: "toolu_midinput_1", name: "check", input: { amount: 9, note: "x" } }],
    };
    // Up to the call's input `{"amount":9,"note":"`: then the model stalls.
    const running = await stalled(s, reply, 9);
    const seen = await readUntil(running, (fs) => deltas(fs, "tool-input-delta") === '{"amount":9,"note":"');
    const last = seen[seen.length - 1]?.id as number;
    await writtenUpTo(s, last);
    await abortAllDurableObjects();
    const message = expectClosed(await assembled([...seen.map((f) => f.chunk), ...(await resume(s, last))]));
    const call = message.parts.find((p): p is DynamicToolUIPart => p.type === "dynamic-tool");
    expect(call).toMatchObject({ toolCallId: "toolu_midinput_1", state: "output-error" });
  });

  it("cut just after a call was stored, its frames not yet written: the call, its text and its outcome replay", async () => {
    const s = await setup({ tools: [check(30_000)] });
    const call = { id: "toolu_lost_1", name: "check", input: { amount: 9 } };
    await script(s.model, [{ reply: { text: "Looking.", tool_calls: [call] } }]);
    // The restart comes once the stored call is committed, before the stream log's batch timer (PERSIST_MS) runs.
    const object = await runInDurableObject(await sessionStub(s), (_i, state) => state);
    const append = HistoryStore.prototype.appendAssistantParts;
    patch(
      HistoryStore.prototype,
      "appendAssistantParts",
      function (this: HistoryStore, ...args: Parameters<typeof append>) {
        const seq = append.apply(this, args);
        if (args[2].some((p) => p.type === "tool_use")) {
          queueMicrotask(() => void object.storage.sync().then(() => object.abort("restart")));
        }
        return seq;
      },
    );
    const running = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "go" },
    });
    await running.text().catch(() => "");
    restorePatches();
    // A client that read nothing of the turn (a reload) reads it all.
    const message = expectClosed(await assembled(await resume(s, 0)));
    expect(message.parts.find((p) => p.type === "text")).toMatchObject({ text: "Looking.", state: "done" });
    const part = message.parts.find((p): p is DynamicToolUIPart => p.type === "dynamic-tool");
    expect(part).toMatchObject({ toolCallId: "toolu_lost_1", state: "output-error", input: { amount: 9 } });
  });
});
