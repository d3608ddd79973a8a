import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";

/** What one `take` answers: allowed, or how long until the next request would be. */
export interface TakeResult {
  ok: boolean;
  retry_after_s: number;
}

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date (ms since epoch). */
  at: number;
}

const MINUTE_MS = 60_000;

/**
 * Token-bucket state of a bucket that holds `perMin` tokens and refills at
 * `perMin` per minute, after `elapsedMs`. Pure, so it is unit-tested directly.
 */
export function refill(bucket: Bucket, perMin: number, now: number): Bucket {
  const elapsed = Math.max(0, now - bucket.at);
  return { tokens: Math.min(perMin, bucket.tokens + (elapsed * perMin) / MINUTE_MS), at: now };
}

export function takeFrom(bucket: Bucket | null, perMin: number, now: number): { bucket: Bucket; result: TakeResult } {
  const current = refill(bucket ?? { tokens: perMin, at: now }, perMin, now);
  if (current.tokens >= 1) {
    return { bucket: { ...current, tokens: current.tokens - 1 }, result: { ok: true, retry_after_s: 0 } };
  }
  const waitMs = ((1 - current.tokens) * MINUTE_MS) / perMin;
  return { bucket: current, result: { ok: false, retry_after_s: Math.max(1, Math.ceil(waitMs / 1000)) } };
}

/**
 * One rate-limit subject (an API key, or a session token's session) per
 * object, named by the subject. The bucket lives in memory and is written to
 * storage on every take, so an evicted object resumes with the same count
 * instead of handing out a fresh burst. The limit comes with each call, so a
 * changed per-key override applies at once.
 */
export class RateLimiter extends DurableObject<Env> {
  #bucket: Bucket | null | undefined;

  take(perMin: number): TakeResult {
    if (!(perMin > 0)) return { ok: true, retry_after_s: 0 };
    if (this.#bucket === undefined) this.#bucket = this.ctx.storage.kv.get<Bucket>("bucket") ?? null;
    const { bucket, result } = takeFrom(this.#bucket, perMin, Date.now());
    this.#bucket = bucket;
    this.ctx.storage.kv.put("bucket", bucket);
    return result;
  }
}
