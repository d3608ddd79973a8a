/**
 * The limit on failed webhook signature checks per caller address: a signature check by the `standardwebhooks`
 * library costs up to 10 HMACs of a body of up to 1 MiB (about 100 ms of CPU) and needs no credential, so each
 * address may fail SIGNATURE_FAILURES_PER_MIN of them a minute; past that its signed requests are `429
 * rate_limited` with Retry-After before any HMAC, body read or D1 statement. Counted by the RateLimiter object of
 * the address, as API keys are by theirs.
 */
import type { ApiError } from "../http/errors";
import type { WorkerEnv } from "../http/types";
import { log } from "../observability/log";
import { parseIpv6 } from "../tools/outbound";
import { limiterOf, rateLimited } from "./enforce";
import type { TakeResult } from "./rate-limiter";

/**
 * Signature checks an address may fail a minute, and its burst (the bucket holds as many, refilled continuously):
 * at most about 1 s of HMAC work a minute per address, where a sender whose secret is wrong still sees its `401`
 * a few times before it is told to wait.
 */
export const SIGNATURE_FAILURES_PER_MIN = 10;

/** The subject of requests that carry no usable `cf-connecting-ip` (Cloudflare's edge always sets one). */
const NO_ADDRESS = "sig:unknown";

/**
 * The limiter subject of the caller whose address is `ip` (the `cf-connecting-ip` header): `sig:<IPv4>`, or
 * `sig:<first 64 bits>::/64` for IPv6, since one subscriber is handed a whole /64 and could otherwise spread over
 * 2^64 addresses (an address whose first 64 bits are zero, `::1` or `::ffff:a.b.c.d`, is kept whole). Without
 * the header, or with one that is no address (local development, the tests, a request from another worker:
 * Cloudflare's edge sets it on every request from the Internet), all such callers share one subject, so their
 * failed checks are bounded too.
 */
export function signatureSubject(ip: string | undefined): string {
  if (ip === undefined) return NO_ADDRESS;
  if (/^\d{1,3}(?:\.\d{1,3}){3}$/.test(ip)) return `sig:${ip}`;
  let host: string;
  try {
    host = new URL(`http://[${ip}]`).hostname.slice(1, -1);
  } catch {
    return NO_ADDRESS;
  }
  const groups = parseIpv6(host);
  if (!groups) return NO_ADDRESS;
  const prefix = groups.slice(0, 4);
  if (prefix.every((g) => g === 0)) return `sig:${host}`;
  return `sig:${prefix.map((g) => g.toString(16)).join(":")}::/64`;
}

/** What a signature check found: the verified value, or the refusal (`401 invalid_signature`) a failure answers. */
type SignatureCheck<T> = { ok: true; value: T } | { ok: false; error: ApiError };

/**
 * Runs `check` (a signed request's body read and its signature checked) within the failure limit of `subject`:
 * a token is taken from its bucket first, and with none left the request is `429 rate_limited` with Retry-After,
 * `check` never run. The token is given back (in the background, through `waitUntil`) unless the check ran and
 * failed, so a request that verified, or was refused for another reason (a body over the cap, D1 down), does not
 * count; and since a check holds its token while it runs, however many arrive at once an address never has more
 * than the bucket's tokens of HMAC work under way or failed within the minute. A limiter that cannot answer fails
 * open (logged), as it does for API keys.
 */
export async function withinSignatureFailureLimit<T>(
  env: WorkerEnv,
  waitUntil: (work: Promise<unknown>) => void,
  subject: string,
  check: () => Promise<SignatureCheck<T>>,
): Promise<T> {
  const limiter = limiterOf(env, subject);
  let took: TakeResult | null;
  try {
    took = await limiter.take(SIGNATURE_FAILURES_PER_MIN);
  } catch (e) {
    log("error", "rate_limiter_unavailable", { subject, error: String(e) });
    took = null;
  }
  if (took && !took.ok) {
    log("warn", "signature_failures_limited", { subject, retry_after_s: took.retry_after_s });
    throw rateLimited("too many failed webhook signature checks from this address", took.retry_after_s);
  }
  const taken = took !== null;
  let failed = false;
  try {
    const checked = await check();
    if (checked.ok) return checked.value;
    failed = true;
    throw checked.error;
  } finally {
    if (taken && !failed) {
      waitUntil(
        limiter.giveBack(SIGNATURE_FAILURES_PER_MIN).catch((e: unknown) => {
          log("error", "rate_limiter_unavailable", { subject, error: String(e) });
        }),
      );
    }
  }
}
