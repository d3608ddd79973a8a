/**
 * The signature of an approval: HMAC-SHA256, under the session's own key, of what the approval is for (its session,
 * id, call and the call's exact input in canonical JSON, tagged `sb-approval-v1`), so an answer that carries it is
 * bound to them. The key's text (32 random bytes, base64url) is made here and kept by `ApprovalStore` in `meta`.
 */
import { b64url, fromB64url } from "../crypto/base64url";
import { canonical } from "../model/json";

const enc = new TextEncoder();
const SIGNED_TAG = "sb-approval-v1";
/** A signing key's bytes. */
const KEY_BYTES = 32;
/** Longer presented signatures are refused unread (a SHA-256 MAC is 43 characters). */
const MAX_SIGNATURE_CHARS = 200;

/** The session's signing key, made or read on first use (`ApprovalStore`). */
type KeySource = () => Promise<CryptoKey>;

/** What an approval's signature binds. */
export interface Signed {
  session: string;
  approvalId: string;
  callId: string;
  name: string;
  input: unknown;
}

function payload(s: Signed): Uint8Array {
  return enc.encode([SIGNED_TAG, s.session, s.approvalId, s.callId, s.name, canonical(s.input)].join("\n"));
}

/** A new signing key's text: KEY_BYTES random bytes, base64url. */
export function newKeyText(): string {
  return b64url(crypto.getRandomValues(new Uint8Array(KEY_BYTES)));
}

/** The HMAC key a key's text holds (KEY_BYTES zero bytes when the text is not base64url). */
export function importKeyText(text: string): Promise<CryptoKey> {
  const bytes = fromB64url(text) ?? new Uint8Array(KEY_BYTES);
  return crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

/** The signature of `signed` under the key, base64url. */
export async function signApproval(key: KeySource, signed: Signed): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await key(), payload(signed));
  return b64url(new Uint8Array(mac));
}

/**
 * Constant-time check (crypto.subtle.verify) of a presented signature of `signed` under the key, which is asked
 * for only once the signature decodes: a malformed one is refused without it.
 */
export async function verifyApproval(key: KeySource, signature: string, signed: Signed): Promise<boolean> {
  const mac = signature.length > MAX_SIGNATURE_CHARS ? null : fromB64url(signature);
  if (!mac || mac.length === 0) return false;
  return crypto.subtle.verify("HMAC", await key(), mac, payload(signed));
}
