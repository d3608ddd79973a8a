/**
 * Per-request rate limiting of API keys and session tokens: `enforceRateLimit` counts one request and throws 429
 * rate_limited with Retry-After when over the limit. The default limit uses the Workers rate-limit binding; a
 * per-key override or a configured default uses the exact RateLimiter object. An unreachable limiter fails open.
 * Also the `429` and the RateLimiter stub that the limit on failed webhook signatures (signature-failures.ts) shares.
 */
import { ApiError } from "../http/errors";
import type { WorkerEnv } from "../http/types";
import { log } from "../observability/log";
import type { TakeResult } from "./rate-limiter";

/** The default when SWITCHBOARD_RATE_LIMIT_PER_MIN is unset and no binding is bound (the binding's own limit is in wrangler.toml). */
const DEFAULT_RATE_LIMIT_PER_MIN = 600;

/** Requests per minute from an env value; undefined when unset or not a non-negative integer. */
function parseLimit(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** What limits a subject: the Workers binding (its configured limit), the exact DO limiter at `perMin`, or nothing. */
type Mechanism = { kind: "binding" } | { kind: "object"; perMin: number } | { kind: "none" };

/**
 * Chooses the mechanism. The binding is cheap (no round trip to one place)
 * but its limit is fixed in wrangler.toml, so it serves only the default
 * limit; a per-key override or an explicitly configured default needs the
 * exact limiter, which takes the limit per call. 0 means unlimited.
 */
function mechanismFor(env: WorkerEnv, override: number | null): Mechanism {
  const configured = parseLimit(env.SWITCHBOARD_RATE_LIMIT_PER_MIN);
  if (override === null && configured === undefined && env.RATE_LIMIT) return { kind: "binding" };
  const perMin = override ?? configured ?? DEFAULT_RATE_LIMIT_PER_MIN;
  return perMin > 0 ? { kind: "object", perMin } : { kind: "none" };
}

/** The `429 rate_limited` of a subject over its limit: `reason` says what there was too much of, from whom. */
export function rateLimited(reason: string, retryAfterS: number): ApiError {
  return new ApiError(429, "rate_limited", `${reason}; retry after ${retryAfterS} s`, {
    "retry-after": String(retryAfterS),
  });
}

/** The exact limiter (the RateLimiter object) of one subject. */
export function limiterOf(
  env: WorkerEnv,
  subject: string,
): { take(perMin: number): Promise<TakeResult>; giveBack(perMin: number): Promise<void> } {
  return env.RATE_LIMITER.getByName(subject) as unknown as ReturnType<typeof limiterOf>;
}

/**
 * Counts one request for `subject` (`key:<id>` or `ses:<tenant>:<id>`) and
 * throws 429 rate_limited with Retry-After when it is over its limit.
 */
export async function enforceRateLimit(env: WorkerEnv, subject: string, override: number | null): Promise<void> {
  const mechanism = mechanismFor(env, override);
  if (mechanism.kind === "none") return;
  let retryAfterS: number | null;
  try {
    retryAfterS = await take(env, mechanism, subject);
  } catch (e) {
    // A limiter that cannot answer (the binding or the object) must not take the API down with it: fail open, loudly.
    log("error", "rate_limiter_unavailable", { subject, error: String(e) });
    return;
  }
  if (retryAfterS === null) return;
  const what = subject.startsWith("ses:") ? "this session's token" : "this API key";
  throw rateLimited(`too many requests for ${what}`, retryAfterS);
}

/** Counts one request; the wait in seconds when it is over its limit, null when it may go on. */
async function take(env: WorkerEnv, mechanism: Exclude<Mechanism, { kind: "none" }>, subject: string) {
  if (mechanism.kind === "binding") {
    const outcome = await env.RATE_LIMIT?.limit({ key: subject });
    // The binding does not say when its window ends; its period is 60 s, so that is the safe wait.
    return outcome && !outcome.success ? 60 : null;
  }
  const result = await limiterOf(env, subject).take(mechanism.perMin);
  return result.ok ? null : result.retry_after_s;
}
