import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { type Bucket, type TakeResult, takeFrom } from "./bucket";

export type { TakeResult } from "./bucket";

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
