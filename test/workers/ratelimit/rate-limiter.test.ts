// The RateLimiter object's own storage: a refilled bucket is deleted by the alarm, so a subject that stops
// sending (a revoked key, a deleted session) leaves nothing behind; a bucket still refilling is kept.
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Bucket } from "../../../src/ratelimit/bucket";
import type { RateLimiter } from "../../../src/ratelimit/rate-limiter";

const MINUTE_MS = 60_000;

function limiter(subject: string): DurableObjectStub<RateLimiter> {
  return env.RATE_LIMITER.getByName(subject);
}

async function stored(subject: string): Promise<{ bucket: Bucket | undefined; alarm: number | null }> {
  return runInDurableObject(limiter(subject), async (_i, state) => ({
    bucket: state.storage.kv.get<Bucket>("bucket"),
    alarm: await state.storage.getAlarm(),
  }));
}

describe("RateLimiter storage", () => {
  it("a take keeps the bucket and sets an alarm for when it will have refilled", async () => {
    const subject = "key:limiter-arms";
    await limiter(subject).take(5);
    const { bucket, alarm } = await stored(subject);
    expect(bucket?.tokens).toBeCloseTo(4, 1);
    expect(alarm).toBe(bucket!.at + MINUTE_MS);
  });

  it("the alarm keeps a bucket that is still refilling and looks again when it will have", async () => {
    const subject = "key:limiter-refilling";
    await limiter(subject).take(5);
    await limiter(subject).take(5);
    expect(await runDurableObjectAlarm(limiter(subject))).toBe(true);
    const { bucket, alarm } = await stored(subject);
    expect(bucket?.tokens).toBeCloseTo(3, 1);
    expect(alarm).toBe(bucket!.at + MINUTE_MS);
  });

  it("the alarm deletes a bucket a minute after its last request, and the next request starts a full one", async () => {
    const subject = "ses:limiter-tenant:gone";
    await limiter(subject).take(2);
    await limiter(subject).take(2);
    // The last request was over a minute ago (written as such; a fresh instance reads it back).
    await runInDurableObject(limiter(subject), (_i, state) => {
      state.storage.kv.put("bucket", { tokens: 0, at: Date.now() - MINUTE_MS - 1 } satisfies Bucket);
    });
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(limiter(subject))).toBe(true);
    expect(await stored(subject)).toEqual({ bucket: undefined, alarm: null });

    expect(await limiter(subject).take(2)).toEqual({ ok: true, retry_after_s: 0 });
    expect((await stored(subject)).bucket?.tokens).toBeCloseTo(1, 1);
  });
});
