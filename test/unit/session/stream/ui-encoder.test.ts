// UiEncoder (src/session/stream/ui-encoder.ts): turn events mapped to the AI SDK's UI message chunks (parts, tool
// calls and who runs them, errors, abandoned steps), checked through the SDK's own client.
import { Chat } from "@ai-sdk/react";
import {
  type DynamicToolUIPart,
  lastAssistantMessageIsCompleteWithToolCalls,
  type UIMessage,
  type UIMessageChunk,
} from "ai";
import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../../../../src/model/stream";
import type { TurnEvent } from "../../../../src/session/stream/turn-events";
import { UiEncoder } from "../../../../src/session/stream/ui-encoder";
import { assemble, encodeAll, toSse } from "./assemble";
import { FULL_TURN, ODDITIES } from "./fixtures";

const p = (event: StreamEvent): TurnEvent => ({ type: "provider", event });
const START: TurnEvent[] = [
  { type: "turn_start", turn_id: "t", message_id: "m" },
  { type: "step_start", step: 1 },
];

/** An encoder past `events`; `serverRuns` as the session's (default: every tool is a client tool). */
function encoderAfter(events: TurnEvent[], serverRuns?: (name: string) => boolean): UiEncoder {
  const encoder = new UiEncoder(serverRuns);
  for (const ev of events) encoder.push(ev);
  return encoder;
}

describe("UiEncoder", () => {
  it("starts the message with its id and a step with start-step", () => {
    const encoder = new UiEncoder();
    expect(encoder.push({ type: "turn_start", turn_id: "t", message_id: "m" })).toEqual([
      { type: "start", messageId: "m" },
    ]);
    expect(encoder.push({ type: "step_start", step: 1 })).toEqual([{ type: "start-step" }]);
  });

  it("maps text and thinking blocks to parts with turn-unique ids and drops the signature", () => {
    const chunks = encodeAll([
      ...START,
      p({ type: "block_start", index: 0, kind: "thinking" }),
      p({ type: "thinking_delta", index: 0, thinking: "hm" }),
      p({ type: "block_stop", index: 0, part: { type: "thinking", thinking: "hm", signature: "SIG" } }),
      p({ type: "block_start", index: 1, kind: "text" }),
      p({ type: "text_delta", index: 1, text: "" }),
      p({ type: "text_delta", index: 1, text: "hi" }),
      p({ type: "block_stop", index: 1, part: { type: "text", text: "hi" } }),
    ]);
    expect(chunks.slice(2)).toEqual([
      { type: "reasoning-start", id: "m-r1-0" },
      { type: "reasoning-delta", id: "m-r1-0", delta: "hm" },
      { type: "reasoning-end", id: "m-r1-0" },
      { type: "text-start", id: "m-t1-1" },
      { type: "text-delta", id: "m-t1-1", delta: "hi" },
      { type: "text-end", id: "m-t1-1" },
    ]);
    expect(JSON.stringify(chunks)).not.toContain("SIG");
  });

  it("never reuses a part id, even if a step number and index repeat", () => {
    const block = [
      p({ type: "block_start", index: 0, kind: "text" }),
      p({ type: "block_stop", index: 0, part: { type: "text", text: "" } }),
    ];
    const chunks = encodeAll([...START, ...block, { type: "step_start", step: 1 }, ...block]);
    const ids = chunks.flatMap((c) => (c.type === "text-start" ? [c.id] : []));
    expect(ids).toEqual(["m-t1-0", "m-t1-0-2"]);
  });

  it("streams a client tool's input, and sends the parsed input only once the tool phase opens the call", () => {
    const encoder = encoderAfter(START);
    expect(encoder.push(p({ type: "block_start", index: 0, kind: "tool_use", id: "c1", name: "f" }))).toEqual([
      { type: "tool-input-start", toolCallId: "c1", toolName: "f", dynamic: true },
    ]);
    expect(encoder.push(p({ type: "tool_input_delta", index: 0, partial_json: "" }))).toEqual([]);
    expect(encoder.push(p({ type: "tool_input_delta", index: 0, partial_json: '{"a":1}' }))).toEqual([
      { type: "tool-input-delta", toolCallId: "c1", inputTextDelta: '{"a":1}' },
    ]);
    const part = { type: "tool_use" as const, id: "c1", name: "f", input: { a: 1 } };
    expect(encoder.push(p({ type: "block_stop", index: 0, part }))).toEqual([]);
    expect(encoder.push({ type: "tool_open", tool_use_id: "c1" })).toEqual([
      { type: "tool-input-available", toolCallId: "c1", toolName: "f", input: { a: 1 }, dynamic: true },
    ]);
  });

  it("decides who runs a call by the finished call's name, not its block's start", () => {
    const encoder = encoderAfter(START, (name) => name !== "pick_color");
    encoder.push(p({ type: "block_start", index: 0, kind: "tool_use", id: "c1", name: "" }));
    const part = { type: "tool_use" as const, id: "c1", name: "pick_color", input: { a: 1 } };
    expect(encoder.push(p({ type: "block_stop", index: 0, part }))).toEqual([]);
    expect(encoder.push({ type: "tool_open", tool_use_id: "c1" })).toEqual([
      { type: "tool-input-available", toolCallId: "c1", toolName: "pick_color", input: { a: 1 }, dynamic: true },
    ]);
  });

  it("sends a call the session runs with its parsed input at block_stop, marked providerExecuted", () => {
    const encoder = encoderAfter(START, () => true);
    encoder.push(p({ type: "block_start", index: 0, kind: "tool_use", id: "c1", name: "f" }));
    const part = { type: "tool_use" as const, id: "c1", name: "f", input: { a: 1 } };
    expect(encoder.push(p({ type: "block_stop", index: 0, part }))).toEqual([
      {
        type: "tool-input-available",
        toolCallId: "c1",
        toolName: "f",
        input: { a: 1 },
        dynamic: true,
        providerExecuted: true,
      },
    ]);
  });

  it("ends a client call the session answered itself as a tool-input-error marked providerExecuted", () => {
    const encoder = encoderAfter([
      ...START,
      p({ type: "block_start", index: 0, kind: "tool_use", id: "c1", name: "f" }),
      p({ type: "block_stop", index: 0, part: { type: "tool_use", id: "c1", name: "f", input: { a: 1 } } }),
    ]);
    expect(
      encoder.push({ type: "tool_output", tool_use_id: "c1", content: "Invalid arguments", is_error: true }),
    ).toEqual([
      {
        type: "tool-input-error",
        toolCallId: "c1",
        toolName: "f",
        input: { a: 1 },
        errorText: "Invalid arguments",
        dynamic: true,
        providerExecuted: true,
      },
    ]);
  });

  it("ends a client call the step never opened in error before finish-step: it was not handed to the client", () => {
    const encoder = encoderAfter([
      ...START,
      p({ type: "block_stop", index: 0, part: { type: "tool_use", id: "c1", name: "f", input: {} } }),
    ]);
    expect(encoder.push({ type: "step_finish", step: 1 })).toEqual([
      {
        type: "tool-input-error",
        toolCallId: "c1",
        toolName: "f",
        input: {},
        errorText: "The call to tool f was not handed to the client (the step finished first).",
        dynamic: true,
        providerExecuted: true,
      },
      { type: "finish-step" },
    ]);
  });

  it("reports invalid tool input as tool-input-error, starting the call first if needed", () => {
    const chunks = encodeAll(ODDITIES);
    const errors = chunks.filter((c) => c.type === "tool-input-error");
    expect(errors.map((c) => c.toolCallId)).toEqual(["toolu_bad", "toolu_nostart"]);
    for (const c of errors) {
      expect(c.errorText).toBe(
        "The input JSON for tool search was invalid (unexpected end); the call is answered with an error.",
      );
    }
    const nostart = chunks.findIndex((c) => c.type === "tool-input-start" && c.toolCallId === "toolu_nostart");
    expect(nostart).toBeGreaterThan(-1);
  });

  it("sends nothing for message_start, usage and message_stop, and a transient data chunk for retry", () => {
    const encoder = encoderAfter(START);
    expect(encoder.push(p({ type: "message_start", id: "x", model: "y" }))).toEqual([]);
    expect(encoder.push(p({ type: "usage", usage: { output_tokens: 3 } }))).toEqual([]);
    expect(encoder.push(p({ type: "message_stop", stop_reason: "end_turn" }))).toEqual([]);
    expect(encoder.push(p({ type: "retry", attempt: 2, delay_ms: 900, status: 429, reason: "rate" }))).toEqual([
      {
        type: "data-provider-retry",
        data: { attempt: 2, delay_ms: 900, status: 429, reason: "rate" },
        transient: true,
      },
    ]);
  });

  it("abandons a step: ends open parts, errors open tool inputs, in start order", () => {
    const encoder = encoderAfter([
      ...START,
      p({ type: "block_start", index: 0, kind: "thinking" }),
      p({ type: "block_start", index: 1, kind: "text" }),
      p({ type: "block_start", index: 2, kind: "tool_use", id: "c1", name: "f" }),
      p({ type: "tool_input_delta", index: 2, partial_json: '{"a' }),
    ]);
    const out = encoder.push({ type: "step_abandoned", reason: "provider_stream_cut" });
    expect(out).toEqual([
      { type: "reasoning-end", id: "m-r1-0" },
      { type: "text-end", id: "m-t1-1" },
      {
        type: "tool-input-error",
        toolCallId: "c1",
        toolName: "f",
        input: '{"a',
        errorText: "The input JSON for tool f was incomplete (provider_stream_cut), so the call was dropped.",
        dynamic: true,
        providerExecuted: true,
      },
    ]);
    expect(encoder.push({ type: "step_finish", step: 1 })).toEqual([{ type: "finish-step" }]);
    expect(encoder.push({ type: "step_finish", step: 1 })).toEqual([]);
  });

  it("closes anything still open before finish-step", () => {
    const encoder = encoderAfter([...START, p({ type: "text_delta", index: 0, text: "implicit" })]);
    expect(encoder.push({ type: "step_finish", step: 1 })).toEqual([
      { type: "text-end", id: "m-t1-0" },
      { type: "finish-step" },
    ]);
  });

  it("maps tool output to output-available (blocks joined) or output-error, and drops unknown calls", () => {
    const encoder = encoderAfter(
      [...START, p({ type: "block_stop", index: 0, part: { type: "tool_use", id: "c1", name: "f", input: {} } })],
      () => true,
    );
    const content = [
      { type: "text" as const, text: "a" },
      { type: "text" as const, text: "b" },
    ];
    expect(encoder.push({ type: "tool_output", tool_use_id: "c1", content, is_error: false })).toEqual([
      { type: "tool-output-available", toolCallId: "c1", output: "a\nb", dynamic: true },
    ]);
    expect(encoder.push({ type: "tool_output", tool_use_id: "c1", content: "boom", is_error: true })).toEqual([
      { type: "tool-output-error", toolCallId: "c1", errorText: "boom", dynamic: true },
    ]);
    expect(encoder.push({ type: "tool_output", tool_use_id: "nope", content: "x", is_error: false })).toEqual([]);
  });

  it("sends a JSON object or array output as a value and anything else as text", () => {
    const encoder = encoderAfter(
      [...START, p({ type: "block_stop", index: 0, part: { type: "tool_use", id: "c1", name: "f", input: {} } })],
      () => true,
    );
    expect(encoder.push({ type: "tool_output", tool_use_id: "c1", content: '{"temp":21}', is_error: false })).toEqual([
      { type: "tool-output-available", toolCallId: "c1", output: { temp: 21 }, dynamic: true },
    ]);
    expect(encoder.push({ type: "tool_output", tool_use_id: "c1", content: "{not json", is_error: false })).toEqual([
      { type: "tool-output-available", toolCallId: "c1", output: "{not json", dynamic: true },
    ]);
  });

  it("sends data-<name> chunks with optional id and transient", () => {
    const encoder = new UiEncoder();
    expect(encoder.push({ type: "data", name: "status", data: { s: 1 }, id: "s" })).toEqual([
      { type: "data-status", id: "s", data: { s: 1 } },
    ]);
    expect(encoder.push({ type: "data", name: "ping", data: undefined, transient: true })).toEqual([
      { type: "data-ping", data: null, transient: true },
    ]);
  });

  it("ends the turn: error text is code: message; cancelled adds abort before finish", () => {
    const encoder = encoderAfter(START);
    expect(encoder.push({ type: "turn_error", code: "provider_overloaded", message: "try later" })).toEqual([
      { type: "finish-step" },
      { type: "error", errorText: "provider_overloaded: try later" },
    ]);
    expect(encoder.push({ type: "turn_finish", status: "failed", finish_reason: "error" })).toEqual([
      { type: "finish", finishReason: "error" },
    ]);
    const cancelled = encoderAfter(START);
    expect(cancelled.push({ type: "turn_finish", status: "cancelled", finish_reason: "other" })).toEqual([
      { type: "finish-step" },
      { type: "abort", reason: "cancelled" },
      { type: "finish", finishReason: "other" },
    ]);
  });

  it("ends the message with one empty step when the turn runs no more steps", () => {
    const encoder = encoderAfter([...START, { type: "step_finish", step: 1 }]);
    expect(encoder.push({ type: "no_more_steps" })).toEqual([{ type: "start-step" }, { type: "finish-step" }]);
    expect(encoder.push({ type: "no_more_steps" })).toEqual([]);
  });

  it("adds no empty step inside an open step: the step's own end closes it", () => {
    expect(encoderAfter(START).push({ type: "no_more_steps" })).toEqual([]);
  });

  it("leaves out a call's result told again as of an earlier segment once the segment sent its outcome", () => {
    const encoder = encoderAfter([
      ...START,
      p({ type: "block_stop", index: 0, part: { type: "tool_use", id: "c_told", name: "f", input: {} } }),
    ]);
    expect(encoder.push({ type: "tool_output", tool_use_id: "c_told", content: "bad", is_error: true })).toHaveLength(
      1,
    );
    const again = {
      type: "tool_output",
      tool_use_id: "c_told",
      content: "bad",
      is_error: true,
      earlier: true,
    } as const;
    expect(encoder.push(again)).toEqual([]);
  });

  it("a new turn_start resets state, so earlier tool calls are unknown", () => {
    const encoder = encoderAfter([
      ...START,
      p({ type: "block_stop", index: 0, part: { type: "tool_use", id: "c1", name: "f", input: {} } }),
    ]);
    encoder.push({ type: "turn_start", turn_id: "t2", message_id: "m2" });
    expect(encoder.push({ type: "tool_output", tool_use_id: "c1", content: "x", is_error: false })).toEqual([]);
  });
});

/** FULL_TURN cut after its first step's tool outputs: a turn whose last step ran tools (max_steps, say). */
const TOOLS_LAST: TurnEvent[] = [
  ...FULL_TURN.slice(
    0,
    FULL_TURN.findIndex((ev) => ev.type === "step_start" && ev.step === 2),
  ),
  { type: "turn_finish", status: "completed", finish_reason: "tool-calls" },
];

async function assembled(serverRuns: (name: string) => boolean) {
  const encoder = new UiEncoder(serverRuns);
  const { message, errors } = await assemble(toSse(TOOLS_LAST.flatMap((ev) => encoder.push(ev))));
  expect(errors).toEqual([]);
  return message;
}

describe("UiEncoder: calls the session runs itself", () => {
  it("are marked providerExecuted, so useChat does not take them for client calls to send back", async () => {
    const message = await assembled((name) => name === "get_weather" || name === "get_time");
    const tools = (message?.parts ?? []).filter((p): p is DynamicToolUIPart => p.type === "dynamic-tool");
    expect(tools.map((t) => [t.toolCallId, t.state, t.providerExecuted])).toEqual([
      ["toolu_a", "output-available", true],
      ["toolu_b", "output-available", true],
    ]);
    expect(lastAssistantMessageIsCompleteWithToolCalls({ messages: message ? [message] : [] })).toBe(false);
  });

  it("leaves a client tool's calls unmarked: answered, they are the client's to send back", async () => {
    const message = await assembled(() => false);
    const tools = (message?.parts ?? []).filter((p): p is DynamicToolUIPart => p.type === "dynamic-tool");
    expect(tools.every((t) => t.providerExecuted === undefined)).toBe(true);
    expect(lastAssistantMessageIsCompleteWithToolCalls({ messages: message ? [message] : [] })).toBe(true);
  });
});

describe("UiEncoder: a client call cut off by the output limit", () => {
  it("ends marked providerExecuted: the step dropped it, so useChat has no answer to send for it", async () => {
    const events: TurnEvent[] = [
      ...START,
      p({ type: "block_start", index: 0, kind: "tool_use", id: "c_cut", name: "lookup" }),
      p({ type: "tool_input_delta", index: 0, partial_json: '{"q": "a long que' }),
      p({
        type: "block_incomplete",
        index: 0,
        id: "c_cut",
        name: "lookup",
        raw: '{"q": "a long que',
        reason: "max_tokens",
      }),
      p({ type: "message_stop", stop_reason: "max_tokens" }),
      { type: "step_finish", step: 1 },
      { type: "turn_finish", status: "completed", finish_reason: "length" },
    ];
    const encoder = new UiEncoder(() => false);
    const { message, errors } = await assemble(toSse(events.flatMap((ev) => encoder.push(ev))));
    expect(errors).toEqual([]);
    const tools = (message?.parts ?? []).filter((t): t is DynamicToolUIPart => t.type === "dynamic-tool");
    expect(tools.map((t) => [t.toolCallId, t.state, t.providerExecuted])).toEqual([["c_cut", "output-error", true]]);
    expect(lastAssistantMessageIsCompleteWithToolCalls({ messages: message ? [message] : [] })).toBe(false);
  });
});

describe("UiEncoder: a client call the session refuses, through the AI SDK's Chat (what useChat wraps)", () => {
  it("is never handed to onToolCall, and ends as an error the session gave", async () => {
    const call = (id: string) => [
      p({ type: "block_start", index: 0, kind: "tool_use", id, name: "lookup" }),
      p({ type: "block_stop", index: 0, part: { type: "tool_use", id, name: "lookup", input: { key: id } } }),
    ];
    // One call the tool phase refuses (its arguments were invalid), one it opens for the client.
    const events: TurnEvent[] = [
      ...START,
      ...call("c_bad"),
      ...call("c_ok"),
      { type: "tool_output", tool_use_id: "c_bad", content: "Invalid arguments for lookup", is_error: true },
      { type: "tool_open", tool_use_id: "c_ok" },
      { type: "step_finish", step: 1 },
      { type: "turn_finish", status: "awaiting_tool_results", finish_reason: "tool-calls" },
    ];
    const encoder = new UiEncoder(() => false);
    const chunks = events.flatMap((ev) => encoder.push(ev)) as UIMessageChunk[];
    const ran: string[] = [];
    const chat = new Chat<UIMessage>({
      transport: {
        sendMessages: async () =>
          new ReadableStream<UIMessageChunk>({
            start(controller) {
              for (const c of chunks) controller.enqueue(c);
              controller.close();
            },
          }),
        reconnectToStream: async () => null,
      },
      onToolCall: ({ toolCall }) => {
        ran.push(toolCall.toolCallId);
      },
    });
    await chat.sendMessage({ text: "look both up" });
    expect(ran).toEqual(["c_ok"]);
    const parts = (chat.messages.at(-1)?.parts ?? []).filter((x): x is DynamicToolUIPart => x.type === "dynamic-tool");
    expect(parts.map((x) => [x.toolCallId, x.state, x.providerExecuted])).toEqual([
      ["c_bad", "output-error", true],
      ["c_ok", "input-available", undefined],
    ]);
  });
});
