/**
 * The operations of routes/tenants.ts, all the admin's: a tenant's allowed browser origins, and any tenant's
 * sessions (`webhook:<agent>` too) listed, deleted or cleared.
 */
import { SESSION_TENANT } from "../session-ref";
import { body, jsonOf, ref } from "./content";
import { errorResponse, op } from "./operation";
import { SESSIONS_PAGE } from "./paging";
import { pathParam, SESSION } from "./parameters";
import { clearFailed } from "./sessions";

/** The tenant of the admin's session routes: an API key's, or `webhook:<agent>` (routes/tenants.ts). */
const SESSIONS_TENANT = {
  ...pathParam(
    "tenant",
    "Tenant: an API key's, or `webhook:<agent>` (signed runs of an agent without `webhook_tenant`)",
  ),
  schema: { type: "string", pattern: SESSION_TENANT.source },
};

export const putCors = op(
  "putCors",
  "Replace a tenant's allowed browser origins (admin)",
  { "200": jsonOf(ref("Cors"), "Saved") },
  {
    parameters: [pathParam("tenant", "Tenant")],
    requestBody: body("CorsBody"),
  },
);
export const getCors = op(
  "getCors",
  "A tenant's allowed browser origins (admin)",
  { "200": jsonOf(ref("Cors"), "Origins") },
  {
    parameters: [pathParam("tenant", "Tenant")],
  },
);
export const listTenantSessions = op(
  "listTenantSessions",
  "List any tenant's sessions, `webhook:<agent>` too (admin)",
  { "200": jsonOf(ref("SessionList"), "A page") },
  {
    parameters: [SESSIONS_TENANT, ...SESSIONS_PAGE],
  },
);
export const deleteTenantSession = op(
  "deleteTenantSession",
  "Delete any tenant's session, as its own DELETE does (admin)",
  { "200": jsonOf(ref("Deleted"), "Deleted") },
  {
    parameters: [SESSIONS_TENANT, SESSION],
  },
);
export const clearTenantSession = op(
  "clearTenantSession",
  "Clear any tenant's session, as its own clear does (admin)",
  { "200": jsonOf(ref("Cleared"), "Cleared"), "409": errorResponse, "500": clearFailed },
  {
    parameters: [SESSIONS_TENANT, SESSION],
  },
);
