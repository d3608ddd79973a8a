/**
 * Bearer-credential middleware factories for the HTTP API: `requireAdmin()` (constant-time match against
 * SWITCHBOARD_ADMIN_KEY) and `requireTenant(opts)` (an API key, looked up by its SHA-256 hash unless it is not of
 * the minted form; sets `tenant` and `principal`; `orAdmin` lets the admin key through too, `orSigned` a request
 * with no Authorization header, for a webhook signature). Both throw ApiError before `next()` runs: 401 for a
 * missing or unknown credential, 403 for a valid one of the wrong kind (admin key, API key, session token). Also
 * `newApiKey` (mints `sk_sb_` keys) and `bearer` (reads the Authorization header, 401 when missing).
 */
import type { Context, MiddlewareHandler } from "hono";
import { b64url } from "../crypto/base64url";
import { sha256Hex } from "../crypto/sha256";
import type { KeyInfo } from "../d1/keys";
import { enforceRateLimit } from "../ratelimit/enforce";
import { checkTenantOrigin } from "./cors";
import { keyByHash } from "./directory";
import { ApiError } from "./errors";
import { isSessionToken, verifiedClaims } from "./tokens";
import type { AppEnv } from "./types";

/** Constant-time comparison of two secrets (hashed first, so lengths never leak). */
async function sameSecret(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([sha256Hex(a), sha256Hex(b)]);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x.charCodeAt(i) ^ y.charCodeAt(i);
  return diff === 0;
}

export function bearer(c: Context): string {
  const header = c.req.header("authorization") ?? "";
  const m = header.match(/^Bearer\s+(\S+)$/i);
  if (!m?.[1]) throw new ApiError(401, "unauthorized", "missing or malformed Authorization: Bearer header");
  return m[1];
}

/** What `newApiKey` mints: `sk_sb_` and 32 random bytes in unpadded base64url (43 characters). */
const API_KEY_FORM = /^sk_sb_[A-Za-z0-9_-]{43}$/;

export function newApiKey(): string {
  return `sk_sb_${b64url(crypto.getRandomValues(new Uint8Array(32)))}`;
}

/**
 * The live API key `token` is, or null. A token that is not of the minted form is no key, answered without a D1
 * read: otherwise every distinct made-up bearer would cost a replica read and a primary read.
 */
async function apiKey(c: Context<AppEnv>, token: string): Promise<KeyInfo | null> {
  return API_KEY_FORM.test(token) ? keyByHash(c, await sha256Hex(token)) : null;
}

/** Whether the request's bearer credential is the admin key (false when none is configured). */
async function isAdminKey(c: Context<AppEnv>): Promise<boolean> {
  const admin = c.env.SWITCHBOARD_ADMIN_KEY;
  return Boolean(admin) && (await sameSecret(bearer(c), admin ?? ""));
}

/**
 * The admin key alone. A valid credential of another kind (an API key, a
 * verified session token) is the wrong kind, 403, so a caller knows to use the
 * admin key rather than to fix or re-mint what it sent; anything else is 401.
 * Mounted on each admin route, never on a prefix: an unknown path or method
 * under /v1/agents, /v1/keys or /v1/tenants is then a 404 whoever asks.
 */
export function requireAdmin(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (await isAdminKey(c)) return next();
    const token = bearer(c);
    if (isSessionToken(token)) {
      await verifiedClaims(c.env, token); // 401 unless it verifies
    } else if (!(await apiKey(c, token))) {
      throw new ApiError(401, "unauthorized", "an admin key is required");
    }
    throw new ApiError(403, "forbidden", "an admin key is required");
  };
}

interface TenantOptions {
  /** The admin key passes too, as principal `{ kind: "admin" }` and no tenant (a route over every tenant's runs). */
  orAdmin?: boolean;
  /** A request with no Authorization header passes unauthenticated, for the route to check its webhook signature. */
  orSigned?: boolean;
}

/**
 * Resolves the tenant of an API key (keys are stored only as SHA-256 hashes;
 * the lookup is cached in the isolate, see directory.ts), checks a browser
 * Origin against the tenant's CORS list and counts the request against the
 * key's rate limit (a refused origin is not counted). A session token (once it verifies)
 * and the admin key are refused with 403 (unless `orAdmin`): these routes need an API key itself.
 */
export function requireTenant(opts: TenantOptions = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (opts.orSigned && c.req.header("authorization") === undefined) return next();
    if (opts.orAdmin && (await isAdminKey(c))) {
      c.set("principal", { kind: "admin" });
      return next();
    }
    await tenantOf(c);
    await next();
  };
}

/** `requireTenant`'s check: sets the tenant and principal of the request's API key, or throws. */
async function tenantOf(c: Context<AppEnv>): Promise<void> {
  const token = bearer(c);
  if (isSessionToken(token)) {
    await verifiedClaims(c.env, token);
    throw new ApiError(403, "forbidden", "a session token cannot be used here; this route needs an API key");
  }
  const row = await apiKey(c, token);
  if (!row) {
    // Checked only once the lookup misses, so a real API key pays nothing for it.
    if (await isAdminKey(c)) {
      throw new ApiError(403, "forbidden", "the admin key cannot be used here; mint an API key with POST /v1/keys");
    }
    throw new ApiError(401, "unauthorized", "invalid or revoked API key");
  }
  c.set("tenant", row.tenant);
  c.set("principal", { kind: "key", keyId: row.id });
  // The origin first: a page the tenant does not allow must not spend the key's budget, which its app then lacks.
  await checkTenantOrigin(c, row.tenant);
  await enforceRateLimit(c.env, `key:${row.id}`, row.rate_limit_per_min);
}
