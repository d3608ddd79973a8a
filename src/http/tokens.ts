/**
 * Session tokens: short-lived bearer tokens for mobile and browser clients
 * that must not hold an API key. A token names one session of one tenant and
 * a set of actions; it is stateless (nothing is written per token) and signed
 * with HMAC-SHA256:
 *
 *   sbt_<base64url(JSON claims)>.<base64url(HMAC-SHA256(key, "sbt1." + claims part))>
 *
 * The "sbt1." prefix of the signed text is a version/domain tag, so a MAC made
 * for anything else can never verify as a token. The signing key is
 * SWITCHBOARD_TOKEN_SECRET, or else one derived from SWITCHBOARD_ADMIN_KEY with
 * HKDF (so rotating the admin key also invalidates every token).
 */
import type { Env } from "../env";
import { ApiError } from "./errors";

const TOKEN_PREFIX = "sbt_";
/** `approve` answers tool approvals; `send` alone does not include it. */
export const TOKEN_ACTIONS = ["send", "stream", "read", "approve"] as const;
export type TokenAction = (typeof TOKEN_ACTIONS)[number];

export const TTL_MIN_S = 60;
export const TTL_MAX_S = 86_400;
export const TTL_DEFAULT_S = 900;

/** Longest token we try to parse; real ones are under 500 characters. */
const MAX_TOKEN_CHARS = 2048;
const SIGNED_TAG = "sbt1.";
const HKDF_SALT = "switchboard/session-tokens";
const HKDF_INFO = "hmac-sha256 v1";

export interface TokenClaims {
  v: 1;
  /** Tenant and session the token is for. */
  ten: string;
  ses: string;
  /**
   * The incarnation of the session it was minted for (session/rpc-types.ts `incarnationOf`): a session created
   * again under the same id is another incarnation, which the token does not open. Absent in tokens minted
   * before tokens carried it; those are judged by `iat` (`SessionRecord.foreign`).
   */
  inc?: string;
  act: TokenAction[];
  /** Id of the API key that minted it: revoking that key revokes its tokens. */
  kid: string;
  /** Issued at / expires at, Unix seconds. */
  iat: number;
  exp: number;
  /** Unique id, for logs and any future deny list. */
  jti: string;
}

type VerifyResult =
  | { ok: true; claims: TokenClaims }
  | { ok: false; reason: "malformed" | "bad_signature" | "expired" };

import { b64url, fromB64url } from "../crypto/base64url";

const enc = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

/** The HMAC key, imported once per isolate; null when neither secret is configured. */
function signingKey(env: Env): Promise<CryptoKey> | null {
  const explicit = env.SWITCHBOARD_TOKEN_SECRET;
  const admin = env.SWITCHBOARD_ADMIN_KEY;
  const source = explicit ? `explicit:${explicit}` : admin ? `admin:${admin}` : null;
  if (!source) return null;
  let key = keys.get(source);
  if (!key) {
    const hmac = { name: "HMAC", hash: "SHA-256" } as const;
    key = explicit
      ? crypto.subtle.importKey("raw", enc.encode(explicit), hmac, false, ["sign", "verify"])
      : crypto.subtle
          .importKey("raw", enc.encode(admin ?? ""), "HKDF", false, ["deriveKey"])
          .then((base) =>
            crypto.subtle.deriveKey(
              { name: "HKDF", hash: "SHA-256", salt: enc.encode(HKDF_SALT), info: enc.encode(HKDF_INFO) },
              base,
              { ...hmac, length: 256 },
              false,
              ["sign", "verify"],
            ),
          );
    keys.set(source, key);
  }
  return key;
}

export function tokensConfigured(env: Env): boolean {
  return Boolean(env.SWITCHBOARD_TOKEN_SECRET || env.SWITCHBOARD_ADMIN_KEY);
}

export function isSessionToken(bearer: string): boolean {
  return bearer.startsWith(TOKEN_PREFIX);
}

/** Signs claims into a token. Throws when no secret is configured (callers check tokensConfigured first). */
export async function mintToken(env: Env, claims: TokenClaims): Promise<string> {
  const key = signingKey(env);
  if (!key) throw new Error("no token secret configured");
  const body = b64url(enc.encode(JSON.stringify(claims)));
  const mac = await crypto.subtle.sign("HMAC", await key, enc.encode(SIGNED_TAG + body));
  return `${TOKEN_PREFIX}${body}.${b64url(new Uint8Array(mac))}`;
}

function validClaims(value: unknown): value is TokenClaims {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const c = value as Record<string, unknown>;
  return (
    c.v === 1 &&
    typeof c.ten === "string" &&
    typeof c.ses === "string" &&
    (c.inc === undefined || typeof c.inc === "string") &&
    typeof c.kid === "string" &&
    typeof c.jti === "string" &&
    Number.isInteger(c.iat) &&
    Number.isInteger(c.exp) &&
    Array.isArray(c.act) &&
    c.act.every((a) => (TOKEN_ACTIONS as readonly unknown[]).includes(a))
  );
}

/**
 * Checks a token's signature first (crypto.subtle.verify compares in constant
 * time), and only then reads its claims, so nothing unauthenticated is parsed
 * beyond base64.
 */
export async function verifyToken(
  env: Env,
  token: string,
  nowS = Math.floor(Date.now() / 1000),
): Promise<VerifyResult> {
  if (!isSessionToken(token) || token.length > MAX_TOKEN_CHARS) return { ok: false, reason: "malformed" };
  const [body, sig, ...rest] = token.slice(TOKEN_PREFIX.length).split(".");
  const mac = sig === undefined ? null : fromB64url(sig);
  if (!body || !mac || rest.length > 0) return { ok: false, reason: "malformed" };
  const key = signingKey(env);
  if (!key) return { ok: false, reason: "bad_signature" };
  const good = await crypto.subtle.verify("HMAC", await key, mac, enc.encode(SIGNED_TAG + body));
  if (!good) return { ok: false, reason: "bad_signature" };
  const raw = fromB64url(body);
  let claims: unknown;
  try {
    claims = raw ? JSON.parse(new TextDecoder().decode(raw)) : null;
  } catch {
    return { ok: false, reason: "malformed" };
  }
  if (!validClaims(claims)) return { ok: false, reason: "malformed" };
  if (claims.exp <= nowS) return { ok: false, reason: "expired" };
  return { ok: true, claims };
}

/** Verifies a presented token or throws the 401 a client should see (expired tokens get their own code, so apps know to mint a new one). */
export async function verifiedClaims(env: Env, token: string): Promise<TokenClaims> {
  const v = await verifyToken(env, token);
  if (v.ok) return v.claims;
  if (v.reason === "expired") throw new ApiError(401, "token_expired", "the session token has expired");
  throw new ApiError(401, "unauthorized", "invalid session token");
}
