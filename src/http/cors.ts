/**
 * CORS for browser clients of the session API, per tenant.
 *
 * - A preflight carries no credentials, so its tenant is unknown (a session id
 *   alone does not name a tenant: two tenants may use the same id). It is
 *   answered for an origin that ANY tenant allows; that reveals only that the
 *   origin is a customer's.
 * - The real request is then checked against the tenant of its key or token:
 *   a cross-origin request from an origin that tenant did not allow is refused
 *   (403 origin_not_allowed) before it touches anything, so an origin
 *   approved by one tenant gains nothing at another.
 * - Error answers (401, 403, 429 …) are readable by any origin some tenant
 *   allows, so a browser app can see that its token expired.
 * Both checks go through the isolate cache of directory.ts (a changed list is
 * seen within its bound), which matches an origin as origin-form.ts allows it
 * to be listed: an app's own scheme (`capacitor://localhost`) as any other.
 * Same-origin requests (the demo page) and clients without an Origin header
 * (servers, native apps) are not affected. Admin routes get no CORS at all.
 */
import type { Context, MiddlewareHandler } from "hono";
import { originAllowed } from "./directory";
import { ApiError } from "./errors";
import type { AppEnv } from "./types";

const ALLOW_METHODS = "GET, POST, DELETE, OPTIONS";
const ALLOW_HEADERS = "authorization, content-type, accept, idempotency-key, last-event-id";
const EXPOSE_HEADERS = "retry-after, x-turn-id, x-vercel-ai-ui-message-stream";
const PREFLIGHT_MAX_AGE_S = "600";

/** The request's Origin when it differs from this service's own origin; null otherwise. */
function crossOrigin(c: Context): string | null {
  const origin = c.req.header("origin");
  if (!origin) return null;
  return origin === new URL(c.req.url).origin ? null : origin;
}

/** Called once the tenant is known: refuses an origin the tenant did not allow, else marks the answer readable. */
export async function checkTenantOrigin(c: Context<AppEnv>, tenant: string): Promise<void> {
  const origin = crossOrigin(c);
  if (!origin) return;
  if (!(await originAllowed(c, tenant, origin)))
    throw new ApiError(403, "origin_not_allowed", `origin ${origin} is not allowed for this tenant`);
  c.set("corsOrigin", origin);
}

export function setHeaders(c: Context, headers: Record<string, string>): void {
  try {
    for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v);
  } catch {
    // Immutable headers (a passed-through Response): copy it once, then set.
    c.res = new Response(c.res.body, c.res);
    for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v);
  }
}

/** Mounted on the session routes: answers preflights and adds the CORS headers to answers a browser may read. */
export function sessionCors(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const origin = crossOrigin(c);
    if (!origin) return next();
    if (c.req.method === "OPTIONS") {
      if (!(await originAllowed(c, null, origin))) {
        throw new ApiError(403, "origin_not_allowed", `origin ${origin} is not allowed`);
      }
      return c.body(null, 204, {
        "access-control-allow-origin": origin,
        "access-control-allow-methods": ALLOW_METHODS,
        "access-control-allow-headers": ALLOW_HEADERS,
        "access-control-max-age": PREFLIGHT_MAX_AGE_S,
        vary: "Origin",
      });
    }
    await next();
    const readable =
      c.get("corsOrigin") === origin ||
      (c.res.status >= 400 && c.get("corsOrigin") === undefined && (await originAllowed(c, null, origin)));
    setHeaders(
      c,
      readable
        ? { "access-control-allow-origin": origin, "access-control-expose-headers": EXPOSE_HEADERS, vary: "Origin" }
        : { vary: "Origin" },
    );
  };
}
