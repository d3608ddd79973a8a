/**
 * The route that mints session tokens (`tokensRoutes`, mounted under /v1/sessions): a tenant's API key gets
 * a short-lived token scoped to one session and a set of actions; 503 when no token secret is configured.
 */
import { Hono } from "hono";
import { incarnationOf } from "../../session/rpc-types";
import { requireTenant } from "../auth";
import { ApiError } from "../errors";
import { sessionRef, unwrap } from "../session-ref";
import { mintToken, TOKEN_ACTIONS, type TokenAction, TTL_DEFAULT_S, tokensConfigured } from "../tokens";
import type { AppEnv } from "../types";
import { readBody } from "../validate";

/**
 * POST /v1/sessions/{id}/tokens: an API key of the session's tenant mints a
 * short-lived token for that one session. requireTenant refuses session
 * tokens, so a token can never mint another token (no scope or lifetime
 * escalation).
 */
export const tokensRoutes = new Hono<AppEnv>().post("/:id/tokens", requireTenant(), async (c) => {
  const ref = sessionRef(c);
  // The session object knows whether it exists (404 otherwise, as for any session route), and which incarnation of
  // the id it holds: the token opens that one only.
  const { info } = unwrap(await ref.stub.describe());
  const body = await readBody<{ actions: TokenAction[]; ttl_s?: number }>(c, "createTokenBody", 16 * 1024);
  if (!tokensConfigured(c.env)) {
    throw new ApiError(
      503,
      "tokens_unavailable",
      "session tokens need SWITCHBOARD_TOKEN_SECRET or SWITCHBOARD_ADMIN_KEY",
    );
  }
  const principal = c.get("principal");
  if (principal?.kind !== "key") throw new ApiError(403, "forbidden", "only an API key can mint session tokens");
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + (body.ttl_s ?? TTL_DEFAULT_S);
  // Stored in a fixed order so equal scopes give equal claims.
  const act = TOKEN_ACTIONS.filter((a) => body.actions.includes(a));
  const token = await mintToken(c.env, {
    v: 1,
    ten: ref.tenant,
    ses: ref.id,
    inc: incarnationOf(info),
    act,
    kid: principal.keyId,
    iat,
    exp,
    jti: crypto.randomUUID(),
  });
  return c.json({ token, expires_at: new Date(exp * 1000).toISOString(), session_id: ref.id, actions: act }, 201);
});
