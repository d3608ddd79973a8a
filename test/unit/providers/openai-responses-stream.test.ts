// The Responses adapter's stream parsing (src/providers/openai-responses.ts): a fixture replayed, cut and incomplete
// responses, a refusal part ending as a refusal, items sent only as output_item.done, events out of order refused,
// and error events classified.
import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../../../src/model/stream";
import { openaiResponses } from "../../../src/providers/openai-responses";
import { fixture, jsonResponse, run, scriptedFetch, squash, sseResponse, typedEvents } from "./helpers";

const created = { type: "response.created", response: { id: "resp_1", model: "gpt-test", status: "in_progress" } };
const fcItem = { type: "function_call", id: "fc_1", call_id: "call_1", name: "lookup", arguments: "" };

describe("openai-responses adapter: stream parsing", () => {
  it("replays the constructed compaction fixture: compaction part, text, call, usage", async () => {
    const fetch = scriptedFetch([
      () => sseResponse(fixture("openai-responses-stream-compaction.sse"), { chunkSize: 7 }),
    ]);
    const { events, failure } = await run(openaiResponses, fetch);
    expect(failure).toBeUndefined();
    expect(fetch.calls[0]?.url).toBe("https://provider.test/responses");
    expect(fetch.calls[0]?.init.headers).toMatchObject({ authorization: "Bearer k" });
    expect(squash(events)).toEqual<StreamEvent[]>([
      { type: "message_start", id: "resp_0a1b2c3d4e5f", model: "gpt-5.1-2025-11-13" },
      {
        type: "block_stop",
        index: 0,
        part: {
          type: "compaction",
          provider: "openai",
          content: "",
          encrypted: "gAAAAABpZ-constructed-opaque-state==",
        },
      },
      { type: "block_start", index: 1, kind: "text" },
      { type: "text_delta", index: 1, text: "Checking the weather." },
      { type: "block_stop", index: 1, part: { type: "text", text: "Checking the weather." } },
      { type: "block_start", index: 2, kind: "tool_use", id: "call_Wx12Yz", name: "get_weather" },
      { type: "tool_input_delta", index: 2, partial_json: '{"city":"Paris"}' },
      {
        type: "block_stop",
        index: 2,
        part: { type: "tool_use", id: "call_Wx12Yz", name: "get_weather", input: { city: "Paris" } },
      },
      { type: "usage", usage: { input_tokens: 284, output_tokens: 25, cache_read_input_tokens: 128 } },
      { type: "message_stop", stop_reason: "tool_use" },
    ]);
  });

  it("a stream cut before response.completed keeps finished blocks and fails as provider_stream_cut", async () => {
    const bytes = typedEvents([
      created,
      { type: "response.output_item.added", output_index: 0, item: { type: "message", id: "m" } },
      { type: "response.output_text.delta", output_index: 0, delta: "Hello" },
      { type: "response.output_item.done", output_index: 0, item: { type: "message", id: "m" } },
      { type: "response.output_item.added", output_index: 1, item: fcItem },
      { type: "response.function_call_arguments.delta", output_index: 1, delta: '{"q":' },
    ]);
    const { events, failure } = await run(openaiResponses, scriptedFetch([() => sseResponse(bytes)]));
    expect(failure?.error.code).toBe("provider_stream_cut");
    const parts = events.flatMap((e) => (e.type === "block_stop" ? [e.part] : []));
    expect(parts).toEqual([{ type: "text", text: "Hello" }]);
  });

  it("response.incomplete at max_output_tokens: the open call never becomes a part", async () => {
    const bytes = typedEvents([
      created,
      { type: "response.output_item.added", output_index: 0, item: fcItem },
      { type: "response.function_call_arguments.delta", output_index: 0, delta: '{"q":"ab' },
      {
        type: "response.incomplete",
        response: {
          id: "resp_1",
          incomplete_details: { reason: "max_output_tokens" },
          usage: { input_tokens: 9, output_tokens: 4 },
        },
      },
    ]);
    const { events, failure } = await run(openaiResponses, scriptedFetch([() => sseResponse(bytes)]));
    expect(failure).toBeUndefined();
    expect(events.filter((e) => e.type === "block_stop")).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ type: "block_incomplete", id: "call_1", raw: '{"q":"ab' }));
    expect(events[events.length - 1]).toEqual({ type: "message_stop", stop_reason: "max_tokens" });
  });

  it("response.incomplete for content_filter: the open call never becomes a part", async () => {
    const bytes = typedEvents([
      created,
      { type: "response.output_item.added", output_index: 0, item: fcItem },
      { type: "response.function_call_arguments.delta", output_index: 0, delta: '{"q":' },
      {
        type: "response.incomplete",
        response: { id: "resp_1", incomplete_details: { reason: "content_filter" } },
      },
    ]);
    const { events } = await run(openaiResponses, scriptedFetch([() => sseResponse(bytes)]));
    expect(events.filter((e) => e.type === "block_stop" || e.type === "block_invalid")).toEqual([]);
    expect(events).toContainEqual({
      type: "block_incomplete",
      index: 0,
      id: "call_1",
      name: "lookup",
      raw: '{"q":',
      reason: "the output was stopped by a refusal or content filter",
    });
    expect(events.at(-1)).toEqual({ type: "message_stop", stop_reason: "refusal" });
  });

  describe("a function_call item done with status incomplete is stripped", () => {
    const cutCall = (args: string) =>
      typedEvents([
        created,
        { type: "response.output_item.added", output_index: 0, item: fcItem },
        ...(args ? [{ type: "response.function_call_arguments.delta", output_index: 0, delta: args }] : []),
        {
          type: "response.output_item.done",
          output_index: 0,
          item: { ...fcItem, arguments: args, status: "incomplete" },
        },
        {
          type: "response.incomplete",
          response: { id: "resp_1", incomplete_details: { reason: "max_output_tokens" } },
        },
      ]);
    const ends = (events: StreamEvent[]) =>
      events.filter((e) => e.type === "block_stop" || e.type === "block_invalid" || e.type === "block_incomplete");

    it("with partial arguments: block_incomplete, not block_invalid", async () => {
      const { events } = await run(openaiResponses, scriptedFetch([() => sseResponse(cutCall('{"q":"ab'))]));
      expect(ends(events)).toEqual([
        expect.objectContaining({ type: "block_incomplete", id: "call_1", raw: '{"q":"ab' }),
      ]);
    });

    it("with empty arguments: block_incomplete, never a part with {} input", async () => {
      const { events } = await run(openaiResponses, scriptedFetch([() => sseResponse(cutCall(""))]));
      expect(ends(events)).toEqual([expect.objectContaining({ type: "block_incomplete", id: "call_1", raw: "" })]);
    });
  });

  it("a message item sent only as output_item.done keeps its text", async () => {
    const message = {
      type: "message",
      id: "msg_whole",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: "Whole answer.", annotations: [] }],
    };
    const bytes = typedEvents([
      created,
      { type: "response.output_item.done", output_index: 0, item: message },
      { type: "response.completed", response: { id: "resp_1" } },
    ]);
    const { events, failure } = await run(openaiResponses, scriptedFetch([() => sseResponse(bytes)]));
    expect(failure).toBeUndefined();
    expect(events.filter((e) => e.type !== "message_start" && e.type !== "message_stop")).toEqual<StreamEvent[]>([
      { type: "block_start", index: 0, kind: "text" },
      { type: "text_delta", index: 0, text: "Whole answer." },
      { type: "block_stop", index: 0, part: { type: "text", text: "Whole answer." } },
    ]);
  });

  describe("a refusal content part in a completed response", () => {
    const text = "I'm sorry, I can't help with that.";
    const refusal = {
      type: "message",
      id: "msg_refusal",
      status: "completed",
      role: "assistant",
      content: [{ type: "refusal", refusal: text }],
    };
    const opened = { ...refusal, status: "in_progress", content: [] };

    it("streamed as response.refusal.delta is a text block the user sees, and the stop is a refusal", async () => {
      const at = { item_id: "msg_refusal", output_index: 0, content_index: 0 };
      const bytes = typedEvents([
        created,
        { type: "response.output_item.added", output_index: 0, item: opened },
        { type: "response.content_part.added", ...at, part: { type: "refusal", refusal: "" } },
        { type: "response.refusal.delta", ...at, delta: "I'm sorry, " },
        { type: "response.refusal.delta", ...at, delta: "I can't help with that." },
        { type: "response.refusal.done", ...at, refusal: text },
        { type: "response.content_part.done", ...at, part: { type: "refusal", refusal: text } },
        { type: "response.output_item.done", output_index: 0, item: refusal },
        { type: "response.completed", response: { id: "resp_1" } },
      ]);
      const { events, failure } = await run(openaiResponses, scriptedFetch([() => sseResponse(bytes)]));
      expect(failure).toBeUndefined();
      expect(squash(events).slice(1)).toEqual<StreamEvent[]>([
        { type: "block_start", index: 0, kind: "text" },
        { type: "text_delta", index: 0, text },
        { type: "block_stop", index: 0, part: { type: "text", text } },
        { type: "message_stop", stop_reason: "refusal" },
      ]);
    });

    it("sent only in its output_item.done (some proxies) is a refusal too", async () => {
      const bytes = typedEvents([
        created,
        { type: "response.output_item.done", output_index: 0, item: refusal },
        { type: "response.completed", response: { id: "resp_1" } },
      ]);
      const { events, failure } = await run(openaiResponses, scriptedFetch([() => sseResponse(bytes)]));
      expect(failure).toBeUndefined();
      expect(events).toContainEqual({ type: "block_stop", index: 0, part: { type: "text", text } });
      expect(events.at(-1)).toEqual({ type: "message_stop", stop_reason: "refusal" });
    });
  });

  it("a function_call item sent only as output_item.done is the call, whole", async () => {
    const bytes = typedEvents([
      created,
      { type: "response.output_item.done", output_index: 0, item: { ...fcItem, arguments: '{"city":"Oslo"}' } },
      { type: "response.completed", response: { id: "resp_1" } },
    ]);
    const { events, failure } = await run(openaiResponses, scriptedFetch([() => sseResponse(bytes)]));
    expect(failure).toBeUndefined();
    const stop = events.find((e) => e.type === "block_stop");
    expect(stop).toMatchObject({ part: { type: "tool_use", id: fcItem.call_id, input: { city: "Oslo" } } });
    expect(events.at(-1)).toEqual({ type: "message_stop", stop_reason: "tool_use" });
  });

  it("invalid call arguments become block_invalid, not a part", async () => {
    const bytes = typedEvents([
      created,
      { type: "response.output_item.added", output_index: 0, item: fcItem },
      { type: "response.output_item.done", output_index: 0, item: { ...fcItem, arguments: "[1]" } },
      { type: "response.completed", response: { id: "resp_1", usage: { input_tokens: 3, output_tokens: 1 } } },
    ]);
    const { events } = await run(openaiResponses, scriptedFetch([() => sseResponse(bytes)]));
    expect(events).toContainEqual(expect.objectContaining({ type: "block_invalid", id: "call_1", raw: "[1]" }));
    expect(events[events.length - 1]).toEqual({ type: "message_stop", stop_reason: "end_turn" });
  });

  describe("events out of order are refused before a call is repeated", () => {
    const call = (id: string) => ({ ...fcItem, id: `fc_${id}`, call_id: id, arguments: '{"q":1}' });
    const toolUses = (events: StreamEvent[]) =>
      events.flatMap((e) => (e.type === "block_stop" && e.part.type === "tool_use" ? [e.part.id] : []));
    const completed = { type: "response.completed", response: { id: "resp_1" } };

    it("a second response.created (a proxy splicing a retried attempt on) is provider_bad_response", async () => {
      const bytes = typedEvents([
        created,
        { type: "response.output_item.added", output_index: 0, item: { ...call("call_a"), arguments: "" } },
        { type: "response.function_call_arguments.delta", output_index: 0, delta: '{"q":1}' },
        { type: "response.output_item.done", output_index: 0, item: call("call_a") },
        created,
        { type: "response.output_item.added", output_index: 0, item: { ...call("call_b"), arguments: "" } },
        { type: "response.function_call_arguments.delta", output_index: 0, delta: '{"q":1}' },
        { type: "response.output_item.done", output_index: 0, item: call("call_b") },
        completed,
      ]);
      const { events, failure } = await run(openaiResponses, scriptedFetch([() => sseResponse(bytes)]));
      expect(failure?.error).toMatchObject({ code: "provider_bad_response", retryable: true });
      expect(toolUses(events)).toEqual(["call_a"]);
      expect(events.filter((e) => e.type === "message_start")).toHaveLength(1);
    });

    it("a second output_item.done for one item is provider_bad_response, the call closed once", async () => {
      const bytes = typedEvents([
        created,
        { type: "response.output_item.added", output_index: 0, item: { ...call("call_a"), arguments: "" } },
        { type: "response.output_item.done", output_index: 0, item: call("call_a") },
        { type: "response.output_item.done", output_index: 0, item: call("call_a") },
        completed,
      ]);
      const { events, failure } = await run(openaiResponses, scriptedFetch([() => sseResponse(bytes)]));
      expect(failure?.error.code).toBe("provider_bad_response");
      expect(toolUses(events)).toEqual(["call_a"]);
    });

    it("an output_item.added at an output_index in use is provider_bad_response, the open call's block not replaced", async () => {
      const bytes = typedEvents([
        created,
        { type: "response.output_item.added", output_index: 0, item: { ...call("call_a"), arguments: "" } },
        { type: "response.output_item.added", output_index: 0, item: { ...call("call_b"), arguments: "" } },
        { type: "response.output_item.done", output_index: 0, item: call("call_b") },
        completed,
      ]);
      const { events, failure } = await run(openaiResponses, scriptedFetch([() => sseResponse(bytes)]));
      expect(failure?.error.code).toBe("provider_bad_response");
      expect(events.filter((e) => e.type === "block_start")).toEqual([
        { type: "block_start", index: 0, kind: "tool_use", id: "call_a", name: "lookup" },
      ]);
    });

    it("an item event before response.created is provider_bad_response, with no block started", async () => {
      const bytes = typedEvents([
        { type: "response.output_item.added", output_index: 0, item: { ...call("call_a"), arguments: "" } },
        created,
        { type: "response.output_item.done", output_index: 0, item: call("call_a") },
        completed,
      ]);
      const { events, failure } = await run(openaiResponses, scriptedFetch([() => sseResponse(bytes)]));
      expect(failure?.error.code).toBe("provider_bad_response");
      expect(events).toEqual([]);
    });
  });

  it("a context_length_exceeded error event is a context_overflow", async () => {
    const bytes = typedEvents([
      created,
      {
        type: "error",
        code: "context_length_exceeded",
        message: "Your input exceeds the context window of this model.",
        param: "input",
      },
    ]);
    const { failure } = await run(openaiResponses, scriptedFetch([() => sseResponse(bytes)]));
    expect(failure?.error).toMatchObject({ code: "context_overflow", retryable: true });
  });

  it("a context_length_exceeded error event in the live API's nested shape is a context_overflow", async () => {
    const bytes = typedEvents([
      created,
      {
        type: "error",
        error: {
          type: "invalid_request_error",
          code: "context_length_exceeded",
          message: "Your input exceeds the context window of this model.",
          param: "input",
        },
        sequence_number: 2,
      },
    ]);
    const { failure } = await run(openaiResponses, scriptedFetch([() => sseResponse(bytes)]));
    expect(failure?.error).toMatchObject({
      code: "context_overflow",
      message: "provider stream error context_length_exceeded: Your input exceeds the context window of this model.",
    });
  });

  it("a too_many_requests error event in the live API's nested shape is provider_rate_limited", async () => {
    const bytes = typedEvents([
      created,
      {
        type: "error",
        error: { type: "too_many_requests", code: "too_many_requests", message: "Too Many Requests", param: null },
        sequence_number: 2,
      },
    ]);
    const { failure } = await run(openaiResponses, scriptedFetch([() => sseResponse(bytes)]));
    expect(failure?.error).toMatchObject({ code: "provider_rate_limited", retryable: true });
    expect(failure?.error.message).toContain("Too Many Requests");
  });

  it("an error event without a code that says the request is over the window is a context_overflow", async () => {
    const error = {
      type: "BadRequestError",
      code: null,
      message: "This model's maximum context length is 4096 tokens.",
    };
    const bytes = typedEvents([created, { type: "error", error, sequence_number: 2 }]);
    const { failure } = await run(openaiResponses, scriptedFetch([() => sseResponse(bytes)]));
    expect(failure?.error.code).toBe("context_overflow");
  });

  it("response.failed is a retryable stream error carrying the provider's message", async () => {
    const bytes = typedEvents([
      created,
      {
        type: "response.failed",
        response: { id: "resp_1", status: "failed", error: { code: "server_error", message: "boom" } },
      },
    ]);
    const { failure } = await run(openaiResponses, scriptedFetch([() => sseResponse(bytes)]));
    expect(failure?.error).toMatchObject({ code: "provider_stream_error", retryable: true });
    expect(failure?.error.message).toContain("boom");
  });

  it("an HTTP 400 context_length_exceeded is a context_overflow, not retried", async () => {
    const fetch = scriptedFetch([
      () =>
        jsonResponse(400, {
          error: {
            message: "This model's maximum context length is 8000 tokens. However, your input resulted in 9000 tokens.",
            type: "invalid_request_error",
            param: "input",
            code: "context_length_exceeded",
          },
        }),
    ]);
    const { failure } = await run(openaiResponses, fetch);
    expect(failure?.error.code).toBe("context_overflow");
    expect(fetch.calls).toHaveLength(1);
  });
});
