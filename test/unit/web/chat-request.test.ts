// The web client's /chat request: only what the server reads, so a long conversation never outgrows the body cap
// (README's useChat snippet for your own app posts the same); and when the page posts approval answers by itself
// (each of its own once, none given elsewhere alone).
import { readFile } from "node:fs/promises";
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { expect, it } from "vitest";
import type { TurnEvent } from "../../../src/session/stream/turn-events.ts";
import { UiEncoder } from "../../../src/session/stream/ui-encoder.ts";
import { approvalSender, approvalsAnswered, newestMessageOnly } from "../../../web/src/chat-request.ts";

it("posts only the newest message, with the chat id and the trigger, however long the conversation", async () => {
  const big = "x".repeat(256 * 1024);
  const messages: UIMessage[] = [];
  for (let i = 0; i < 12; i++) {
    messages.push({ id: `u${i}`, role: "user", parts: [{ type: "text", text: `question ${i}` }] });
    messages.push({
      id: `a${i}`,
      role: "assistant",
      parts: [
        {
          type: "dynamic-tool",
          toolName: "fetch_page",
          toolCallId: `c${i}`,
          state: "output-available",
          input: {},
          output: big,
        },
      ],
    });
  }
  const newest: UIMessage = { id: "u-new", role: "user", parts: [{ type: "text", text: "and now?" }] };
  messages.push(newest);
  let posted: { text: string; headers: Headers } | null = null;
  const transport = new DefaultChatTransport({
    api: "http://switchboard.test/v1/sessions/s-chat-request/chat",
    headers: { authorization: "Bearer sbt_test" },
    body: { max_steps: 4 },
    prepareSendMessagesRequest: newestMessageOnly,
    fetch: async (_input, init) => {
      posted = { text: String(init?.body), headers: new Headers(init?.headers) };
      return new Response("data: [DONE]\n\n", { headers: { "content-type": "text/event-stream" } });
    },
  });
  await transport.sendMessages({
    chatId: "s-chat-request",
    messages,
    trigger: "submit-message",
    messageId: undefined,
    abortSignal: undefined,
  });
  const sent = posted as { text: string; headers: Headers } | null;
  expect(JSON.parse(sent?.text ?? "null")).toEqual({
    max_steps: 4,
    id: "s-chat-request",
    messages: [newest],
    trigger: "submit-message",
  });
  expect(sent?.text.length).toBeLessThan(1024);
  expect(sent?.headers.get("authorization")).toBe("Bearer sbt_test");
});

it("posts a user message's file part, for the server to refuse rather than the file be lost without a word", async () => {
  const newest: UIMessage = {
    id: "u-file",
    role: "user",
    parts: [
      { type: "file", mediaType: "image/png", url: "data:image/png;base64,iVBORw0K" },
      { type: "text", text: "What is in this picture?" },
    ],
  };
  const options = {
    id: "s-file-part",
    messages: [newest],
    requestMetadata: undefined,
    body: {},
    credentials: undefined,
    headers: undefined,
    api: "http://switchboard.test/v1/sessions/s-file-part/chat",
    trigger: "submit-message" as const,
    messageId: undefined,
  };
  const posted = (await newestMessageOnly(options)).body as { messages: UIMessage[] };
  expect(posted.messages).toEqual([newest]);
});

/** The newest message of an approval answer after a tool-heavy step, as useChat holds it. */
function answerAfterToolHeavyStep(): UIMessage {
  const big = "x".repeat(250 * 1024);
  const fetches = Array.from({ length: 15 }, (_, i) => ({
    type: "dynamic-tool" as const,
    toolName: "fetch_page",
    toolCallId: `fetch_${i}`,
    state: "output-available" as const,
    input: { url: `https://example.test/${i}` },
    output: big,
    providerExecuted: true,
  }));
  return {
    id: "msg_t-heavy",
    role: "assistant",
    parts: [
      { type: "step-start" },
      { type: "text", text: "Fetched them all.", state: "done" },
      ...fetches,
      {
        type: "dynamic-tool",
        toolName: "ask_user",
        toolCallId: "ask_1",
        state: "output-available",
        input: { q: "which?" },
        output: "the third",
      },
      {
        type: "dynamic-tool",
        toolName: "pick_file",
        toolCallId: "pick_1",
        state: "output-error",
        input: {},
        errorText: "no file chosen",
      },
      {
        type: "dynamic-tool",
        toolName: "charge_card",
        toolCallId: "charge_1",
        state: "approval-responded",
        input: { amount: 5 },
        approval: { id: "ap_heavy", approved: true, signature: "sig" },
        providerExecuted: true,
      },
      { type: "dynamic-tool", toolName: "ask_user", toolCallId: "ask_2", state: "input-available", input: { q: "?" } },
    ],
  };
}

it("posts of an assistant message its client tool outputs and approval answers, not the outputs of server-run calls", async () => {
  const message = answerAfterToolHeavyStep();
  const options = {
    id: "s-heavy-answer",
    messages: [{ id: "u0", role: "user" as const, parts: [{ type: "text" as const, text: "fetch" }] }, message],
    requestMetadata: undefined,
    body: {},
    credentials: undefined,
    headers: undefined,
    api: "http://switchboard.test/v1/sessions/s-heavy-answer/chat",
    trigger: "submit-message" as const,
    messageId: undefined,
  };
  const posted = (await newestMessageOnly(options)).body as { messages: UIMessage[] };
  const kept = (id: string) => message.parts.find((p) => "toolCallId" in p && p.toolCallId === id);
  expect(posted.messages).toEqual([
    { id: "msg_t-heavy", role: "assistant", parts: [kept("ask_1"), kept("pick_1"), kept("charge_1")] },
  ]);
  expect(JSON.stringify(posted).length).toBeLessThan(2048);
});

it("README's useChat snippet posts what the web client posts", async () => {
  const readme = await readFile(new URL("../../../README.md", import.meta.url), "utf8");
  const snippet = readme.match(/prepareSendMessagesRequest: (\(\{[^)]*\}\) => \(\{\n[\s\S]*?\n\s*\}\)),\n/)?.[1];
  expect(snippet).toBeDefined();
  const prepare = new Function(`return ${snippet}`)() as typeof newestMessageOnly;
  const messages: UIMessage[] = [
    { id: "u0", role: "user", parts: [{ type: "text", text: "first" }] },
    { id: "a0", role: "assistant", parts: [{ type: "text", text: "answer" }] },
    { id: "u1", role: "user", parts: [{ type: "text", text: "second" }] },
  ];
  const options = {
    id: "s-readme-snippet",
    messages: [...messages, answerAfterToolHeavyStep()],
    requestMetadata: undefined,
    body: { max_steps: 2 },
    credentials: undefined,
    headers: undefined,
    api: "http://switchboard.test/v1/sessions/s-readme-snippet/chat",
    trigger: "submit-message" as const,
    messageId: undefined,
  };
  expect(await prepare(options)).toEqual(await newestMessageOnly(options));
  expect(await prepare({ ...options, messages })).toEqual(await newestMessageOnly({ ...options, messages }));
});

it("sends the approvals of a step whose client call still waits for an app, not before they are all answered", () => {
  const step = (state: "approval-requested" | "approval-responded"): UIMessage[] => [
    {
      id: "msg_t-approvals-answered",
      role: "assistant",
      parts: [
        {
          type: "dynamic-tool",
          toolName: "charge_card",
          toolCallId: "ca",
          input: { amount: 5 },
          ...(state === "approval-responded"
            ? { state, approval: { id: "ap_1", approved: true } }
            : { state, approval: { id: "ap_1" } }),
        },
        { type: "dynamic-tool", toolName: "pick_file", toolCallId: "cx", input: {}, state: "input-available" },
      ],
    },
  ];
  expect(approvalsAnswered({ messages: step("approval-responded") })).toBe(true);
  expect(approvalsAnswered({ messages: step("approval-requested") })).toBe(false);
});

it("sends a step's approval answers once, however often useChat asks again, and again after a failed request", () => {
  const messages: UIMessage[] = [
    {
      id: "msg_t-approval-sender",
      role: "assistant",
      parts: [
        {
          type: "dynamic-tool",
          toolName: "charge_card",
          toolCallId: "ca",
          input: { amount: 5 },
          state: "approval-responded",
          approval: { id: "ap_once", approved: true },
        },
        { type: "dynamic-tool", toolName: "pick_file", toolCallId: "cx", input: {}, state: "input-available" },
      ],
    },
  ];
  const sender = approvalSender();
  sender.gave("ap_once");
  // The first ask sends; useChat's ask after the server's answer (the turn still waits for the app) does not.
  expect([sender.shouldSend({ messages }), sender.shouldSend({ messages })]).toEqual([true, false]);
  sender.forget();
  expect(sender.shouldSend({ messages })).toBe(true);
});

/**
 * The assistant message useChat holds after a step paused on its client call `cx` (pick_file, an app runs it) beside
 * the server calls `ca` (charge_card, asked a person's approval) and `cs` (slow_check): `ca` was approved elsewhere
 * (the API, another tab) while `cs` ran, and the stream told the answer at the pause (turn-runner.ts `#announceDecided`).
 * With `alsoAsked`, the step also asked approval for `cb` (refund_card), still open.
 */
async function pausedAfterAnswerElsewhere(tag: string, alsoAsked: boolean): Promise<UIMessage> {
  const call = (id: string, name: string): TurnEvent => ({
    type: "provider",
    event: { type: "block_stop", index: 0, part: { type: "tool_use", id, name, input: {} } },
  });
  const ask = (approval: string, id: string, tool: string): TurnEvent => ({
    type: "approval_request",
    approval_id: approval,
    tool_use_id: id,
    tool,
    reason: "needs approval",
    signature: `sig_${approval}`,
  });
  const events: TurnEvent[] = [
    { type: "turn_start", turn_id: tag, message_id: `msg_${tag}` },
    { type: "step_start", step: 1 },
    call("ca", "charge_card"),
    ...(alsoAsked ? [call("cb", "refund_card")] : []),
    call("cs", "slow_check"),
    call("cx", "pick_file"),
    ask(`ap_${tag}_a`, "ca", "charge_card"),
    ...(alsoAsked ? [ask(`ap_${tag}_b`, "cb", "refund_card")] : []),
    { type: "tool_open", tool_use_id: "cx" },
    { type: "tool_output", tool_use_id: "cs", content: "ok", is_error: false },
    { type: "approval_answer", approval_id: `ap_${tag}_a`, approved: true, reason: "ok from the API" },
    { type: "step_finish", step: 1 },
    { type: "turn_finish", status: "awaiting_tool_results", finish_reason: "tool-calls" },
  ];
  const encoder = new UiEncoder((name) => name !== "pick_file");
  const chunks = events.flatMap((e) => encoder.push(e)) as UIMessageChunk[];
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const c of chunks) controller.enqueue(c);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const snap of readUIMessageStream({ stream })) last = snap;
  if (!last) throw new Error("no message assembled");
  return last;
}

it("does not post an approval answered elsewhere that the stream told while the step's siblings ran", async () => {
  const messages = [await pausedAfterAnswerElsewhere("t-elsewhere", false)];
  // Every approval of the step reads as answered: the AI SDK's test alone would post it (and get 409 late_result).
  expect(approvalsAnswered({ messages })).toBe(true);
  expect(approvalSender().shouldSend({ messages })).toBe(false);
});

it("posts the page's own answer once it gives one, beside an approval answered elsewhere", async () => {
  const paused = await pausedAfterAnswerElsewhere("t-own", true);
  const sender = approvalSender();
  expect(sender.shouldSend({ messages: [paused] })).toBe(false);
  // What the page's Approve does: addToolApprovalResponse on cb's part, and the sender told the answer is its own.
  sender.gave("ap_t-own_b");
  const answered: UIMessage = {
    ...paused,
    parts: paused.parts.map((p) =>
      p.type === "dynamic-tool" && p.state === "approval-requested"
        ? { ...p, state: "approval-responded", approval: { ...p.approval, approved: true } }
        : p,
    ),
  };
  expect(sender.shouldSend({ messages: [answered] })).toBe(true);
});
