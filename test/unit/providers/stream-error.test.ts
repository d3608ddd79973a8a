// An error event inside a 200 stream gets the same code from all three stream parsers (stream-error.ts).
import { describe, expect, it } from "vitest";
import { anthropic } from "../../../src/providers/anthropic";
import { openai } from "../../../src/providers/openai";
import { openaiResponses } from "../../../src/providers/openai-responses";
import type { ProviderAdapter } from "../../../src/providers/types";
import { run, scriptedFetch, sseResponse, typedEvents } from "./helpers";

type Wire = Record<string, unknown>;

const encoder = new TextEncoder();

/** Each protocol's stream: its opening event, then the error object where that protocol carries one. */
const STREAMS: Array<[string, ProviderAdapter, (error: Wire) => Uint8Array]> = [
  [
    "anthropic",
    anthropic,
    (error) =>
      typedEvents([
        { type: "message_start", message: { id: "msg_1", model: "m" } },
        { type: "error", error },
      ]),
  ],
  [
    "openai",
    openai,
    (error) =>
      encoder.encode(
        `data: ${JSON.stringify({ id: "c1", model: "m", choices: [{ index: 0, delta: { content: "x" } }] })}\n\n` +
          `data: ${JSON.stringify({ error })}\n\n`,
      ),
  ],
  [
    "openai-responses",
    openaiResponses,
    (error) =>
      typedEvents([
        { type: "response.created", response: { id: "resp_1", model: "m", status: "in_progress" } },
        { type: "error", error, sequence_number: 1 },
      ]),
  ],
];

/** Error objects as the servers send them mid-stream, and the code each must get whichever protocol carried it. */
const ERRORS: Array<[string, Wire, string]> = [
  [
    "Anthropic's rate limit",
    { type: "rate_limit_error", message: "Number of requests has exceeded your per-minute rate limit" },
    "provider_rate_limited",
  ],
  [
    "OpenAI's rate limit",
    { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" },
    "provider_rate_limited",
  ],
  [
    "the Responses API's rate limit",
    { type: "too_many_requests", code: "too_many_requests", message: "Too Many Requests" },
    "provider_rate_limited",
  ],
  ["an overloaded API", { type: "overloaded_error", message: "Overloaded" }, "provider_overloaded"],
  [
    "Anthropic's overflow",
    { type: "invalid_request_error", message: "prompt is too long: 5000 tokens > 4096 maximum" },
    "context_overflow",
  ],
  [
    "OpenAI's overflow",
    { type: "invalid_request_error", code: "context_length_exceeded", message: "Your input is too long." },
    "context_overflow",
  ],
  [
    "vLLM's overflow, without a code",
    { message: "This model's maximum context length is 4096 tokens.", type: "BadRequestError", code: 400 },
    "context_overflow",
  ],
  ["any other error", { type: "api_error", message: "boom" }, "provider_stream_error"],
];

describe.each(ERRORS)("an in-stream error event: %s", (_what, error, code) => {
  it.each(STREAMS)(`is a retryable ${code} (%s)`, async (_protocol, adapter, stream) => {
    const { failure } = await run(adapter, scriptedFetch([() => sseResponse(stream(error))]));
    expect(failure?.error).toMatchObject({ code, retryable: true });
    expect(failure?.error.message).toContain(String(error.message));
  });
});
