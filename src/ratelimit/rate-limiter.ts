/**
 * The rate-limit Durable Object: `RateLimiter.take(perMin)` spends one token from its subject's bucket and
 * answers allowed or the seconds to wait; a limit of 0 or less is no limit. `giveBack(perMin)` returns a token
 * taken for a request that turned out not to count.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { type Bucket, fullAt, giveBackTo, type TakeResult, takeFrom } from "./bucket";

export type { TakeResult } from "./bucket";

/**
 * One rate-limit subject (an API key, a session token's session, or the
 * address of signed webhook requests) per object, named by the subject. The bucket lives in memory and is written to
 * storage on every take, so an evicted object resumes with the same count
 * instead of handing out a fresh burst. The limit comes with each call, so a
 * changed per-key override applies at once. A bucket that has refilled
 * (a minute without a request) is the same as none: an alarm then deletes
 * it, so a key or session that is gone leaves nothing behind.
 */
export class RateLimiter extends DurableObject<Env> {
  #bucket: Bucket | null | undefined;
  /** Whether this instance has set the alarm (one write a minute at most, not one per take). */
  #armed = false;

  take(perMin: number): TakeResult {
    if (!(perMin > 0)) return { ok: true, retry_after_s: 0 };
    const { bucket, result } = takeFrom(this.#stored(), perMin, Date.now());
    this.#bucket = bucket;
    this.ctx.storage.kv.put("bucket", bucket);
    if (!this.#armed) {
      this.#armed = true;
      void this.ctx.storage.setAlarm(fullAt(bucket));
    }
    return result;
  }

  /**
   * Returns the token a `take` spent (the failed-signature limit takes one before a verification and gives it back
   * when the signature matched, src/ratelimit/signature-failures.ts). A bucket already deleted was full: nothing to do.
   */
  giveBack(perMin: number): void {
    const bucket = this.#stored();
    if (!(perMin > 0) || !bucket) return;
    this.#bucket = giveBackTo(bucket, perMin, Date.now());
    this.ctx.storage.kv.put("bucket", this.#bucket);
  }

  /** Deletes a bucket that has refilled; one still refilling is looked at again when it will have. */
  override async alarm(): Promise<void> {
    const bucket = this.#stored();
    this.#armed = false;
    if (!bucket) return;
    if (Date.now() >= fullAt(bucket)) {
      this.ctx.storage.kv.delete("bucket");
      this.#bucket = null;
      return;
    }
    this.#armed = true;
    await this.ctx.storage.setAlarm(fullAt(bucket));
  }

  #stored(): Bucket | null {
    if (this.#bucket === undefined) this.#bucket = this.ctx.storage.kv.get<Bucket>("bucket") ?? null;
    return this.#bucket;
  }
}
