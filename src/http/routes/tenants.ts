/**
 * Admin-key routes per tenant. A tenant's CORS allow-list: `PUT /:tenant/cors` replaces the whole list in one D1
 * batch (each origin exact, of a form origin-form.ts allows: https, http on loopback, or an app's own scheme) and
 * drops the isolate's cached copy; `GET /:tenant/cors` reads it. A tenant's sessions: `GET /:tenant/sessions` lists
 * them, `POST /:tenant/sessions/:id/clear` and `DELETE /:tenant/sessions/:id` clear and delete one as the tenant's
 * own routes do. Exports `tenantsRoutes`.
 */
import { Hono } from "hono";
import { corsOrigins, replaceCorsOrigins } from "../../d1/tenants";
import { NAME_FORM } from "../../model/name-form";
import { nowIso } from "../../storage/sql";
import { requireAdmin } from "../auth";
import { forgetOrigins } from "../directory";
import { ApiError } from "../errors";
import { originProblem } from "../origin-form";
import { SESSION_TENANT, sessionRef, unwrap } from "../session-ref";
import type { AppEnv } from "../types";
import { readBody } from "../validate";
import { deleteSession, sessionsPage } from "./sessions";

/** Refuses an origin no CORS list may hold (origin-form.ts says which may). */
function checkOrigin(origin: string, where: string): void {
  const problem = originProblem(origin);
  if (problem !== null) throw new ApiError(400, "invalid_request", `${where}: ${problem}`);
}

function tenantParam(raw: string): string {
  if (!NAME_FORM.test(raw)) throw new ApiError(400, "invalid_request", `tenant must match ${NAME_FORM.source}`);
  return raw;
}

function sessionTenantParam(raw: string): string {
  if (!SESSION_TENANT.test(raw)) {
    throw new ApiError(400, "invalid_request", `tenant must match ${SESSION_TENANT.source}`);
  }
  return raw;
}

/** Admin: per-tenant CORS origins for browser clients (see cors.ts for how they are applied), and any tenant's sessions. */
export const tenantsRoutes = new Hono<AppEnv>()
  .put("/:tenant/cors", requireAdmin(), async (c) => {
    const tenant = tenantParam(c.req.param("tenant"));
    const body = await readBody<{ allowed_origins: string[] }>(c, "corsBody", 64 * 1024);
    for (const [i, o] of body.allowed_origins.entries()) checkOrigin(o, `allowed_origins.${i}`);
    // One batch = one transaction: the list is replaced, never seen half-written.
    await replaceCorsOrigins(c.env.DB, tenant, body.allowed_origins, nowIso());
    forgetOrigins(tenant);
    return c.json({ tenant, allowed_origins: body.allowed_origins });
  })
  .get("/:tenant/cors", requireAdmin(), async (c) => {
    const tenant = tenantParam(c.req.param("tenant"));
    return c.json({ tenant, allowed_origins: await corsOrigins(c.env.DB, tenant) });
  })
  .get("/:tenant/sessions", requireAdmin(), async (c) =>
    c.json(await sessionsPage(c, sessionTenantParam(c.req.param("tenant")))),
  )
  .post("/:tenant/sessions/:id/clear", requireAdmin(), async (c) => {
    const ref = sessionRef(c, sessionTenantParam(c.req.param("tenant")));
    unwrap(await ref.stub.clear());
    return c.json({ id: ref.id, cleared: true });
  })
  .delete("/:tenant/sessions/:id", requireAdmin(), async (c) => {
    const ref = sessionRef(c, sessionTenantParam(c.req.param("tenant")));
    await deleteSession(c, ref);
    return c.json({ id: ref.id, deleted: true });
  });
