/** Token-bucket arithmetic, kept pure so it is unit-tested without a runtime. */

/** What one `take` answers: allowed, or how long until the next request would be. */
export interface TakeResult {
  ok: boolean;
  retry_after_s: number;
}

export interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date (ms since epoch). */
  at: number;
}

const MINUTE_MS = 60_000;

/**
 * Token-bucket state of a bucket that holds `perMin` tokens and refills at
 * `perMin` per minute, after `elapsedMs`. Pure, so it is unit-tested directly.
 */
function refill(bucket: Bucket, perMin: number, now: number): Bucket {
  const elapsed = Math.max(0, now - bucket.at);
  return { tokens: Math.min(perMin, bucket.tokens + (elapsed * perMin) / MINUTE_MS), at: now };
}

/**
 * When a bucket left alone is full again, whatever its limit: it refills `perMin` tokens a minute and holds
 * `perMin`, so a minute after its last update it is the same as a fresh one and need not be kept.
 */
export function fullAt(bucket: Bucket): number {
  return bucket.at + MINUTE_MS;
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
 * A bucket given back the token a take spent, for a request that turned out not to count (a webhook signature
 * that matched): refilled to `now` first, and never above `perMin`.
 */
export function giveBackTo(bucket: Bucket, perMin: number, now: number): Bucket {
  const current = refill(bucket, perMin, now);
  return { tokens: Math.min(perMin, current.tokens + 1), at: now };
}
