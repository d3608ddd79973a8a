/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com), through the
 * reference `standardwebhooks` library: HMAC-SHA256 over
 * `${webhook-id}.${webhook-timestamp}.${body}` with a `whsec_`+base64 secret.
 * The library is plain JavaScript (its own SHA-256, no WebCrypto, no eval),
 * so the same code verifies in workerd and signs in Node tests.
 */
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { MAX_KEY_CHARS } from "../storage/limits";

/**
 * How far (s) a webhook-timestamp may be from now: the library's own tolerance, which it does not export (nor its
 * timestamp check: `verifyTimestamp` is private), so `checkHeaders` can refuse a stale request before its body is
 * read; `verify` checks it again by the library's constant. test/unit/runs/signature.test.ts pins the two together.
 */
export const TOLERANCE_S = 5 * 60;

/**
 * How many `webhook_secrets` an agent may list (the schema's maxItems): also how many secrets every failed
 * verification tries, padded with stand-ins, so its cost does not tell whether the agent exists or how many secrets
 * it has.
 */
export const MAX_WEBHOOK_SECRETS = 10;

/** The longest `webhook-id` taken: it is also the run's idempotency key. */

/**
 * The fewest key bytes `PUT /v1/agents` takes: Standard Webhooks recommends 24 to 64 random bytes, and a short key
 * can be guessed (a 1-byte one in at most 256 tries), letting anyone sign runs.
 */
export const MIN_SECRET_BYTES = 24;

export interface SignedHeaders {
  id: string;
  timestamp: string;
  signature: string;
}

type Verdict = { ok: true } | { ok: false; message: string };

/** A secret the library cannot decode (not base64) can never verify; a stand-in takes its place, it is not fatal. */
function webhookFor(secret: string): Webhook | null {
  try {
    return new Webhook(secret);
  } catch {
    return null;
  }
}

/**
 * Whether the library can decode `secret` (base64, `whsec_` prefix optional): only such a secret verifies or
 * signs anything, so `PUT /v1/agents` refuses any other.
 */
export function usableSecret(secret: string): boolean {
  return webhookFor(secret) !== null;
}

/**
 * The HMAC key `secret` stands for: its base64 part after an optional `whsec_`, decoded; null when that is not
 * canonical padded base64 or is empty.
 */
export function secretKey(secret: string): Uint8Array | null {
  const b64 = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret;
  if (!b64 || !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(b64)) return null;
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

/**
 * The secret outbound deliveries (callbacks, approval notices) are signed with: the first usable one, so an
 * agent stored before secrets were checked still signs with a good one listed after a bad one.
 */
export function signingSecret(secrets: readonly string[]): string | undefined {
  return secrets.find(usableSecret);
}

/** What a signature matching no secret is told; also a signature header that could match none (no `v1,` HMAC). */
const NO_MATCH = "no signature matches any of the agent's webhook secrets";

/** A `webhook-signature` entry the library can match: `v1,` and a base64 HMAC-SHA256 (32 bytes, 44 characters). */
const V1_SIGNATURE = /^v1,[A-Za-z0-9+/]{43}=$/;

/**
 * Whether the headers can verify at all, before the body or the agent is read: a `webhook-id` of at most 255
 * characters, a timestamp in integer seconds within TOLERANCE_S of now (stale first, for a precise reason) and at
 * least one signature of the form the library compares. Refused here or by `verifySigned`, the answer is the same.
 */
export function checkHeaders(h: SignedHeaders, nowMs = Date.now()): Verdict {
  if (h.id.length > MAX_KEY_CHARS)
    return { ok: false, message: `webhook-id must be at most ${MAX_KEY_CHARS} characters` };
  if (!/^\d{1,12}$/.test(h.timestamp)) return { ok: false, message: "webhook-timestamp must be integer seconds" };
  const skew = Math.floor(nowMs / 1000) - Number(h.timestamp);
  if (skew > TOLERANCE_S) return { ok: false, message: "webhook-timestamp is more than 5 minutes old" };
  if (skew < -TOLERANCE_S) return { ok: false, message: "webhook-timestamp is more than 5 minutes in the future" };
  if (!h.signature.split(" ").some((s) => V1_SIGNATURE.test(s))) return { ok: false, message: NO_MATCH };
  return { ok: true };
}

/** A webhook nobody can sign for (a random key per call), to verify against where the agent has no secret. */
function standIn(): Webhook {
  return new Webhook(crypto.getRandomValues(new Uint8Array(32)), { format: "raw" });
}

/**
 * Verifies a request against every secret of the agent (rotation: the old and the new secret are both valid while
 * both are listed), after `checkHeaders`. A failure always costs MAX_WEBHOOK_SECRETS verifications by the library:
 * the slots past the agent's secrets (all of them for an agent that does not exist, `secrets` empty) and any secret
 * the library cannot decode are verified against a stand-in instead, so whoever holds no secret cannot tell from
 * the time a refusal takes which agents exist or how many secrets they have. A match stops at once.
 */
export function verifySigned(secrets: readonly string[], h: SignedHeaders, body: string, nowMs = Date.now()): Verdict {
  const checked = checkHeaders(h, nowMs);
  if (!checked.ok) return checked;
  const headers = { "webhook-id": h.id, "webhook-timestamp": h.timestamp, "webhook-signature": h.signature };
  const fallback = standIn();
  for (let slot = 0; slot < Math.max(MAX_WEBHOOK_SECRETS, secrets.length); slot++) {
    const secret = secrets[slot];
    const wh = (secret === undefined ? null : webhookFor(secret)) ?? fallback;
    try {
      wh.verify(body, headers, { jsonParse: false });
      // Nobody holds the stand-in's random key: only one of the agent's secrets can have matched.
      if (wh !== fallback) return { ok: true };
    } catch (e) {
      if (!(e instanceof WebhookVerificationError)) throw e;
    }
  }
  return { ok: false, message: NO_MATCH };
}

/** Headers for an outbound signed delivery (callbacks); null when the secret cannot sign. */
export function signHeaders(secret: string, id: string, body: string, at = new Date()): Record<string, string> | null {
  const wh = webhookFor(secret);
  if (!wh) return null;
  return {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": wh.sign(id, at, body),
  };
}
