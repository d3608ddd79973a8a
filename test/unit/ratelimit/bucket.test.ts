// The token bucket (src/ratelimit/bucket.ts): a burst of the limit, refill per minute, and a lowered limit applied at
// once.
import { describe, expect, it } from "vitest";
import { giveBackTo, takeFrom } from "../../../src/ratelimit/bucket";

describe("token bucket", () => {
  it("allows a burst of the limit, then refills at limit per minute", () => {
    let bucket = null;
    const t0 = 1_000_000;
    for (let i = 0; i < 3; i++) {
      const r = takeFrom(bucket, 3, t0);
      expect(r.result.ok).toBe(true);
      bucket = r.bucket;
    }
    const denied = takeFrom(bucket, 3, t0);
    expect(denied.result).toEqual({ ok: false, retry_after_s: 20 });
    expect(takeFrom(denied.bucket, 3, t0 + 20_000).result.ok).toBe(true);
  });

  it("a lowered limit caps the stored tokens at once", () => {
    const full = takeFrom(null, 100, 0).bucket;
    expect(takeFrom(full, 1, 0).result.ok).toBe(true);
    expect(takeFrom(takeFrom(full, 1, 0).bucket, 1, 0).result.ok).toBe(false);
  });
});

describe("a token given back", () => {
  it("is spendable again at once, and never lifts a bucket above its limit", () => {
    const spent = takeFrom(takeFrom(null, 2, 0).bucket, 2, 0).bucket;
    expect(takeFrom(spent, 2, 0).result.ok).toBe(false);
    expect(takeFrom(giveBackTo(spent, 2, 0), 2, 0).result.ok).toBe(true);
    expect(giveBackTo(takeFrom(null, 2, 0).bucket, 2, 30_000).tokens).toBe(2);
  });
});
