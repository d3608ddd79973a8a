// POST /chat bodies (src/http/routes/chat-body.ts) as useChat builds them from the session's own stream: tool parts
// marked providerExecuted (calls the session ran, answered or dropped itself) are never taken as a client's outputs,
// so answering the calls the stream offered works beside them, whatever ids they carry; and what a user message asks
// that the server cannot do (read a file, replace an earlier message) is refused, not dropped without a word.
import { parseJsonEventStream } from "@ai-sdk/provider-utils";
import {
  type DynamicToolUIPart,
  lastAssistantMessageIsCompleteWithToolCalls,
  readUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
  uiMessageChunkSchema,
} from "ai";
import { describe, expect, it } from "vitest";
import { api, apiJson, clientTool, history, mockRequests, type Setup, script, send, setup } from "../../helpers";

/** The assistant message useChat holds once it has read a /chat stream answer (going on with `message`, if given). */
async function assistantMessage(res: Response, message?: UIMessage): Promise<UIMessage> {
  const parsed = parseJsonEventStream({ stream: res.body as ReadableStream<Uint8Array>, schema: uiMessageChunkSchema });
  const stream = parsed.pipeThrough(
    new TransformStream<{ success: boolean; value?: UIMessageChunk }, UIMessageChunk>({
      transform(result, controller) {
        if (result.success && result.value) controller.enqueue(result.value);
      },
    }),
  );
  let built: UIMessage | undefined;
  const errors: unknown[] = [];
  for await (const snapshot of readUIMessageStream({ message, stream, onError: (e) => errors.push(e) })) {
    built = snapshot;
  }
  if (!built || errors.length > 0) throw new Error(`the stream built no message: ${String(errors[0])}`);
  return built;
}

/** useChat's addToolOutput: the part of call `id` takes the app's output. */
function answered(message: UIMessage, id: string, output: string): UIMessage {
  const parts = message.parts.map((p) =>
    p.type === "dynamic-tool" && p.toolCallId === id ? ({ ...p, state: "output-available", output } as const) : p,
  );
  return { ...message, parts: parts as UIMessage["parts"] };
}

/** POST /chat as useChat posts it: the chat id, `messages` and any of its other fields (`trigger`, `messageId`). */
const chat = (s: Setup, messages: unknown[], fields: Record<string, unknown> = {}) =>
  api(`/v1/sessions/${s.session}/chat`, { method: "POST", key: s.key, json: { id: s.session, messages, ...fields } });

/** How the session's newest turn stands: paused, completed, failed… */
const lastTurn = async (s: Setup) =>
  (await apiJson<{ last_turn: { status: string } }>(`/v1/sessions/${s.session}`, { key: s.key })).body.last_turn.status;

describe("a /chat answer beside tool parts the session ended itself", () => {
  it("answers the client call offered beside one cut off by max_tokens: 200, and the turn completes", async () => {
    const s = await setup({ tools: [clientTool("lookup")] });
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_cutA", name: "lookup", input: { q: "x" } },
            // The last call is the one the output limit cut: stripped, never recorded.
            { id: "call_cutB", name: "lookup", input: {} },
          ],
          stop_reason: "max_tokens",
        },
      },
      { reply: { text: "Found it." } },
    ]);
    const user = { id: "u-cut", role: "user", parts: [{ type: "text", text: "look it up" }] };
    const first = await chat(s, [user]);
    expect(first.status).toBe(200);
    const message = await assistantMessage(first);
    const tools = message.parts.filter((p): p is DynamicToolUIPart => p.type === "dynamic-tool");
    expect(tools.map((t) => [t.toolCallId, t.state, t.providerExecuted])).toEqual([
      ["call_cutA", "input-available", undefined],
      ["call_cutB", "output-error", true],
    ]);
    expect(await lastTurn(s)).toBe("awaiting_tool_results");

    const reply = answered(message, "call_cutA", "found");
    expect(lastAssistantMessageIsCompleteWithToolCalls({ messages: [reply] })).toBe(true);
    const second = await chat(s, [user, reply]);
    expect([second.status, second.headers.get("content-type")]).toEqual([200, expect.stringContaining("event-stream")]);
    const resumed = await assistantMessage(second, reply);
    expect(resumed.parts.filter((p) => p.type === "text").map((p) => p.text)).toEqual(["Found it."]);
    expect(await lastTurn(s)).toBe("completed");
  });

  it("takes a client output beside a providerExecuted part whose id this session never issued", async () => {
    const s = await setup({ tools: [clientTool("ask_user")] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_pe_real", name: "ask_user", input: { q: "color?" } }] } },
      { reply: { text: "Blue it is." } },
    ]);
    expect((await send(s, { content: "pick" })).body.status).toBe("awaiting_tool_results");
    const part = (toolCallId: string, extra: Record<string, unknown>) => ({
      type: "dynamic-tool",
      toolName: "ask_user",
      toolCallId,
      state: "output-available",
      input: { q: "color?" },
      output: "blue",
      ...extra,
    });
    const parts = [part("toolu_pe_nobody", { providerExecuted: true }), part("toolu_pe_real", {})];
    const res = await chat(s, [{ id: "a-pe", role: "assistant", parts }]);
    expect(res.status).toBe(200);
    await res.text();
    expect(await lastTurn(s)).toBe("completed");
  });
});

/** A /chat answer's status, error code and message (a stream has neither: the body was taken). */
async function refusal(res: Response): Promise<{ status: number; code?: string; message?: string }> {
  const text = await res.text();
  if (!res.headers.get("content-type")?.includes("application/json")) return { status: res.status };
  const { error } = JSON.parse(text) as { error?: { code: string; message: string } };
  return { status: res.status, code: error?.code, message: error?.message };
}

/** The stored history as `role: text` lines. */
const texts = async (s: Setup) =>
  (await history(s)).map((m) => `${m.role}: ${m.parts.map((p) => (p.type === "text" ? p.text : p.type)).join("")}`);

describe("a /chat user message the server cannot take as sent", () => {
  it("refuses a file part beside the text with 400 unsupported_part naming it, and writes nothing", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "A cat." } }]);
    const file = { type: "file", mediaType: "image/png", filename: "cat.png", url: "data:image/png;base64,iVBORw0K" };
    const parts = [file, { type: "text", text: "What is in this picture?" }];
    const res = await chat(s, [{ id: "u-file", role: "user", parts }], { trigger: "submit-message" });
    expect(await refusal(res)).toEqual({
      status: 400,
      code: "unsupported_part",
      message: expect.stringContaining("file parts are not supported"),
    });
    expect(await history(s)).toEqual([]);
    expect(await mockRequests(s.model)).toEqual([]);
  });

  it("refuses an edit (useChat sendMessage with messageId) with 409 edit_not_supported, keeping the history", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "In France." } }, { reply: { text: "In Italy." } }]);
    const asked = (text: string) => [{ id: "u1", role: "user", parts: [{ type: "text", text }] }];
    const first = await chat(s, asked("Where is Paris?"), { trigger: "submit-message" });
    expect(first.status).toBe(200);
    await first.text();
    // useChat's sendMessage({ text: "Where is Rome?", messageId: "u1" }): its history cut back to u1, replaced.
    const edit = await chat(s, asked("Where is Rome?"), { trigger: "submit-message", messageId: "u1" });
    expect(await refusal(edit)).toEqual({ status: 409, code: "edit_not_supported", message: expect.any(String) });
    expect(await texts(s)).toEqual(["user: Where is Paris?", "assistant: In France."]);
    expect(await mockRequests(s.model)).toHaveLength(1);
  });

  it("takes a client output posted with the assistant message's id as messageId, as useChat's addToolOutput posts it", async () => {
    const s = await setup({ tools: [clientTool("ask_user")] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_mid", name: "ask_user", input: { q: "color?" } }] } },
      { reply: { text: "Blue it is." } },
    ]);
    expect((await send(s, { content: "pick" })).body.status).toBe("awaiting_tool_results");
    const part = { type: "dynamic-tool", toolName: "ask_user", toolCallId: "toolu_mid", state: "output-available" };
    const answer = { id: "a-mid", role: "assistant", parts: [{ ...part, input: { q: "color?" }, output: "blue" }] };
    const res = await chat(s, [answer], { trigger: "submit-message", messageId: "a-mid" });
    expect(res.status).toBe(200);
    await res.text();
    expect(await lastTurn(s)).toBe("completed");
  });
});
