// The providers' real context-length 400 bodies become one typed, retryable `context_overflow` failure
// that is never re-sent as is (the turn compacts and retries the step instead).
import { describe, expect, it } from "vitest";
import { anthropicCodec } from "../../../../mock/anthropic.ts";
import { openaiCodec } from "../../../../mock/openai.ts";
import { fetchWithRetry } from "../../../../src/providers/retry";
import { ProviderFailure } from "../../../../src/providers/types";
import { estimateTokens } from "../../../../src/session/compaction/estimate";
import { FAST_POLICY, scriptedFetch } from "../../providers/helpers";

async function failureFor(body: string) {
  let calls = 0;
  const fetch = scriptedFetch([
    () => {
      calls++;
      return new Response(body, { status: 400, headers: { "content-type": "application/json" } });
    },
  ]);
  try {
    await fetchWithRetry(
      "https://p.test/x",
      { method: "POST" },
      FAST_POLICY,
      new AbortController().signal,
      fetch,
      () => {},
    );
  } catch (e) {
    if (e instanceof ProviderFailure) return { error: e.error, calls };
    throw e;
  }
  throw new Error("no failure");
}

describe("context overflow", () => {
  it("Anthropic's 400 'prompt is too long' is context_overflow, retryable, sent once", async () => {
    const body = anthropicCodec.errorBody(anthropicCodec.overflowError(9000, 8000, 0), "req_1");
    const { error, calls } = await failureFor(body);
    expect(error.code).toBe("context_overflow");
    expect(error.retryable).toBe(true);
    expect(calls).toBe(1);
  });

  it("OpenAI's 400 context_length_exceeded is context_overflow", async () => {
    const body = openaiCodec.errorBody(openaiCodec.overflowError(9000, 8000, 0), "req_1");
    expect(JSON.parse(body).error.code).toBe("context_length_exceeded");
    const { error } = await failureFor(body);
    expect(error.code).toBe("context_overflow");
  });

  it("another 400 stays a non-retryable provider_http_error", async () => {
    const { error } = await failureFor(
      JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "bad" } }),
    );
    expect(error).toMatchObject({ code: "provider_http_error", retryable: false });
  });
});

describe("token estimate", () => {
  it("is the text estimate without a report, and the reported tokens plus what was added since with one", () => {
    expect(estimateTokens(1000, null)).toBe(1000);
    expect(estimateTokens(1500, { estimated: 1000, tokens: 1500 })).toBe(2000);
  });
});
