// fetchWithRetry (src/providers/retry.ts): which failures are retried and how often, what each final failure is
// called, Retry-After and backoff arithmetic, and how the adapters yield retry notices as stream events.
import { afterEach, describe, expect, it, vi } from "vitest";
import { anthropic } from "../../../src/providers/anthropic";
import { openai } from "../../../src/providers/openai";
import {
  backoffDelay,
  fetchWithRetry,
  parseRetryAfter,
  type RetryNotice,
  retryAfterCapMs,
} from "../../../src/providers/retry";
import { type FetchLike, ProviderFailure, type RetryPolicy } from "../../../src/providers/types";
import { FAST_POLICY, fixture, hangingFetch, jsonResponse, request, run, scriptedFetch, sseResponse } from "./helpers";

const overloadedBody = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
const rateBody = { error: { message: "Rate limit reached", type: "requests" } };
const ok = () => sseResponse(fixture("anthropic-stream-text.sse"));

afterEach(() => {
  vi.useRealTimers();
});

async function attempt(fetch: FetchLike, policy: RetryPolicy = FAST_POLICY, signal = new AbortController().signal) {
  const notices: RetryNotice[] = [];
  try {
    const response = await fetchWithRetry("https://p.test/x", { method: "POST" }, policy, signal, fetch, (n) =>
      notices.push(n),
    );
    await response.body?.cancel();
    return { notices, response };
  } catch (err) {
    if (err instanceof ProviderFailure) return { notices, failure: err };
    throw err;
  }
}

describe("fetchWithRetry", () => {
  it("429 with retry-after, then success", async () => {
    const fetch = scriptedFetch([() => jsonResponse(429, rateBody, { "retry-after": "0" }), ok]);
    const { notices, response } = await attempt(fetch);
    expect(response?.status).toBe(200);
    expect(notices).toEqual([{ attempt: 1, delay_ms: 0, status: 429, reason: "rate_limited" }]);
  });

  it("retry-after-ms wins over retry-after", async () => {
    const fetch = scriptedFetch([() => jsonResponse(429, rateBody, { "retry-after": "1", "retry-after-ms": "3" }), ok]);
    const { notices } = await attempt(fetch);
    expect(notices[0]?.delay_ms).toBe(3);
  });

  it("529 then success, with a jittered backoff within the cap", async () => {
    const fetch = scriptedFetch([() => jsonResponse(529, overloadedBody), ok]);
    const { notices, response } = await attempt(fetch);
    expect(response?.status).toBe(200);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ attempt: 1, status: 529, reason: "overloaded" });
    expect(notices[0]!.delay_ms).toBeGreaterThanOrEqual(0);
    expect(notices[0]!.delay_ms).toBeLessThanOrEqual(FAST_POLICY.baseDelayMs);
  });

  it("400 is not retried and carries the provider's message", async () => {
    const body = { type: "error", error: { type: "invalid_request_error", message: "messages: roles must alternate" } };
    const fetch = scriptedFetch([() => jsonResponse(400, body), ok]);
    const { failure, notices } = await attempt(fetch);
    expect(fetch.calls).toHaveLength(1);
    expect(notices).toEqual([]);
    expect(failure?.error).toMatchObject({ code: "provider_http_error", status: 400, retryable: false });
    expect(failure?.message).toContain("messages: roles must alternate");
  });

  it("Anthropic's 400 'input length and max_tokens exceed context limit' is context_overflow, sent once", async () => {
    const body = {
      type: "error",
      error: {
        type: "invalid_request_error",
        message:
          "input length and `max_tokens` exceed context limit: 178959 + 64000 > 200000, decrease input length or `max_tokens` and try again",
      },
    };
    const fetch = scriptedFetch([() => jsonResponse(400, body)]);
    const { failure } = await attempt(fetch);
    expect(failure?.error).toMatchObject({ code: "context_overflow", status: 400, retryable: true });
    expect(fetch.calls).toHaveLength(1);
  });

  it.each([
    [
      "Kimi",
      {
        error: {
          message: "Invalid request: Your request exceeded model token limit: 262144 (requested: 291351)",
          type: "invalid_request_error",
        },
      },
    ],
    [
      "Qwen (DashScope)",
      {
        error: {
          message: "<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 129024]",
          type: "invalid_request_error",
          code: "invalid_parameter_error",
        },
      },
    ],
    ["Ollama", { error: "prompt too long; exceeded max context length by 1203 tokens" }],
    [
      "llama.cpp",
      {
        error: {
          code: 400,
          message: "the request exceeds the available context size, try increasing it",
          type: "exceed_context_size_error",
        },
      },
    ],
    [
      "MiniMax",
      { error: { message: "invalid params, context window exceeds limit (2013)", type: "bad_request_error" } },
    ],
  ])("%s's 400 for a request over the window is context_overflow, sent once", async (_server, body) => {
    const fetch = scriptedFetch([() => jsonResponse(400, body)]);
    const { failure } = await attempt(fetch);
    expect(failure?.error).toMatchObject({ code: "context_overflow", status: 400, retryable: true });
    expect(fetch.calls).toHaveLength(1);
  });

  it("x-should-retry: false stops a retry the status would allow", async () => {
    const fetch = scriptedFetch([() => jsonResponse(500, { error: { message: "no" } }, { "x-should-retry": "false" })]);
    const { failure } = await attempt(fetch);
    expect(fetch.calls).toHaveLength(1);
    expect(failure?.error).toMatchObject({ code: "provider_http_error", status: 500, retryable: false });
  });

  it("a network error is retried", async () => {
    const fetch = scriptedFetch([() => new TypeError("fetch failed"), ok]);
    const { notices, response } = await attempt(fetch);
    expect(response?.status).toBe(200);
    expect(notices).toMatchObject([{ attempt: 1, status: 0, reason: "network_error" }]);
  });

  it.each([
    [429, "provider_rate_limited", rateBody],
    [529, "provider_overloaded", overloadedBody],
    [503, "provider_overloaded", { error: { message: "busy" } }],
    [500, "provider_http_error", { error: { message: "oops" } }],
  ] as const)("exhausted retries on %i give %s", async (status, code, body) => {
    const fetch = scriptedFetch([() => jsonResponse(status, body)]);
    const { failure, notices } = await attempt(fetch);
    expect(fetch.calls).toHaveLength(FAST_POLICY.maxAttempts);
    expect(notices.map((n) => n.attempt)).toEqual([1, 2, 3]);
    expect(failure?.error).toMatchObject({ code, status, retryable: true });
  });

  it("exhausted network errors give provider_unreachable", async () => {
    const fetch = scriptedFetch([() => new TypeError("fetch failed")]);
    const { failure } = await attempt(fetch);
    expect(failure?.error).toMatchObject({ code: "provider_unreachable", retryable: true });
  });

  it("a retry-after beyond the cap gives up at once instead of sleeping", async () => {
    const fetch = scriptedFetch([() => jsonResponse(429, rateBody, { "retry-after": "3600" }), ok]);
    const { failure, notices } = await attempt(fetch);
    expect(fetch.calls).toHaveLength(1);
    expect(notices).toEqual([]);
    expect(failure?.error).toMatchObject({ code: "provider_rate_limited", retryable: true, retry_after_ms: 3_600_000 });
  });

  it("an abort during the backoff sleep ends the wait at once", async () => {
    vi.useFakeTimers();
    const policy = { ...FAST_POLICY, baseDelayMs: 10_000, maxDelayMs: 10_000 };
    const fetch = scriptedFetch([() => jsonResponse(529, overloadedBody, { "retry-after": "10" }), ok]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1_000);
    let outcome: Awaited<ReturnType<typeof attempt>> | undefined;
    void attempt(fetch, policy, controller.signal).then((o) => (outcome = o));
    // The clock stops 1 ms short of the 10 s backoff: only the abort can have ended the wait.
    await vi.advanceTimersByTimeAsync(9_999);
    expect(outcome, "settled before the backoff ended").toBeDefined();
    expect(outcome?.notices).toHaveLength(1);
    expect(outcome?.failure?.error).toMatchObject({ code: "aborted", retryable: false });
    expect(fetch.calls).toHaveLength(1);
  });

  it("a connect timeout aborts the request and counts as a retryable failure", async () => {
    const policy = { ...FAST_POLICY, maxAttempts: 2, connectTimeoutMs: 20 };
    const fetch = scriptedFetch([() => hangingFetch]);
    const { failure, notices } = await attempt(fetch, policy);
    expect(fetch.calls).toHaveLength(2);
    expect(fetch.calls.every((c) => c.init.signal?.aborted)).toBe(true);
    expect(notices).toMatchObject([{ attempt: 1, status: 0, reason: "connect_timeout" }]);
    expect(failure?.error).toMatchObject({ code: "provider_unreachable", retryable: true });
  });
});

describe("retry helpers", () => {
  it("parses retry-after as seconds, HTTP date and retry-after-ms", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter(new Headers({ "retry-after": "2" }), now)).toBe(2000);
    expect(parseRetryAfter(new Headers({ "retry-after": "Wed, 01 Jan 2025 00:00:05 GMT" }), now)).toBe(5000);
    expect(parseRetryAfter(new Headers({ "retry-after": "Tue, 31 Dec 2024 00:00:00 GMT" }), now)).toBe(0);
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "150.5" }), now)).toBe(151);
    expect(parseRetryAfter(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined();
  });

  it("backoff is full jitter over a capped exponential", () => {
    const policy = { ...FAST_POLICY, baseDelayMs: 250, maxDelayMs: 8000 };
    expect(backoffDelay(0, policy, () => 0.999)).toBe(249);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(1000);
    expect(backoffDelay(10, policy, () => 0.5)).toBe(4000);
    expect(backoffDelay(10, policy, () => 0)).toBe(0);
  });

  it("the longest Retry-After slept on is four times the backoff cap", () => {
    expect(retryAfterCapMs({ ...FAST_POLICY, baseDelayMs: 250, maxDelayMs: 8000 })).toBe(32_000);
  });
});

describe("adapters report retries as stream events", () => {
  it("anthropic: a retry event precedes the answer", async () => {
    const fetch = scriptedFetch([() => jsonResponse(529, overloadedBody), ok]);
    const { events, failure } = await run(anthropic, fetch);
    expect(failure).toBeUndefined();
    expect(events[0]).toMatchObject({ type: "retry", attempt: 1, status: 529, reason: "overloaded" });
    expect(events[1]).toMatchObject({ type: "message_start" });
    expect(events.at(-1)).toEqual({ type: "message_stop", stop_reason: "end_turn" });
  });

  it("openai: the retry event is yielded before the backoff ends", async () => {
    const body = fixture("openai-chat-stream-text.sse");
    const fetch = scriptedFetch([
      () => jsonResponse(429, rateBody, { "retry-after-ms": "300" }),
      () => sseResponse(body),
    ]);
    const endpoint = { baseUrl: "https://p.test/v1", apiKey: "k", fetch };
    const policy = { ...FAST_POLICY, maxDelayMs: 1_000 };
    const gen = openai.stream(request("openai"), endpoint, policy, new AbortController().signal);
    const first = await gen.next();
    expect(first.value).toEqual({ type: "retry", attempt: 1, delay_ms: 300, status: 429, reason: "rate_limited" });
    // The second attempt follows the backoff: it has not been sent when the event arrives.
    expect(fetch.calls).toHaveLength(1);
    const rest = [];
    for await (const e of gen) rest.push(e);
    expect(rest.at(-1)).toEqual({ type: "message_stop", stop_reason: "end_turn" });
  });

  it("a failed step surfaces as a typed ProviderFailure", async () => {
    const fetch = scriptedFetch([() => jsonResponse(401, { type: "error", error: { message: "invalid x-api-key" } })]);
    const { failure } = await run(anthropic, fetch);
    expect(failure).toBeInstanceOf(ProviderFailure);
    expect(failure?.error).toMatchObject({ code: "provider_http_error", status: 401, retryable: false });
  });
});
