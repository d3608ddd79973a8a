// The Anthropic adapter's stream parsing (src/providers/anthropic.ts): recorded fixtures replayed into stream events,
// tool calls cut off by max_tokens, and error events.
import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../../../src/model/stream";
import { anthropic } from "../../../src/providers/anthropic";
import { fixture, run, scriptedFetch, squash, sseResponse, typedEvents } from "./helpers";

const MODEL = "claude-sonnet-4-5-20250929";

async function replay(name: string, chunkSize?: number) {
  const bytes = fixture(name);
  const fetch = scriptedFetch([() => sseResponse(bytes, chunkSize === undefined ? {} : { chunkSize })]);
  const outcome = await run(anthropic, fetch);
  return { ...outcome, squashed: squash(outcome.events), fetch };
}

const START = { type: "message_start", message: { id: "msg_x", model: "m", usage: { input_tokens: 3 } } };
const STOP = [{ type: "message_delta", delta: { stop_reason: "end_turn" } }, { type: "message_stop" }];

async function runEvents(events: Array<Record<string, unknown>>) {
  return run(anthropic, scriptedFetch([() => sseResponse(typedEvents(events))]));
}

describe("anthropic adapter: fixture replay", () => {
  it("anthropic-stream-text.sse", async () => {
    const { squashed, failure, fetch } = await replay("anthropic-stream-text.sse");
    expect(failure).toBeUndefined();
    expect(squashed).toEqual<StreamEvent[]>([
      { type: "message_start", id: "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", model: MODEL },
      { type: "usage", usage: { input_tokens: 25, output_tokens: 1 } },
      { type: "block_start", index: 0, kind: "text" },
      { type: "text_delta", index: 0, text: "Hello!" },
      { type: "block_stop", index: 0, part: { type: "text", text: "Hello!" } },
      { type: "usage", usage: { output_tokens: 15 } },
      { type: "message_stop", stop_reason: "end_turn" },
    ]);
    const call = fetch.calls[0]!;
    expect(call.url).toBe("https://provider.test/v1/messages");
    expect(call.init.headers).toMatchObject({
      "x-api-key": "k",
      "anthropic-version": "2023-06-01",
      "content-type": "application/json",
    });
    expect(JSON.parse(String(call.init.body))).toMatchObject({ model: "claude-test", stream: true });
  });

  it("anthropic-stream-tool-use.sse", async () => {
    const { squashed, failure } = await replay("anthropic-stream-tool-use.sse");
    expect(failure).toBeUndefined();
    expect(squashed).toEqual<StreamEvent[]>([
      { type: "message_start", id: "msg_014p7gG3wDgGV9EUtLvnow3U", model: MODEL },
      { type: "usage", usage: { input_tokens: 472, output_tokens: 2 } },
      { type: "block_start", index: 0, kind: "text" },
      { type: "text_delta", index: 0, text: "Okay, let's check the weather for San Francisco, CA:" },
      {
        type: "block_stop",
        index: 0,
        part: { type: "text", text: "Okay, let's check the weather for San Francisco, CA:" },
      },
      { type: "block_start", index: 1, kind: "tool_use", id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather" },
      { type: "tool_input_delta", index: 1, partial_json: '{"location": "San Francisco, CA", "unit": "fahrenheit"}' },
      {
        type: "block_stop",
        index: 1,
        part: {
          type: "tool_use",
          id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
          name: "get_weather",
          input: { location: "San Francisco, CA", unit: "fahrenheit" },
        },
      },
      { type: "usage", usage: { output_tokens: 89 } },
      { type: "message_stop", stop_reason: "tool_use" },
    ]);
  });

  it("anthropic-stream-thinking.sse keeps the signature", async () => {
    const { squashed, failure } = await replay("anthropic-stream-thinking.sse");
    expect(failure).toBeUndefined();
    const thinking =
      "Let me solve this step by step:\n\n1. First break down 27 * 453\n2. 453 = 400 + 50 + 3\n3. 27 * 400 = 10,800" +
      "\n4. 27 * 50 = 1,350\n5. 27 * 3 = 81\n6. 10,800 + 1,350 + 81 = 12,231";
    expect(squashed).toEqual<StreamEvent[]>([
      { type: "message_start", id: "msg_01...", model: MODEL },
      { type: "block_start", index: 0, kind: "thinking" },
      { type: "thinking_delta", index: 0, thinking },
      {
        type: "block_stop",
        index: 0,
        part: { type: "thinking", thinking, signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds..." },
      },
      { type: "block_start", index: 1, kind: "text" },
      { type: "text_delta", index: 1, text: "27 * 453 = 12,231" },
      { type: "block_stop", index: 1, part: { type: "text", text: "27 * 453 = 12,231" } },
      { type: "message_stop", stop_reason: "end_turn" },
    ]);
  });

  it("anthropic-sdk-fixture-tool-use.sse (newer fields)", async () => {
    const { squashed, failure } = await replay("anthropic-sdk-fixture-tool-use.sse");
    expect(failure).toBeUndefined();
    const text = "I'll check the current weather in Paris for you.";
    expect(squashed).toEqual<StreamEvent[]>([
      { type: "message_start", id: "msg_019Q1hrJbZG26Fb9BQhrkHEr", model: "claude-sonnet-4-20250514" },
      {
        type: "usage",
        usage: { input_tokens: 377, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      },
      { type: "block_start", index: 0, kind: "text" },
      { type: "text_delta", index: 0, text },
      { type: "block_stop", index: 0, part: { type: "text", text } },
      { type: "block_start", index: 1, kind: "tool_use", id: "toolu_01NRLabsLyVHZPKxbKvkfSMn", name: "get_weather" },
      { type: "tool_input_delta", index: 1, partial_json: '{"location": "Paris"}' },
      {
        type: "block_stop",
        index: 1,
        part: {
          type: "tool_use",
          id: "toolu_01NRLabsLyVHZPKxbKvkfSMn",
          name: "get_weather",
          input: { location: "Paris" },
        },
      },
      { type: "usage", usage: { output_tokens: 65 } },
      { type: "message_stop", stop_reason: "tool_use" },
    ]);
  });

  it("anthropic-stream-compaction.sse counts the compaction pass in fields of its own, top-level figures unchanged", async () => {
    const { events, failure } = await replay("anthropic-stream-compaction.sse");
    expect(failure).toBeUndefined();
    expect(events.filter((e) => e.type === "usage").at(-1)).toEqual({
      type: "usage",
      usage: { output_tokens: 9, compaction_input_tokens: 51_230, compaction_output_tokens: 412 },
    });
  });

  it("anthropic-stream-error.sse → provider_overloaded", async () => {
    const { events, failure } = await replay("anthropic-stream-error.sse");
    expect(events).toEqual([]);
    expect(failure?.error).toMatchObject({ code: "provider_overloaded", retryable: true });
  });

  it.each([
    "anthropic-stream-text.sse",
    "anthropic-stream-tool-use.sse",
    "anthropic-stream-thinking.sse",
    "anthropic-sdk-fixture-tool-use.sse",
  ])("%s gives the same events when fed one byte at a time", async (name) => {
    const whole = await replay(name);
    const bytewise = await replay(name, 1);
    expect(bytewise.squashed).toEqual(whole.squashed);
  });
});

describe("anthropic adapter: stream edge cases", () => {
  it("ignores server_tool_use and unknown blocks, renumbering the rest", async () => {
    const { events, failure } = await runEvents([
      START,
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} },
      },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"q":"x"}' } },
      { type: "content_block_stop", index: 0 },
      {
        type: "content_block_start",
        index: 1,
        content_block: { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
      },
      { type: "content_block_stop", index: 1 },
      { type: "some_future_event", foo: 1 },
      { type: "content_block_start", index: 2, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 2, delta: { type: "citations_delta", citation: {} } },
      { type: "content_block_delta", index: 2, delta: { type: "text_delta", text: "found" } },
      { type: "content_block_stop", index: 2 },
      ...STOP,
    ]);
    expect(failure).toBeUndefined();
    expect(events.filter((e) => e.type === "block_start" || e.type === "block_stop")).toEqual([
      { type: "block_start", index: 0, kind: "text" },
      { type: "block_stop", index: 0, part: { type: "text", text: "found" } },
    ]);
    expect(JSON.stringify(events)).not.toContain("srvtoolu_");
  });

  it("empty tool input means {}, unparseable or non-object input is block_invalid", async () => {
    const tool = (index: number, id: string, json: string[]) => [
      { type: "content_block_start", index, content_block: { type: "tool_use", id, name: "t", input: {} } },
      ...json.map((partial_json) => ({
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json },
      })),
      { type: "content_block_stop", index },
    ];
    const { events, failure } = await runEvents([
      START,
      ...tool(0, "toolu_a", [""]),
      ...tool(1, "toolu_b", ['{"a":', "1"]),
      ...tool(2, "toolu_c", ["[1,2]"]),
      ...STOP,
    ]);
    expect(failure).toBeUndefined();
    const ends = events.filter((e) => e.type === "block_stop" || e.type === "block_invalid");
    expect(ends[0]).toEqual({
      type: "block_stop",
      index: 0,
      part: { type: "tool_use", id: "toolu_a", name: "t", input: {} },
    });
    expect(ends[1]).toMatchObject({ type: "block_invalid", index: 1, id: "toolu_b", name: "t", raw: '{"a":1' });
    expect(ends[2]).toMatchObject({
      type: "block_invalid",
      index: 2,
      id: "toolu_c",
      reason: "tool input is not a JSON object",
    });
  });

  describe("a tool_use cut off by max_tokens", () => {
    const tool = (index: number, id: string, json: string[], close = true) => [
      { type: "content_block_start", index, content_block: { type: "tool_use", id, name: "t", input: {} } },
      ...json.map((partial_json) => ({
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json },
      })),
      ...(close ? [{ type: "content_block_stop", index }] : []),
    ];
    const cut = [{ type: "message_delta", delta: { stop_reason: "max_tokens" } }, { type: "message_stop" }];
    const ends = (events: StreamEvent[]) =>
      events.filter((e) => e.type === "block_stop" || e.type === "block_invalid" || e.type === "block_incomplete");

    it("with partial JSON is block_incomplete, not block_invalid", async () => {
      const { events, failure } = await runEvents([START, ...tool(0, "toolu_cut", ['{"city": "Par']), ...cut]);
      expect(failure).toBeUndefined();
      expect(ends(events)).toEqual([
        {
          type: "block_incomplete",
          index: 0,
          id: "toolu_cut",
          name: "t",
          raw: '{"city": "Par',
          reason: "the output hit max_tokens",
        },
      ]);
      expect(events.at(-1)).toEqual({ type: "message_stop", stop_reason: "max_tokens" });
    });

    it("before any input is block_incomplete, never a part with {} input", async () => {
      const { events } = await runEvents([START, ...tool(0, "toolu_empty", [""]), ...cut]);
      expect(ends(events)).toEqual([
        expect.objectContaining({ type: "block_incomplete", id: "toolu_empty", raw: "{}" }),
      ]);
    });

    it("keeps the complete calls before the cut one, in order", async () => {
      const { events } = await runEvents([
        START,
        ...tool(0, "toolu_done", ['{"q":"a"}']),
        ...tool(1, "toolu_cut", ['{"q":']),
        ...cut,
      ]);
      expect(ends(events).map((e) => [e.type, e.type === "block_stop" ? e.part : e.index])).toEqual([
        ["block_stop", { type: "tool_use", id: "toolu_done", name: "t", input: { q: "a" } }],
        ["block_incomplete", 1],
      ]);
    });

    it("an empty-input call the model finished is still a part when the stop reason is tool_use", async () => {
      const { events } = await runEvents([
        START,
        ...tool(0, "toolu_noargs", [""]),
        { type: "message_delta", delta: { stop_reason: "tool_use" } },
        { type: "message_stop" },
      ]);
      expect(ends(events)).toEqual([
        { type: "block_stop", index: 0, part: { type: "tool_use", id: "toolu_noargs", name: "t", input: {} } },
      ]);
    });

    it("an unfinished block is never closed by a later block start: it was followed, so it is final", async () => {
      const { events } = await runEvents([
        START,
        ...tool(0, "toolu_bad", ['{"a":']),
        { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
        { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "and more" } },
        { type: "content_block_stop", index: 1 },
        ...cut,
      ]);
      expect(ends(events).map((e) => e.type)).toEqual(["block_invalid", "block_stop"]);
    });

    it("stop_reason refusal cuts a held call the same way: block_incomplete, not block_invalid", async () => {
      const { events } = await runEvents([
        START,
        ...tool(0, "toolu_refused", ['{"city": "Par']),
        { type: "message_delta", delta: { stop_reason: "refusal" } },
        { type: "message_stop" },
      ]);
      expect(ends(events)).toEqual([
        {
          type: "block_incomplete",
          index: 0,
          id: "toolu_refused",
          name: "t",
          raw: '{"city": "Par',
          reason: "the output was stopped by a refusal or content filter",
        },
      ]);
      expect(events.at(-1)).toEqual({ type: "message_stop", stop_reason: "refusal" });
    });
  });

  it("redacted_thinking becomes a thinking part with its data", async () => {
    const { events } = await runEvents([
      START,
      { type: "content_block_start", index: 0, content_block: { type: "redacted_thinking", data: "opaque" } },
      { type: "content_block_stop", index: 0 },
      ...STOP,
    ]);
    expect(events).toContainEqual({
      type: "block_stop",
      index: 0,
      part: { type: "thinking", thinking: "", redacted: "opaque" },
    });
  });

  it("an error event other than overloaded is provider_stream_error, after the completed blocks", async () => {
    const { events, failure } = await runEvents([
      START,
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "partial" } },
      { type: "content_block_stop", index: 0 },
      { type: "error", error: { type: "api_error", message: "boom" } },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "block_stop", index: 0 });
    expect(failure?.error).toMatchObject({ code: "provider_stream_error", retryable: true });
    expect(failure?.message).toContain("boom");
  });

  it("a data line that is not JSON is provider_bad_response", async () => {
    const body = new TextEncoder().encode("event: message_start\ndata: {not json\n\n");
    const { failure } = await run(anthropic, scriptedFetch([() => sseResponse(body)]));
    expect(failure?.error.code).toBe("provider_bad_response");
  });

  it("a 200 JSON answer instead of a stream is provider_bad_response", async () => {
    const fetch = scriptedFetch([() => new Response("{}", { headers: { "content-type": "application/json" } })]);
    const { failure } = await run(anthropic, fetch);
    expect(failure?.error.code).toBe("provider_bad_response");
  });
});

describe("anthropic adapter: events out of order are provider_bad_response, never silently taken", () => {
  const text = (index: number, t: string) => [
    { type: "content_block_start", index, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index, delta: { type: "text_delta", text: t } },
  ];
  const tool = (index: number, id: string) => [
    { type: "content_block_start", index, content_block: { type: "tool_use", id, name: "lookup", input: {} } },
    { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: '{"q":"x"}' } },
    { type: "content_block_stop", index },
  ];

  it.each([
    [
      "a second message_start (a spliced retry) repeating a tool call",
      [START, ...tool(0, "toolu_1"), START, ...tool(0, "toolu_1"), ...STOP],
      "second message_start",
    ],
    [
      "a block started at an index that is still open",
      [START, ...text(0, "Hel"), ...text(0, "lo"), ...STOP],
      "while block 0 is open",
    ],
    [
      "a block started while another is still open",
      [START, ...text(0, "Hel"), ...tool(1, "toolu_inner"), ...STOP],
      "content_block_start while block 0 is open",
    ],
    [
      "a message_delta while a complete tool_use is still open",
      [START, ...tool(0, "toolu_open").slice(0, 2), ...STOP],
      "message_delta while block 0 is open",
    ],
    [
      "a message_stop while a complete tool_use is still open",
      [START, ...tool(0, "toolu_unstopped").slice(0, 2), { type: "message_stop" }],
      "message_stop while block 0 is open",
    ],
    ["a message_stop before message_start", [{ type: "message_stop" }], "message_stop before message_start"],
    [
      "a delta for a block never started",
      [
        START,
        ...text(0, "ok"),
        { type: "content_block_delta", index: 3, delta: { type: "text_delta", text: "LOST" } },
        ...STOP,
      ],
      "not open",
    ],
    ["a stop for a block never started", [START, { type: "content_block_stop", index: 2 }, ...STOP], "not open"],
    ["a block before message_start", [...text(0, "early"), START, ...STOP], "before message_start"],
  ])("%s", async (_what, events, says) => {
    const { events: out, failure } = await runEvents(events as Array<Record<string, unknown>>);
    expect(failure?.error.code).toBe("provider_bad_response");
    expect(failure?.error.message).toContain(says);
    expect(out.filter((e) => e.type === "block_stop" && e.part.type === "tool_use")).toHaveLength(
      _what.startsWith("a second") ? 1 : 0,
    );
  });
});
