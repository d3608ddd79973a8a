// Native compaction on the wire (README "Long sessions"): the Anthropic `compact_20260112` request edit and
// beta header, the `compaction` block parsed from a stream and sent back verbatim, and its text form elsewhere.
import { describe, expect, it } from "vitest";
import type { CompactionPart } from "../../../src/model/message";
import type { StreamEvent } from "../../../src/model/stream";
import { anthropic, anthropicBetas, COMPACTION_BETA, TOOL_SEARCH_BETA } from "../../../src/providers/anthropic";
import { openai } from "../../../src/providers/openai";
import { capabilities, collect, fixture, msg, request, scriptedFetch, squash, sseResponse } from "./helpers";

const BLOCK: CompactionPart = {
  type: "compaction",
  provider: "anthropic",
  content: "Earlier: the user asked about Paris.",
  encrypted: "opaque-state-1",
};

function compactedHistory() {
  return [
    msg("user", [{ type: "text", text: "(earlier part compacted)" }]),
    msg("assistant", [BLOCK, { type: "text", text: "Sunny." }]),
    msg("user", [{ type: "text", text: "And tomorrow?" }]),
  ];
}

describe("anthropic stream: a compaction block", () => {
  it("anthropic-stream-compaction.sse becomes a compaction part (content and opaque state) before the text", async () => {
    const fetch = scriptedFetch([() => sseResponse(fixture("anthropic-stream-compaction.sse"))]);
    const endpoint = { baseUrl: "https://provider.test", apiKey: "k", fetch };
    const req = request("anthropic", { model: { provider: "anthropic", name: "m", capabilities: capabilities() } });
    const outcome = await collect(
      anthropic.stream(req, endpoint, { ...FAST, maxAttempts: 1 }, new AbortController().signal),
    );
    expect(outcome.failure).toBeUndefined();
    const stops = squash(outcome.events).filter((e) => e.type === "block_stop");
    expect(stops).toEqual<StreamEvent[]>([
      {
        type: "block_stop",
        index: 0,
        part: {
          type: "compaction",
          provider: "anthropic",
          content: "The user is planning a trip to Paris and asked for the weather twice; it was sunny both times.",
          encrypted: "EqQBCkgIARABGAIiQL0opaque",
        },
      },
      { type: "block_stop", index: 1, part: { type: "text", text: "It is still sunny in Paris." } },
    ]);
    // The UI never sees a block_start for it (no reasoning/text part is opened for the summary).
    expect(outcome.events.some((e) => e.type === "block_start" && e.index === 0)).toBe(false);
    // Top-level usage is the compacted context, not the compaction iteration.
    expect(outcome.events.filter((e) => e.type === "usage")[0]).toEqual({
      type: "usage",
      usage: { input_tokens: 2104, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
    });
  });

  it("a compaction whose delta carries no content is a failed one: content null, no opaque state", async () => {
    const events = [
      { type: "message_start", message: { id: "m", model: "m", usage: { input_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "compaction", content: null } },
      { type: "content_block_delta", index: 0, delta: { type: "compaction_delta", content: null } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "end_turn" } },
      { type: "message_stop" },
    ];
    const body = new TextEncoder().encode(
      events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(""),
    );
    const fetch = scriptedFetch([() => sseResponse(body)]);
    const outcome = await collect(
      anthropic.stream(
        request("anthropic"),
        { baseUrl: "https://p.test", apiKey: "k", fetch },
        FAST,
        new AbortController().signal,
      ),
    );
    const stop = outcome.events.find((e) => e.type === "block_stop");
    expect(stop).toEqual({
      type: "block_stop",
      index: 0,
      part: { type: "compaction", provider: "anthropic", content: null },
    });
  });
});

const FAST = {
  maxAttempts: 1,
  baseDelayMs: 1,
  maxDelayMs: 1,
  idleTimeoutMs: 2000,
  stepTimeoutMs: 60_000,
  connectTimeoutMs: 2000,
};

describe("anthropic body: server-side compaction", () => {
  it("a request with a compaction trigger carries the compact_20260112 edit and the beta", () => {
    const req = request("anthropic", { compaction: { trigger: 56_000 } });
    const body = anthropic.buildBody(req);
    expect(body.context_management).toEqual({
      edits: [{ type: "compact_20260112", trigger: { type: "input_tokens", value: 56_000 } }],
    });
    expect(anthropicBetas(req, body)).toEqual([COMPACTION_BETA]);
  });

  it("a request without one carries neither", () => {
    const req = request("anthropic");
    const body = anthropic.buildBody(req);
    expect(body.context_management).toBeUndefined();
    expect(anthropicBetas(req, body)).toEqual([]);
  });

  it("sends the compaction block back verbatim (with a cache breakpoint under prompt_cache) and both betas with deferred tools", () => {
    const req = request("anthropic", {
      model: {
        provider: "anthropic",
        name: "m",
        capabilities: capabilities({ native_compaction: true, prompt_cache: true }),
      },
      messages: compactedHistory(),
      tools: [
        { name: "a", description: "a", input_schema: { type: "object" } },
        { name: "b", description: "b", input_schema: { type: "object" }, defer_loading: true },
      ],
      compaction: { trigger: 60_000 },
    });
    const body = anthropic.buildBody(req);
    const messages = body.messages as Array<{ role: string; content: unknown[] }>;
    expect(messages[1]?.content[0]).toEqual({
      type: "compaction",
      content: BLOCK.content,
      encrypted_content: "opaque-state-1",
      cache_control: { type: "ephemeral" },
    });
    expect(anthropicBetas(req, body)).toEqual([TOOL_SEARCH_BETA, COMPACTION_BETA]);
  });

  it("the adapter sends the betas comma-separated in one anthropic-beta header", async () => {
    const fetch = scriptedFetch([() => sseResponse(fixture("anthropic-stream-text.sse"))]);
    const req = request("anthropic", {
      compaction: { trigger: 60_000 },
      tools: [
        { name: "a", description: "a", input_schema: { type: "object" } },
        { name: "b", description: "b", input_schema: { type: "object" }, defer_loading: true },
      ],
    });
    await collect(
      anthropic.stream(req, { baseUrl: "https://p.test", apiKey: "k", fetch }, FAST, new AbortController().signal),
    );
    const headers = fetch.calls[0]?.init.headers as Record<string, string>;
    expect(headers["anthropic-beta"]).toBe(`${TOOL_SEARCH_BETA},${COMPACTION_BETA}`);
  });

  it("a model without native compaction reads the block as its summary text (no compaction block, no beta)", () => {
    const req = request("anthropic", { messages: compactedHistory() });
    const body = anthropic.buildBody(req);
    const text = JSON.stringify(body.messages);
    expect(text).not.toContain('"type":"compaction"');
    expect(text).toContain("<conversation_summary>");
    expect(text).toContain(BLOCK.content as string);
    expect(anthropicBetas(req, body)).toEqual([]);
  });
});

describe("openai body: a provider's compaction", () => {
  it("Chat Completions has no compaction item: the block's summary is the assistant's text, its opaque state is not sent", () => {
    const body = openai.buildBody(request("openai", { messages: compactedHistory() }));
    const assistant = (body.messages as Array<{ role: string; content: string | null }>).find(
      (m) => m.role === "assistant",
    );
    expect(assistant?.content).toContain(BLOCK.content as string);
    expect(JSON.stringify(body)).not.toContain("opaque-state-1");
  });
});
