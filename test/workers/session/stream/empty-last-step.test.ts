// The UI message stream as useChat reads it, against the real worker and the mock model: a turn that runs no more
// steps (a client's answer on the turn's last step, a cancel while approved calls or a step's server calls run)
// ends the message with an empty step, so the AI SDK's `lastAssistantMessageIsCompleteWithToolCalls` does not have
// useChat send answered calls again (which the session refuses, 409 late_result).
import { env } from "cloudflare:workers";
import {
  lastAssistantMessageIsCompleteWithToolCalls,
  readUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
} from "ai";
import { describe, expect, it } from "vitest";
import { api, clientTool, readRest, type Setup, script, setup, uiChunks } from "../../helpers";

/** POST /chat with `messages` (useChat sends them all; the server reads the newest). */
function chat(s: Setup, messages: UIMessage[]): Promise<Response> {
  return api(`/v1/sessions/${s.session}/chat`, { method: "POST", key: s.key, json: { id: s.session, messages } });
}

/** The assistant message as useChat holds it after reading `res`, continuing `message` when given. */
async function assembled(res: Response, message?: UIMessage): Promise<UIMessage> {
  const chunks = await uiChunks<UIMessageChunk>(res);
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, ...(message ? { message } : {}) })) last = snapshot;
  if (!last) throw new Error("no message assembled");
  return last;
}

/** What useChat's addToolOutput does to the part of the client call `id`. */
function answer(message: UIMessage, id: string, output: unknown): UIMessage {
  return {
    ...message,
    parts: message.parts.map((p) =>
      p.type === "dynamic-tool" && p.toolCallId === id ? { ...p, state: "output-available", output } : p,
    ),
  } as UIMessage;
}

/** A session whose model calls slow_check (an http tool answering after 3 s) beside the client tool ask_user. */
async function slowBesideAsk(tag: string, requiresApproval: boolean): Promise<Setup> {
  const slow = {
    name: "slow_check",
    description: "a slow server-side check",
    input_schema: { type: "object", properties: { amount: { type: "number" } } },
    execution: { type: "http", url: `${env.MOCK_URL}/_tool?delay_ms=3000` },
    ...(requiresApproval ? { requires_approval: true } : {}),
  };
  const s = await setup({ tools: [slow, clientTool("ask_user")] });
  const calls = [
    { id: `toolu_${tag}_slow`, name: "slow_check", input: { amount: 9 } },
    { id: `toolu_${tag}_ask`, name: "ask_user", input: { q: "which card?" } },
  ];
  await script(s.model, [{ reply: { tool_calls: calls } }]);
  return s;
}

const USER: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "go on" }] };

/** What useChat's addToolApprovalResponse({approved: true}) does to the parts awaiting approval. */
function approve(message: UIMessage): UIMessage {
  return {
    ...message,
    parts: message.parts.map((p) =>
      p.type === "dynamic-tool" && p.state === "approval-requested"
        ? { ...p, state: "approval-responded", approval: { ...p.approval, approved: true } }
        : p,
    ),
  } as UIMessage;
}

describe("a client's answer on the turn's last step, read by useChat", () => {
  it("ends the message with an empty step: lastAssistantMessageIsCompleteWithToolCalls is false, so useChat posts once", async () => {
    const s = await setup({ tools: [clientTool("ask_user")], max_steps: 1 });
    await script(s.model, [
      {
        reply: {
          text: "Let me ask.",
          tool_calls: [{ id: "toolu_last_ask", name: "ask_user", input: { q: "color?" } }],
        },
      },
    ]);
    const paused = await assembled(await chat(s, [USER]));
    const answered = answer(paused, "toolu_last_ask", "blue");
    // What makes useChat post the answer (sendAutomaticallyWhen).
    expect(lastAssistantMessageIsCompleteWithToolCalls({ messages: [USER, answered] })).toBe(true);
    const res = await chat(s, [USER, answered]);
    expect(res.status).toBe(200);
    const after = await assembled(res, answered);
    expect(lastAssistantMessageIsCompleteWithToolCalls({ messages: [USER, after] })).toBe(false);
  });
});

describe("a turn cancelled while its resumed segment runs an approved call, read by useChat", () => {
  it("ends the message with an empty step: the client's answered call is not sent again", async () => {
    const s = await slowBesideAsk("cut", true);
    const paused = await assembled(await chat(s, [USER]));
    const answered = answer(approve(paused), "toolu_cut_ask", "visa");
    // The resumed segment runs the approved slow_check first (3 s), before any step of its own.
    const res = await chat(s, [USER, answered]);
    expect((await api(`/v1/sessions/${s.session}/cancel`, { method: "POST", key: s.key })).status).toBe(200);
    const after = await assembled(res, answered);
    expect(lastAssistantMessageIsCompleteWithToolCalls({ messages: [USER, after] })).toBe(false);
  });
});

describe("a turn cancelled while its step's server call runs beside a client call, read by useChat", () => {
  it("ends the message with an empty step: the client call the cancel answered is not sent again", async () => {
    const s = await slowBesideAsk("mid", false);
    const reader = (await chat(s, [USER])).body?.getReader();
    if (!reader) throw new Error("no stream");
    // Read until the client has the call to run (the tool phase opened it; slow_check runs for 3 s), then cancel.
    const decoder = new TextDecoder();
    let head = "";
    while (!head.includes('"type":"tool-input-available","toolCallId":"toolu_mid_ask"')) {
      const r = await reader.read();
      if (r.done) throw new Error("the stream ended before the client call was opened");
      head += decoder.decode(r.value, { stream: true });
    }
    expect((await api(`/v1/sessions/${s.session}/cancel`, { method: "POST", key: s.key })).status).toBe(200);
    const after = await assembled(new Response(head + (await readRest(reader))));
    expect(lastAssistantMessageIsCompleteWithToolCalls({ messages: [USER, after] })).toBe(false);
  });
});
