// The web client's /chat request: only what the server reads, so a long conversation never outgrows the body cap
// (README's useChat snippet for your own app posts the same).
import { readFile } from "node:fs/promises";
import { DefaultChatTransport, type UIMessage } from "ai";
import { expect, it } from "vitest";
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
  // The first ask sends; useChat's ask after the server's answer (the turn still waits for the app) does not.
  expect([sender.shouldSend({ messages }), sender.shouldSend({ messages })]).toEqual([true, false]);
  sender.forget();
  expect(sender.shouldSend({ messages })).toBe(true);
});
