// The web client's error sentences: what a person reads for each API failure.
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiFailure, describeFailure, friendlyFetch, readRetryAfterS } from "../../../web/src/errors.ts";

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("describeFailure", () => {
  it("tells how long to wait on 429, from Retry-After", () => {
    expect(describeFailure(429, "rate_limited", "too many requests", 7)).toBe(
      "Too many messages at once. Try again in 7 seconds.",
    );
  });

  it("says an expired link has expired", () => {
    expect(describeFailure(401, "token_expired", "the session token has expired", null)).toMatch(/expired/);
  });

  it("tells a person whose link expired to ask for a new one, not to run a developer's command", () => {
    expect(describeFailure(401, "token_expired", "the session token has expired", null)).toBe(
      "Your session link has expired. Ask for a new one.",
    );
  });

  it("keeps the API's own message for codes it has no sentence for", () => {
    expect(describeFailure(400, "invalid_request", "content: must not be empty", null)).toBe(
      "content: must not be empty",
    );
  });
});

describe("friendlyFetch", () => {
  it("throws an ApiFailure carrying the status, the code and the sentence", async () => {
    vi.stubGlobal("fetch", async () =>
      Response.json(
        { error: { code: "rate_limited", message: "slow down" } },
        { status: 429, headers: { "retry-after": "3" } },
      ),
    );
    const failure = await friendlyFetch("http://x/v1/sessions/s/chat").catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiFailure);
    expect(failure).toMatchObject({ status: 429, code: "rate_limited", message: expect.stringContaining("3 seconds") });
  });

  it("turns a network failure into a sentence", async () => {
    vi.stubGlobal("fetch", async () => {
      throw new TypeError("fetch failed");
    });
    await expect(friendlyFetch("http://x/")).rejects.toThrow(/Cannot reach the server/);
  });
});

describe("a failed history read", () => {
  it("says a rate-limited read is too many requests, not too many messages", () => {
    expect(describeFailure(429, "rate_limited", "too many requests", 5, true)).toBe(
      "Too many requests. Try again in 5 seconds.",
    );
  });

  it("is worded as a read when friendlyFetch's request is a GET", async () => {
    vi.stubGlobal("fetch", async () =>
      Response.json({ error: { code: "rate_limited", message: "slow down" } }, { status: 429 }),
    );
    await expect(friendlyFetch("http://x/v1/sessions/s-read-429/messages")).rejects.toThrow(/^Too many requests/);
  });

  it("can be retried after the response's Retry-After when rate-limited, at once when unreachable or a 5xx", () => {
    expect(readRetryAfterS(new ApiFailure(429, "rate_limited", "Too many requests.", 7))).toBe(7);
    expect(readRetryAfterS(new ApiFailure(0, "network_error", "Cannot reach the server."))).toBe(0);
    expect(readRetryAfterS(new ApiFailure(503, "http_error", "The server had a problem."))).toBe(0);
  });

  it("is not retried when trying again cannot help (an expired link, a deleted session)", () => {
    expect(readRetryAfterS(new ApiFailure(401, "token_expired", "expired"))).toBeNull();
    expect(readRetryAfterS(new ApiFailure(404, "not_found", "gone"))).toBeNull();
  });
});
