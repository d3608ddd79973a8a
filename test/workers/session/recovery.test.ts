// The stream of a turn a restart interrupted, as the AI SDK assembles it (src/session/recovery.ts): a call stored
// just before the restart, before the stream log's batch timer ran, replays with the text before it and then its
// synthetic result, as its frames were written with it.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { type DynamicToolUIPart, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { HistoryStore } from "../../../src/session/history/store";
import { parseSseFrames } from "../../../src/session/stream/sse";
import { api, patch, restorePatches, type Setup, script, sessionStub, setup } from "../helpers";

afterEach(restorePatches);

const INTERRUPTED = "interrupted: the session restarted while the turn was running";

/** An http tool the session runs, answering after `delayMs`. */
const check = (delayMs: number) => ({
  name: "check",
  description: "a server-side check",
  input_schema: { type: "object", properties: { amount: { type: "number" }, note: { type: "string" } } },
  execution: { type: "http", url: `${env.MOCK_URL}/_tool?delay_ms=${delayMs}` },
});

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

describe("a turn's stream resumed after a restart", () => {
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
