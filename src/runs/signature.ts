/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com), through the
 * reference `standardwebhooks` library: HMAC-SHA256 over
 * `${webhook-id}.${webhook-timestamp}.${body}` with a `whsec_`+base64 secret.
 * The library is plain JavaScript (its own SHA-256, no WebCrypto, no eval),
 * so the same code verifies in workerd and signs in Node tests.
 */
import { Webhook, WebhookVerificationError } from "standardwebhooks";

export const TOLERANCE_S = 5 * 60;

/**
 * The fewest key bytes `PUT /v1/agents` takes: Standard Webhooks recommends 24 to 64 random bytes, and a short key
 * can be guessed (a 1-byte one in at most 256 tries), letting anyone sign runs.
 */
export const MIN_SECRET_BYTES = 24;

interface SignedHeaders {
  id: string;
  timestamp: string;
  signature: string;
}

type Verdict = { ok: true } | { ok: false; message: string };

/** A secret the library cannot decode (not base64) can never verify; it is skipped, not fatal. */
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

/**
 * Verifies a request against every secret of the agent (rotation: the old
 * and the new secret are both valid while both are listed). The timestamp is
 * checked first so a stale request gets a precise reason.
 */
export function verifySigned(secrets: readonly string[], h: SignedHeaders, body: string, nowMs = Date.now()): Verdict {
  if (!/^\d{1,12}$/.test(h.timestamp)) return { ok: false, message: "webhook-timestamp must be integer seconds" };
  const skew = Math.floor(nowMs / 1000) - Number(h.timestamp);
  if (skew > TOLERANCE_S) return { ok: false, message: "webhook-timestamp is more than 5 minutes old" };
  if (skew < -TOLERANCE_S) return { ok: false, message: "webhook-timestamp is more than 5 minutes in the future" };
  const headers = { "webhook-id": h.id, "webhook-timestamp": h.timestamp, "webhook-signature": h.signature };
  for (const secret of secrets) {
    const wh = webhookFor(secret);
    if (!wh) continue;
    try {
      wh.verify(body, headers, { jsonParse: false });
      return { ok: true };
    } catch (e) {
      if (!(e instanceof WebhookVerificationError)) throw e;
    }
  }
  return { ok: false, message: "no signature matches any of the agent's webhook secrets" };
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
