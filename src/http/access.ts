/**
 * Access to one session's routes: `sessionAccess`, `allows` and `actorOf`.
 *
 * `sessionAccess(action)` guards a route of one session (`/:id/...`): an API key of the tenant, or a
 * session token for exactly this session that carries `action`.
 *
 * A valid token used on another session is refused with 403 without looking
 * that session up, so the answer is the same whether it exists or not (no
 * existence oracle), and it tells the app its token is the wrong one rather
 * than that the session vanished. A token whose issuing key was revoked is
 * dead (401), checked through the same isolate cache as API keys (so within
 * the documented bound of directory.ts, and at once in the revoking isolate).
 * A token minted for another incarnation of its session (an earlier session
 * of the same id, since deleted) is refused by the session object, 404 as for
 * a missing session: the token's `inc` and `iat` go with each call
 * (session-ref.ts `stamp`).
 */
import type { Context, MiddlewareHandler } from "hono";
import { enforceRateLimit } from "../ratelimit/enforce";
import { bearer, requireTenant } from "./auth";
import { checkTenantOrigin } from "./cors";
import { keyById } from "./directory";
import { ApiError } from "./errors";
import { isSessionToken, type TokenAction, verifiedClaims } from "./tokens";
import type { AppEnv } from "./types";

/**
 * For a route whose body decides what it needs (POST /chat answering approvals): whether the caller may do
 * `action`. An API key may do anything, a session token what it carries.
 */
export function allows(c: Context<AppEnv>, action: TokenAction): boolean {
  const p = c.get("principal");
  return p?.kind !== "token" || p.actions.includes(action);
}

/** Who did it, for events: the API key's id or the session token's jti. */
export function actorOf(c: Context<AppEnv>): string {
  const p = c.get("principal");
  return p?.kind === "token" ? `token:${p.jti}` : p?.kind === "key" ? `key:${p.keyId}` : "unknown";
}

/** What a request with no session token must pass: an API key of the tenant. */
const byKey = requireTenant();

export function sessionAccess(action: TokenAction): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = bearer(c);
    if (!isSessionToken(token)) return byKey(c, next);
    const claims = await verifiedClaims(c.env, token);
    if (c.req.param("id") !== claims.ses) {
      throw new ApiError(403, "forbidden", "this session token is for another session");
    }
    if (!claims.act.includes(action)) {
      throw new ApiError(403, "insufficient_scope", `this session token does not allow "${action}"`);
    }
    const key = await keyById(c, claims.kid, claims.ten);
    if (!key) throw new ApiError(401, "unauthorized", "the API key that issued this session token was revoked");
    c.set("tenant", claims.ten);
    c.set("principal", {
      kind: "token",
      keyId: claims.kid,
      session: claims.ses,
      actions: claims.act,
      jti: claims.jti,
      stamp: { iat: claims.iat, inc: claims.inc },
    });
    // The origin first: a page the tenant does not allow must not spend the session's budget (as for a key).
    await checkTenantOrigin(c, claims.ten);
    await enforceRateLimit(c.env, `ses:${claims.ten}:${claims.ses}`, key.rate_limit_per_min);
    await next();
  };
}
