// A D1 call that D1 fails (src/d1/unavailable.ts) answers 503 database_unavailable with Retry-After on every route
// that reads or writes D1 itself, where it answered 500; a statement's own error (a bug of ours) stays a 500
// (docs/API.md "Errors"). The worker's app runs in-process (withEnv) over a D1 that fails the statements picked.
import { beforeAll, describe, expect, it } from "vitest";
import { everything, outage } from "../d1-outage";
import { withEnv } from "../env-app";
import { ADMIN, tenantKey, uid } from "../helpers";

/** Every statement but a tenant key's lookup (the credential check, which the directory's cache answers otherwise). */
const allButKeyLookup = (query: string) => !query.includes("WHERE key_hash");

interface Route {
  method: string;
  path: (name: string) => string;
  body?: unknown;
  /** The admin key's route (every statement fails), else a tenant key's. */
  admin?: true;
}

const ROUTES: Record<string, Route> = {
  "POST /v1/keys": { method: "POST", path: () => "/v1/keys", body: { tenant: "t" }, admin: true },
  "GET /v1/keys": { method: "GET", path: () => "/v1/keys", admin: true },
  "DELETE /v1/keys/{id}": { method: "DELETE", path: (n) => `/v1/keys/${n}`, admin: true },
  "PUT /v1/agents/{agent}": {
    method: "PUT",
    path: (n) => `/v1/agents/${n}`,
    body: { model: { provider: "anthropic", name: "mock" } },
    admin: true,
  },
  "GET /v1/agents": { method: "GET", path: () => "/v1/agents", admin: true },
  "GET /v1/agents/{agent}": { method: "GET", path: (n) => `/v1/agents/${n}`, admin: true },
  "DELETE /v1/agents/{agent}": { method: "DELETE", path: (n) => `/v1/agents/${n}`, admin: true },
  "PUT /v1/tenants/{tenant}/cors": {
    method: "PUT",
    path: (n) => `/v1/tenants/${n}/cors`,
    body: { allowed_origins: ["https://app.example"] },
    admin: true,
  },
  "GET /v1/tenants/{tenant}/cors": { method: "GET", path: (n) => `/v1/tenants/${n}/cors`, admin: true },
  "GET /v1/tenants/{tenant}/sessions": { method: "GET", path: (n) => `/v1/tenants/${n}/sessions`, admin: true },
  "POST /v1/sessions": { method: "POST", path: () => "/v1/sessions", body: { agent: "any" } },
  "GET /v1/sessions": { method: "GET", path: () => "/v1/sessions" },
  "POST /v1/agents/{agent}/runs": { method: "POST", path: (n) => `/v1/agents/${n}/runs`, body: { input: "hi" } },
  "GET /v1/runs/{id}": { method: "GET", path: (n) => `/v1/runs/${n}` },
};

let key: string;

beforeAll(async () => {
  key = await tenantKey();
});

/** `route` called by the worker's app over a D1 that fails what `fails` picks, with the route's credential. */
function call(route: Route, fails: (query: string) => boolean, message?: string): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${route.admin ? ADMIN : key}` };
  if (route.body !== undefined) headers["content-type"] = "application/json";
  return withEnv({ DB: outage(fails, message).db }, route.path(uid("d1_down")), {
    method: route.method,
    headers,
    ...(route.body === undefined ? {} : { body: JSON.stringify(route.body) }),
  });
}

describe("a route whose D1 call D1 fails", () => {
  it.each(Object.entries(ROUTES))("%s answers 503 database_unavailable with Retry-After", async (_name, route) => {
    const res = await call(route, route.admin ? everything : allButKeyLookup);
    const body = (await res.json()) as { error: { code: string } };
    expect([res.status, body.error.code, res.headers.get("retry-after")]).toEqual([503, "database_unavailable", "5"]);
  });

  it("answers a statement's own error (our SQL) 500 internal_error, not 503", async () => {
    const res = await call(
      ROUTES["GET /v1/keys"] as Route,
      everything,
      "D1_ERROR: no such table: api_keys: SQLITE_ERROR",
    );
    const body = (await res.json()) as { error: { code: string } };
    expect([res.status, body.error.code]).toEqual([500, "internal_error"]);
  });
});
