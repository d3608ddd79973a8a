// Rate limits per API key and per session token, and per-tenant CORS, through the public API.
import { describe, expect, it } from "vitest";
import { withEnv } from "./env-app";
import { ADMIN, apiJson, history, type Setup, setup, uid } from "./helpers";

type ErrorBody = { error: { code: string; message: string } };

async function keyFor(tenant: string, rate_limit_per_min?: number): Promise<string> {
  const res = await apiJson<{ key: string; rate_limit_per_min: number | null }>("/v1/keys", {
    method: "POST",
    key: ADMIN,
    json: { tenant, ...(rate_limit_per_min === undefined ? {} : { rate_limit_per_min }) },
  });
  expect(res.status).toBe(201);
  expect(res.body.rate_limit_per_min).toBe(rate_limit_per_min ?? null);
  return res.body.key;
}

/** A session of `tenant` (agents are global; the shared setup() makes one). */
async function sessionOf(tenant: string, rateLimit?: number): Promise<Setup> {
  const base = await setup();
  const key = await keyFor(tenant, rateLimit);
  const ses = await apiJson<{ id: string }>("/v1/sessions", { method: "POST", key, json: { agent: base.agent } });
  return { ...base, key, session: ses.body.id };
}

describe("rate limits", () => {
  it("a key with rate_limit_per_min gets 429 rate_limited with Retry-After past its limit; others are unaffected", async () => {
    const key = await keyFor(uid("rl"), 3);
    for (let i = 0; i < 3; i++) expect((await apiJson("/v1/sessions", { key })).status).toBe(200);
    const res = await apiJson<ErrorBody>("/v1/sessions", { key });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe("rate_limited");
    const retry = Number((await apiJsonHeaders("/v1/sessions", key)).get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    const other = await keyFor(uid("rl"), 3);
    expect((await apiJson("/v1/sessions", { key: other })).status).toBe(200);
  });

  it("a refused request changes nothing", async () => {
    const tenant = uid("rl");
    const s = await sessionOf(tenant, 2);
    // Creating the session used 1 of 2; this read uses the last one.
    expect((await apiJson(`/v1/sessions/${s.session}`, { key: s.key })).status).toBe(200);
    const res = await apiJson<ErrorBody>(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "over the limit" },
    });
    expect(res.status).toBe(429);
    // Another key of the same tenant has its own budget and sees an untouched session.
    expect(await history({ ...s, key: await keyFor(tenant) })).toEqual([]);
  });

  it("session tokens are limited per session, with the issuing key's limit", async () => {
    const s = await sessionOf(uid("rl"), 3);
    const minted = await apiJson<{ token: string }>(`/v1/sessions/${s.session}/tokens`, {
      method: "POST",
      key: s.key,
      json: { actions: ["read"] },
    });
    expect(minted.status).toBe(201);
    for (let i = 0; i < 3; i++) {
      expect((await apiJson(`/v1/sessions/${s.session}`, { key: minted.body.token })).status).toBe(200);
    }
    const res = await apiJson<ErrorBody>(`/v1/sessions/${s.session}`, { key: minted.body.token });
    expect(res.status).toBe(429);
    expect(res.body.error.message).toContain("session");
  });

  it("SWITCHBOARD_RATE_LIMIT_PER_MIN sets the default for keys without an override (exact limiter)", async () => {
    const key = await keyFor(uid("rl"));
    const get = () =>
      withEnv({ SWITCHBOARD_RATE_LIMIT_PER_MIN: "2" }, "/v1/sessions", { headers: { authorization: `Bearer ${key}` } });
    expect((await get()).status).toBe(200);
    expect((await get()).status).toBe(200);
    const res = await get();
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    // "0" turns the default off.
    expect(
      (
        await withEnv({ SWITCHBOARD_RATE_LIMIT_PER_MIN: "0" }, "/v1/sessions", {
          headers: { authorization: `Bearer ${key}` },
        })
      ).status,
    ).toBe(200);
  });

  it("a rate-limit binding that throws fails open: the request is served", async () => {
    const key = await keyFor(uid("rl-down"));
    const down = { limit: async () => Promise.reject(new Error("binding down")) };
    const res = await withEnv({ RATE_LIMIT: down }, "/v1/sessions", { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
  });

  it("refuses a bad rate_limit_per_min", async () => {
    for (const v of [-1, 1.5, "10"]) {
      const res = await apiJson("/v1/keys", {
        method: "POST",
        key: ADMIN,
        json: { tenant: "x", rate_limit_per_min: v },
      });
      expect(res.status).toBe(400);
    }
  });
});

async function apiJsonHeaders(path: string, key: string): Promise<Headers> {
  const res = await withEnv({}, path, { headers: { authorization: `Bearer ${key}` } });
  await res.text();
  return res.headers;
}

describe("CORS per tenant", () => {
  const APP = "https://app.example.com";
  const preflight = (origin: string, path = "/v1/sessions/x/messages") =>
    withEnv({}, path, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization" },
      undocumented: "a CORS preflight is the browser's protocol (docs/API.md), no operation of the document",
    });

  it("admin sets a tenant's origins; tenants keys cannot; bad origins are refused", async () => {
    const tenant = uid("cors");
    const put = await apiJson<{ allowed_origins: string[] }>(`/v1/tenants/${tenant}/cors`, {
      method: "PUT",
      key: ADMIN,
      json: { allowed_origins: [APP, "http://localhost:5173"] },
    });
    expect(put.status).toBe(200);
    const got = await apiJson<{ allowed_origins: string[] }>(`/v1/tenants/${tenant}/cors`, { key: ADMIN });
    expect(got.body.allowed_origins).toEqual(["http://localhost:5173", APP]);
    for (const bad of ["https://app.example.com/", "http://app.example.com", "*", "null", "https://APP.example.com"]) {
      const res = await apiJson(`/v1/tenants/${tenant}/cors`, {
        method: "PUT",
        key: ADMIN,
        json: { allowed_origins: [bad] },
      });
      expect(res.status, bad).toBe(400);
    }
    const key = await keyFor(tenant);
    expect(
      (await apiJson(`/v1/tenants/${tenant}/cors`, { method: "PUT", key, json: { allowed_origins: [] } })).status,
    ).toBe(403);
    expect(
      (await apiJson<{ allowed_origins: string[] }>(`/v1/tenants/${tenant}/cors`, { key: ADMIN })).body.allowed_origins,
    ).toHaveLength(2);
  });

  it("answers a preflight for an origin some tenant allows, and refuses others", async () => {
    const tenant = uid("cors");
    const origin = `https://${uid("app").toLowerCase()}.example.com`;
    await apiJson(`/v1/tenants/${tenant}/cors`, { method: "PUT", key: ADMIN, json: { allowed_origins: [origin] } });
    const ok = await preflight(origin);
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe(origin);
    expect(ok.headers.get("access-control-allow-headers")).toContain("authorization");
    const bad = await preflight("https://evil.example.net");
    expect(bad.status).toBe(403);
    expect(bad.headers.get("access-control-allow-origin")).toBeNull();
    // Admin routes get no CORS.
    expect((await preflight(origin, "/v1/keys")).headers.get("access-control-allow-origin")).toBeNull();
  });

  it("a real request is readable only from the tenant's own origins; another tenant's origin is refused, nothing changes", async () => {
    const t1 = uid("cors");
    const t2 = uid("cors");
    const o1 = `https://${t1.toLowerCase()}.example.com`;
    const o2 = `https://${t2.toLowerCase()}.example.com`;
    await apiJson(`/v1/tenants/${t1}/cors`, { method: "PUT", key: ADMIN, json: { allowed_origins: [o1] } });
    await apiJson(`/v1/tenants/${t2}/cors`, { method: "PUT", key: ADMIN, json: { allowed_origins: [o2] } });
    const s = await sessionOf(t1);
    const call = (origin: string | null, method = "GET", path = "", body?: unknown) =>
      withEnv({}, `/v1/sessions/${s.session}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${s.key}`,
          accept: "application/json",
          "content-type": "application/json",
          ...(origin ? { origin } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const own = await call(o1);
    expect(own.status).toBe(200);
    expect(own.headers.get("access-control-allow-origin")).toBe(o1);
    expect(own.headers.get("access-control-expose-headers")).toContain("retry-after");
    const foreign = await call(o2, "POST", "/messages", { content: "from the wrong site" });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as ErrorBody).error.code).toBe("origin_not_allowed");
    // The error is readable by that (customer) origin, so its app can tell what happened.
    expect(foreign.headers.get("access-control-allow-origin")).toBe(o2);
    expect(await history(s)).toEqual([]);
    const none = await call(null);
    expect(none.status).toBe(200);
    expect(none.headers.get("access-control-allow-origin")).toBeNull();
    // Same-origin (the demo page) is not cross-origin.
    expect((await call("http://sb.test")).status).toBe(200);
    // An expired-or-bad credential answer is readable by an allowed origin.
    const unauth = await withEnv({}, `/v1/sessions/${s.session}`, {
      headers: { origin: o1, authorization: "Bearer sbt_x.y" },
    });
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get("access-control-allow-origin")).toBe(o1);
  });
});
