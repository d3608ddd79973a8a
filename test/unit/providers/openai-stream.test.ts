// The Chat Completions adapter's stream parsing (src/providers/openai.ts): fixtures replayed, blocks built from deltas,
// calls cut off by finish_reason, refusal text ending as a refusal, output after finish_reason refused, and streams
// that end with or without [DONE].
import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../../../src/model/stream";
import { openai } from "../../../src/providers/openai";
import { fixture, run, scriptedFetch, squash, sseResponse } from "./helpers";

const MODEL = "gpt-4o-2024-08-06";

async function replay(name: string, chunkSize?: number) {
  const bytes = fixture(name);
  const fetch = scriptedFetch([() => sseResponse(bytes, chunkSize === undefined ? {} : { chunkSize })]);
  const outcome = await run(openai, fetch);
  return { ...outcome, squashed: squash(outcome.events), fetch };
}

function chunk(delta: Record<string, unknown>, finish: string | null = null): Record<string, unknown> {
  return { id: "c1", model: "m", choices: [{ index: 0, delta, finish_reason: finish }] };
}

async function runChunks(chunks: Array<Record<string, unknown> | string>) {
  const text = chunks.map((c) => `data: ${typeof c === "string" ? c : JSON.stringify(c)}\n\n`).join("");
  return run(openai, scriptedFetch([() => sseResponse(new TextEncoder().encode(text))]));
}

describe("openai adapter: fixture replay", () => {
  it("openai-chat-stream-text.sse", async () => {
    const { squashed, failure, fetch } = await replay("openai-chat-stream-text.sse");
    expect(failure).toBeUndefined();
    const text =
      "I'm unable to provide real-time weather updates. To get the current weather in San Francisco, " +
      "I recommend checking a reliable weather website or a weather app.";
    expect(squashed).toEqual<StreamEvent[]>([
      { type: "message_start", id: "chatcmpl-ABfw031mOJeYCSHe4yI2ZjOA6kMJL", model: MODEL },
      { type: "block_start", index: 0, kind: "text" },
      { type: "text_delta", index: 0, text },
      { type: "block_stop", index: 0, part: { type: "text", text } },
      { type: "usage", usage: { input_tokens: 14, output_tokens: 30 } },
      { type: "message_stop", stop_reason: "end_turn" },
    ]);
    const call = fetch.calls[0]!;
    expect(call.url).toBe("https://provider.test/chat/completions");
    expect(call.init.headers).toMatchObject({ authorization: "Bearer k", "content-type": "application/json" });
  });

  it("openai-chat-stream-tools.sse", async () => {
    const { squashed, failure } = await replay("openai-chat-stream-tools.sse");
    expect(failure).toBeUndefined();
    const id = "call_4XzlGBLtUe9dy3GVNV4jhq7h";
    expect(squashed).toEqual<StreamEvent[]>([
      { type: "message_start", id: "chatcmpl-ABfwERreu9s99xXsVuOWtIB2UOx62", model: MODEL },
      { type: "block_start", index: 0, kind: "tool_use", id, name: "get_weather" },
      { type: "tool_input_delta", index: 0, partial_json: '{"city":"New York City"}' },
      {
        type: "block_stop",
        index: 0,
        part: { type: "tool_use", id, name: "get_weather", input: { city: "New York City" } },
      },
      { type: "usage", usage: { input_tokens: 44, output_tokens: 16 } },
      { type: "message_stop", stop_reason: "tool_use" },
    ]);
  });

  it("openai-chat-stream-parallel-tools.sse closes call 0 when call 1 starts", async () => {
    const { squashed, failure } = await replay("openai-chat-stream-parallel-tools.sse");
    expect(failure).toBeUndefined();
    const a = "call_JMW1whyEaYG438VE1OIflxA2";
    const b = "call_DNYTawLBoN8fj3KN6qU9N1Ou";
    expect(squashed).toEqual<StreamEvent[]>([
      { type: "message_start", id: "chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63", model: MODEL },
      { type: "block_start", index: 0, kind: "tool_use", id: a, name: "GetWeatherArgs" },
      { type: "tool_input_delta", index: 0, partial_json: '{"city": "Edinburgh", "country": "GB", "units": "c"}' },
      {
        type: "block_stop",
        index: 0,
        part: {
          type: "tool_use",
          id: a,
          name: "GetWeatherArgs",
          input: { city: "Edinburgh", country: "GB", units: "c" },
        },
      },
      { type: "block_start", index: 1, kind: "tool_use", id: b, name: "get_stock_price" },
      { type: "tool_input_delta", index: 1, partial_json: '{"ticker": "AAPL", "exchange": "NASDAQ"}' },
      {
        type: "block_stop",
        index: 1,
        part: { type: "tool_use", id: b, name: "get_stock_price", input: { ticker: "AAPL", exchange: "NASDAQ" } },
      },
      { type: "usage", usage: { input_tokens: 149, output_tokens: 60 } },
      { type: "message_stop", stop_reason: "tool_use" },
    ]);
  });

  it.each(["openai-chat-stream-text.sse", "openai-chat-stream-tools.sse", "openai-chat-stream-parallel-tools.sse"])(
    "%s gives the same events when fed one byte at a time",
    async (name) => {
      const whole = await replay(name);
      const bytewise = await replay(name, 1);
      expect(bytewise.squashed).toEqual(whole.squashed);
    },
  );
});

describe("openai adapter: synthesized blocks", () => {
  it("reasoning, text, then a tool call get sequential indexes", async () => {
    const { events, failure } = await runChunks([
      chunk({ role: "assistant", content: "", reasoning_content: "think" }),
      chunk({ reasoning_content: "ing" }),
      chunk({ content: "Let me look." }),
      chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "f", arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"x":1}' } }] }),
      chunk({}, "tool_calls"),
      {
        id: "c1",
        choices: [],
        usage: { prompt_tokens: 10, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 4 } },
      },
      "[DONE]",
    ]);
    expect(failure).toBeUndefined();
    expect(squash(events)).toEqual<StreamEvent[]>([
      { type: "message_start", id: "c1", model: "m" },
      { type: "block_start", index: 0, kind: "thinking" },
      { type: "thinking_delta", index: 0, thinking: "thinking" },
      { type: "block_stop", index: 0, part: { type: "thinking", thinking: "thinking" } },
      { type: "block_start", index: 1, kind: "text" },
      { type: "text_delta", index: 1, text: "Let me look." },
      { type: "block_stop", index: 1, part: { type: "text", text: "Let me look." } },
      { type: "block_start", index: 2, kind: "tool_use", id: "call_1", name: "f" },
      { type: "tool_input_delta", index: 2, partial_json: '{"x":1}' },
      { type: "block_stop", index: 2, part: { type: "tool_use", id: "call_1", name: "f", input: { x: 1 } } },
      { type: "usage", usage: { input_tokens: 6, output_tokens: 5, cache_read_input_tokens: 4 } },
      { type: "message_stop", stop_reason: "tool_use" },
    ]);
  });

  it("arguments that are not a JSON object give block_invalid", async () => {
    const { events } = await runChunks([
      chunk({ tool_calls: [{ index: 0, id: "call_1", function: { name: "f", arguments: '{"x":' } }] }),
      chunk({ tool_calls: [{ index: 1, id: "call_2", function: { name: "g", arguments: "42" } }] }),
      chunk({}, "tool_calls"),
      "[DONE]",
    ]);
    const ends = events.filter((e) => e.type === "block_stop" || e.type === "block_invalid");
    expect(ends).toMatchObject([
      { type: "block_invalid", index: 0, id: "call_1", raw: '{"x":' },
      { type: "block_invalid", index: 1, id: "call_2", reason: "tool input is not a JSON object" },
    ]);
  });

  it("a call whose name comes in a later delta starts its block only then, with the arguments sent before it", async () => {
    const { events, failure } = await runChunks([
      chunk({ tool_calls: [{ index: 0, id: "call_late", type: "function", function: { arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: "pick_color", arguments: '{"a":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: "1}" } }] }),
      chunk({}, "tool_calls"),
    ]);
    expect(failure).toBeUndefined();
    expect(events.filter((e) => e.type !== "message_start" && e.type !== "usage")).toEqual<StreamEvent[]>([
      { type: "block_start", index: 0, kind: "tool_use", id: "call_late", name: "pick_color" },
      { type: "tool_input_delta", index: 0, partial_json: '{"a":' },
      { type: "tool_input_delta", index: 0, partial_json: "1}" },
      {
        type: "block_stop",
        index: 0,
        part: { type: "tool_use", id: "call_late", name: "pick_color", input: { a: 1 } },
      },
      { type: "message_stop", stop_reason: "tool_use" },
    ]);
  });

  describe('a tool call cut off by finish_reason "length"', () => {
    const ends = (events: StreamEvent[]) =>
      events.filter((e) => e.type === "block_stop" || e.type === "block_invalid" || e.type === "block_incomplete");

    it("with partial arguments is block_incomplete, and earlier calls stay complete", async () => {
      const { events, failure } = await runChunks([
        chunk({ tool_calls: [{ index: 0, id: "call_0", function: { name: "f", arguments: '{"q":"a"}' } }] }),
        chunk({ tool_calls: [{ index: 1, id: "call_1", function: { name: "f", arguments: '{"q":' } }] }),
        chunk({}, "length"),
        "[DONE]",
      ]);
      expect(failure).toBeUndefined();
      expect(ends(events)).toEqual([
        { type: "block_stop", index: 0, part: { type: "tool_use", id: "call_0", name: "f", input: { q: "a" } } },
        {
          type: "block_incomplete",
          index: 1,
          id: "call_1",
          name: "f",
          raw: '{"q":',
          reason: "the output hit max_tokens",
        },
      ]);
      expect(events.at(-1)).toEqual({ type: "message_stop", stop_reason: "max_tokens" });
    });

    it("with no arguments yet is block_incomplete, never a part with {} input", async () => {
      const { events } = await runChunks([
        chunk({ tool_calls: [{ index: 0, id: "call_0", function: { name: "f", arguments: "" } }] }),
        chunk({}, "length"),
      ]);
      expect(ends(events)).toEqual([expect.objectContaining({ type: "block_incomplete", id: "call_0", raw: "" })]);
    });

    it('finish_reason "content_filter" cuts the open call the same way: block_incomplete', async () => {
      const { events } = await runChunks([
        chunk({ tool_calls: [{ index: 0, id: "call_filtered", function: { name: "f", arguments: '{"q":' } }] }),
        chunk({}, "content_filter"),
        "[DONE]",
      ]);
      expect(ends(events)).toEqual([
        {
          type: "block_incomplete",
          index: 0,
          id: "call_filtered",
          name: "f",
          raw: '{"q":',
          reason: "the output was stopped by a refusal or content filter",
        },
      ]);
      expect(events.at(-1)).toEqual({ type: "message_stop", stop_reason: "refusal" });
    });
  });

  it("a stream that ends after finish_reason without [DONE] is complete", async () => {
    const { events, failure } = await runChunks([chunk({ content: "hi" }), chunk({}, "length")]);
    expect(failure).toBeUndefined();
    expect(events.at(-1)).toEqual({ type: "message_stop", stop_reason: "max_tokens" });
  });

  it("a stream cut before finish_reason does not close the open call", async () => {
    const { events, failure } = await runChunks([
      chunk({ tool_calls: [{ index: 0, id: "call_1", function: { name: "f", arguments: '{"x":1}' } }] }),
    ]);
    expect(failure?.error).toMatchObject({ code: "provider_stream_cut", retryable: true });
    expect(events.some((e) => e.type === "block_stop" || e.type === "block_invalid")).toBe(false);
  });

  it("[DONE] without finish_reason is still a cut", async () => {
    const { failure } = await runChunks([chunk({ content: "hi" }), "[DONE]"]);
    expect(failure?.error.code).toBe("provider_stream_cut");
  });

  it("finish_reason stop after tool calls is reported as tool_use; content_filter as refusal", async () => {
    const withCall = await runChunks([
      chunk({ tool_calls: [{ index: 0, id: "call_1", function: { name: "f", arguments: "{}" } }] }),
      chunk({}, "stop"),
    ]);
    expect(withCall.events.at(-1)).toEqual({ type: "message_stop", stop_reason: "tool_use" });
    const filtered = await runChunks([chunk({ content: "x" }), chunk({}, "content_filter")]);
    expect(filtered.events.at(-1)).toEqual({ type: "message_stop", stop_reason: "refusal" });
  });

  it("refusal text (delta.refusal) is a text block the user sees, and finish_reason stop after it is a refusal", async () => {
    const { events, failure } = await runChunks([
      chunk({ role: "assistant", content: null, refusal: "" }),
      chunk({ refusal: "I'm sorry, " }),
      chunk({ refusal: "I can't help with that." }),
      chunk({}, "stop"),
      "[DONE]",
    ]);
    expect(failure).toBeUndefined();
    const text = "I'm sorry, I can't help with that.";
    expect(squash(events)).toEqual<StreamEvent[]>([
      { type: "message_start", id: "c1", model: "m" },
      { type: "block_start", index: 0, kind: "text" },
      { type: "text_delta", index: 0, text },
      { type: "block_stop", index: 0, part: { type: "text", text } },
      { type: "message_stop", stop_reason: "refusal" },
    ]);
  });

  it("refusal text cut by finish_reason length is a refusal too, not an answer cut at the output limit", async () => {
    const { events } = await runChunks([chunk({ refusal: "I'm sorry, I can't" }), chunk({}, "length")]);
    expect(events.at(-1)).toEqual({ type: "message_stop", stop_reason: "refusal" });
  });

  it("content after finish_reason is provider_bad_response, not dropped", async () => {
    const { events, failure } = await runChunks([
      chunk({ content: "Hi" }),
      chunk({}, "stop"),
      chunk({ content: " there" }),
      "[DONE]",
    ]);
    expect(failure?.error).toMatchObject({ code: "provider_bad_response", retryable: true });
    expect(events.some((e) => e.type === "message_stop")).toBe(false);
  });

  it("a tool_calls delta after finish_reason is provider_bad_response, the call never started", async () => {
    const { events, failure } = await runChunks([
      chunk({ tool_calls: [{ index: 0, id: "call_a", function: { name: "f", arguments: '{"q":1}' } }] }),
      chunk({}, "tool_calls"),
      chunk({ tool_calls: [{ index: 1, id: "call_b", function: { name: "f", arguments: '{"q":1}' } }] }),
      "[DONE]",
    ]);
    expect(failure?.error.code).toBe("provider_bad_response");
    expect(events.filter((e) => e.type === "block_start")).toEqual([
      { type: "block_start", index: 0, kind: "tool_use", id: "call_a", name: "f" },
    ]);
    expect(events.some((e) => e.type === "message_stop")).toBe(false);
  });

  it("a usage chunk with no choices after finish_reason (stream_options include_usage) is accepted", async () => {
    const { events, failure } = await runChunks([
      chunk({ content: "Hi" }),
      chunk({}, "stop"),
      { id: "c1", choices: [], usage: { prompt_tokens: 3, completion_tokens: 1 } },
      "[DONE]",
    ]);
    expect(failure).toBeUndefined();
    expect(events.slice(-2)).toEqual<StreamEvent[]>([
      { type: "usage", usage: { input_tokens: 3, output_tokens: 1 } },
      { type: "message_stop", stop_reason: "end_turn" },
    ]);
  });

  it("a chunk with an error object is provider_stream_error", async () => {
    const { failure } = await runChunks([chunk({ content: "x" }), { error: { message: "upstream died" } }]);
    expect(failure?.error).toMatchObject({ code: "provider_stream_error", retryable: true });
    expect(failure?.message).toContain("upstream died");
  });

  it("an error chunk saying the request is over the window (vLLM, sglang) is context_overflow", async () => {
    const error = {
      message:
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
      code: 400,
    };
    const { failure } = await runChunks([{ error }]);
    expect(failure?.error).toMatchObject({ code: "context_overflow", retryable: true });
    expect(failure?.error.message).toContain("maximum context length is 4096 tokens");
  });

  it("parallel calls all sent at index 0 (Ollama) are told apart by id", async () => {
    const { events, failure } = await runChunks([
      chunk({ tool_calls: [{ index: 0, id: "call_a", function: { name: "read", arguments: '{"f":"a.py"}' } }] }),
      chunk({ tool_calls: [{ index: 0, id: "call_b", function: { name: "read", arguments: '{"f":"b.py"}' } }] }),
      chunk({}, "tool_calls"),
      "[DONE]",
    ]);
    expect(failure).toBeUndefined();
    const ends = events.filter((e) => e.type === "block_stop" || e.type === "block_invalid");
    expect(ends).toEqual([
      { type: "block_stop", index: 0, part: { type: "tool_use", id: "call_a", name: "read", input: { f: "a.py" } } },
      { type: "block_stop", index: 1, part: { type: "tool_use", id: "call_b", name: "read", input: { f: "b.py" } } },
    ]);
  });

  it("calls without index are told apart by id", async () => {
    const { events } = await runChunks([
      chunk({ tool_calls: [{ id: "call_a", function: { name: "f", arguments: '{"a":1}' } }] }),
      chunk({ tool_calls: [{ id: "call_b", function: { name: "g", arguments: '{"b":2}' } }] }),
      chunk({}, "tool_calls"),
    ]);
    const parts = events.flatMap((e) => (e.type === "block_stop" ? [e.part] : []));
    expect(parts).toEqual([
      { type: "tool_use", id: "call_a", name: "f", input: { a: 1 } },
      { type: "tool_use", id: "call_b", name: "g", input: { b: 2 } },
    ]);
  });
});
