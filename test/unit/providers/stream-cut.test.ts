// Every recorded stream cut at every byte offset, for all three adapters: what is yielded is a prefix of the uncut
// stream, a closed tool call is whole, and the failure is provider_stream_cut.
import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../../../src/model/stream";
import { anthropic } from "../../../src/providers/anthropic";
import { openai } from "../../../src/providers/openai";
import { openaiResponses } from "../../../src/providers/openai-responses";
import type { ProviderAdapter } from "../../../src/providers/types";
import { fixture, type Outcome, run, scriptedFetch, sseResponse } from "./helpers";

const FIXTURES: Array<[string, ProviderAdapter]> = [
  ["anthropic-stream-text.sse", anthropic],
  ["anthropic-stream-tool-use.sse", anthropic],
  ["anthropic-stream-thinking.sse", anthropic],
  ["anthropic-stream-error.sse", anthropic],
  ["anthropic-sdk-fixture-tool-use.sse", anthropic],
  ["openai-chat-stream-text.sse", openai],
  ["openai-chat-stream-tools.sse", openai],
  ["openai-chat-stream-parallel-tools.sse", openai],
  ["openai-responses-stream-compaction.sse", openaiResponses],
];

const content = (events: StreamEvent[]) => events.filter((e) => e.type !== "retry");

function toolInputs(events: StreamEvent[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const e of events)
    if (e.type === "tool_input_delta") out.set(e.index, (out.get(e.index) ?? "") + e.partial_json);
  return out;
}

/** The point after which a cut no longer matters: the protocol's own completion signal. */
function completionOffset(text: string, adapter: ProviderAdapter): number {
  const marker =
    adapter === anthropic
      ? '"type":"message_stop"'
      : adapter === openaiResponses
        ? '"type":"response.completed"'
        : '"finish_reason":"';
  const compact = text.replaceAll('"type": "message_stop"', '"type":"message_stop"');
  const at = compact.indexOf(marker);
  return at < 0 ? Number.POSITIVE_INFINITY : at;
}

function checkCut(cut: Outcome, full: Outcome, at: number, done: number): void {
  const events = content(cut.events);
  const expected = content(full.events);
  if (cut.failure === undefined) {
    // Complete once finish_reason / response.completed arrived; only OpenAI's trailing usage chunk may be missing.
    expect(at).toBeGreaterThan(done);
    expect(events.filter((e) => e.type !== "usage")).toEqual(expected.filter((e) => e.type !== "usage"));
    return;
  }
  // Whatever was yielded is exactly what the uncut stream yields up to that point.
  expect(events).toEqual(expected.slice(0, events.length));
  // A closed tool_use carries the whole input, never a prefix that happened to parse.
  const cutInputs = toolInputs(events);
  const fullInputs = toolInputs(expected);
  for (const e of events) {
    if (e.type === "block_stop" && e.part.type === "tool_use") {
      expect(cutInputs.get(e.index) ?? "").toBe(fullInputs.get(e.index) ?? "");
      expect(typeof e.part.input).toBe("object");
    }
  }
  if (full.failure && cut.failure.error.code === full.failure.error.code) return;
  expect(cut.failure.error).toMatchObject({ code: "provider_stream_cut", retryable: true });
}

describe.each(FIXTURES)("%s cut at every byte offset", (name, adapter) => {
  const bytes = fixture(name);
  const done = completionOffset(new TextDecoder().decode(bytes), adapter);

  it.each(["eof", "error"] as const)("ending with %s", async (ending) => {
    const full = await run(adapter, scriptedFetch([() => sseResponse(bytes)]));
    let completed = 0;
    for (let at = 0; at <= bytes.length; at++) {
      const cut = await run(adapter, scriptedFetch([() => sseResponse(bytes, { cutAt: at, ending })]));
      checkCut(cut, full, at, done);
      if (cut.failure === undefined) completed++;
    }
    // The uncut stream succeeds unless the fixture is an error event.
    expect(completed > 0).toBe(full.failure === undefined);
  });
});

it("a cut that hits nothing but the response headers is retried, then reported as a cut", async () => {
  const bytes = fixture("anthropic-stream-text.sse");
  const fetch = scriptedFetch([() => sseResponse(bytes, { cutAt: 0 }), () => sseResponse(bytes)]);
  const outcome = await run(anthropic, fetch);
  expect(outcome.failure).toBeUndefined();
  expect(outcome.events[0]).toMatchObject({ type: "retry", attempt: 1, status: 200, reason: "empty_body" });
  expect(fetch.calls).toHaveLength(2);

  const always = scriptedFetch([() => sseResponse(bytes, { cutAt: 0, ending: "error" })]);
  const failed = await run(anthropic, always);
  expect(failed.failure?.error.code).toBe("provider_stream_cut");
  expect(always.calls).toHaveLength(4);
});
