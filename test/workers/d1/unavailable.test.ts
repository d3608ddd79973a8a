// A D1 call that D1 fails (src/d1/unavailable.ts), or leaves unanswered past the bound, answers 503
// database_unavailable with Retry-After on every route that reads or writes D1 itself, where it answered 500 (or
// waited for D1's own timeout); a statement's own error (a bug of ours) stays a 500 (docs/API.md "Errors"). The
// worker's app runs in-process (withEnv) over a D1 that fails or holds the statements picked, with the bound
// shortened to 100 ms; the marked binding is also called directly, with statements miniflare's D1 refuses and with
// D1's documented failures. A 503 the session object returns is logged there, once, with D1's message (README "The
// turn path"), and its re-read of a changed agent that D1 leaves unanswered is one too.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { D1Unavailable, withD1Marked } from "../../../src/d1/unavailable";
import type { Env } from "../../../src/env";
import type { Session } from "../../../src/session/session";
import { everything, held, heldInPlace, outage, outageInPlace } from "../d1-outage";
import { withEnv, withEnvEarly } from "../env-app";
import {
  ADMIN,
  api,
  patch,
  putAgentOf,
  restorePatches,
  type Setup,
  sessionStub,
  setup,
  tenantKey,
  uid,
} from "../helpers";

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

/** `route`'s request with the route's credential. */
function requestOf(route: Route): RequestInit {
  const headers: Record<string, string> = { authorization: `Bearer ${route.admin ? ADMIN : key}` };
  if (route.body !== undefined) headers["content-type"] = "application/json";
  return { method: route.method, headers, ...(route.body === undefined ? {} : { body: JSON.stringify(route.body) }) };
}

/** `route` called by the worker's app over a D1 that fails what `fails` picks. */
function call(route: Route, fails: (query: string) => boolean, message?: string): Promise<Response> {
  return withEnv({ DB: outage(fails, message).db }, route.path(uid("d1_down")), requestOf(route));
}

/** The bound of a D1 call (src/d1/unavailable.ts, 5 s deployed) shortened, so a test waits 100 ms for a hang. */
const SHORT_BOUND = { SWITCHBOARD_D1_TIMEOUT_MS: "100" } satisfies Partial<Env>;

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

describe("a route whose D1 call D1 does not answer", () => {
  it.each(Object.entries(ROUTES))(
    "%s answers 503 database_unavailable with Retry-After once the bound has passed",
    async (_name, route) => {
      const hold = held(route.admin ? everything : allButKeyLookup);
      const { res, settled } = await withEnvEarly(
        { DB: hold.db, ...SHORT_BOUND },
        route.path(uid("d1_hung")),
        requestOf(route),
      );
      const body = (await res.json()) as { error: { code: string } };
      hold.release();
      await settled;
      expect([res.status, body.error.code, res.headers.get("retry-after")]).toEqual([503, "database_unavailable", "5"]);
    },
  );
});

/** What `call` threw through the marked binding over `db`; null when it did not throw. */
async function thrownBy(db: D1Database, call: (marked: D1Database) => Promise<unknown>): Promise<unknown> {
  return call(withD1Marked({ DB: db }).DB).then(
    () => null,
    (e: unknown) => e,
  );
}

/** Statements that fail the same way on every try, run against the suite's D1, and what D1 says of each. */
const OWN_ERRORS: Record<string, { call: (db: D1Database) => Promise<unknown>; says: string }> = {
  "a wrong number of bindings": {
    call: (db) => db.prepare("SELECT ?").bind(1, 2).first(),
    says: "D1_ERROR: Wrong number of parameter bindings for SQL query.",
  },
  "an empty statement": { call: (db) => db.prepare("").run(), says: "D1_ERROR: No SQL statements detected." },
  "an empty exec": {
    call: (db) => db.exec(""),
    says: "D1_EXEC_ERROR: Error in line 1: : No SQL statements detected.",
  },
  "a missing table": {
    call: (db) => db.prepare("SELECT * FROM no_such_table").all(),
    says: "D1_ERROR: no such table: no_such_table: SQLITE_ERROR",
  },
};

describe("a statement's own error through the marked binding", () => {
  it.each(Object.entries(OWN_ERRORS))("%s is thrown as D1 threw it, not as D1Unavailable", async (_name, own) => {
    const thrown = await thrownBy(env.DB, own.call);
    expect([thrown instanceof D1Unavailable, (thrown as Error).message]).toEqual([false, own.says]);
  });
});

/** What D1 says when it fails a call that retrying may get past (Cloudflare's D1 docs, "List of D1_ERRORs"). */
const TRANSIENT_FAILURES = [
  "D1_ERROR: Network connection lost.",
  "D1_ERROR: D1 DB reset because its code was updated.",
  "D1_ERROR: Internal error while starting up D1 DB storage caused object to be reset.",
  "D1_ERROR: Internal error in D1 DB storage caused object to be reset.",
  "D1_ERROR: Cannot resolve D1 DB due to transient issue on remote node.",
  "D1_ERROR: Can't read from request stream because client disconnected.",
  "D1_ERROR: D1 DB storage operation exceeded timeout which caused object to be reset.",
  "D1_ERROR: D1 DB is overloaded. Requests queued for too long.",
  "D1_ERROR: D1 DB is overloaded. Too many requests queued.",
  "D1_ERROR: D1 DB's isolate exceeded its memory limit and was reset.",
  "D1_ERROR: D1 DB exceeded its CPU time limit and was reset.",
];

describe("a failure of D1 itself through the marked binding", () => {
  it.each(TRANSIENT_FAILURES)("%s is thrown as D1Unavailable", async (message) => {
    const thrown = await thrownBy(outage(everything, message).db, (db) => db.prepare("SELECT 1").first());
    expect([thrown instanceof D1Unavailable, (thrown as Error).message]).toEqual([true, message]);
  });
});

/** What an overloaded D1 says: not the message the suite's other outages use, so a line carrying it is this one's. */
const OVERLOADED = "D1_ERROR: D1 DB is overloaded. Too many requests queued.";

/** The session object's own D1 fails each statement whose SQL `fails` picks with OVERLOADED, until restorePatches. */
async function objectOutage(s: Setup, fails: (query: string) => boolean): Promise<void> {
  await runInDurableObject(await sessionStub(s), (instance: Session) => {
    outageInPlace((instance as unknown as { env: { DB: D1Database } }).env.DB, fails, OVERLOADED);
  });
}

/**
 * The session object's own D1 holds each statement whose SQL `holds` picks until `release` (before restorePatches),
 * with the object's bound shortened as SHORT_BOUND does the worker's.
 */
async function objectHold(s: Setup, holds: (query: string) => boolean): Promise<ReturnType<typeof heldInPlace>> {
  let hold: ReturnType<typeof heldInPlace> | undefined;
  await runInDurableObject(await sessionStub(s), (instance: Session) => {
    const objectEnv = (instance as unknown as { env: Env }).env;
    hold = heldInPlace(objectEnv.DB, holds);
    patch(objectEnv, "SWITCHBOARD_D1_TIMEOUT_MS", SHORT_BOUND.SWITCHBOARD_D1_TIMEOUT_MS);
  });
  if (!hold) throw new Error("the object's D1 was not held");
  return hold;
}

/** `request`'s status and the `database_unavailable` lines logged (worker and object: one isolate) while it ran. */
async function loggedBy(request: () => Promise<Response>): Promise<[number, Array<Record<string, unknown>>]> {
  const warn = vi.spyOn(console, "warn");
  try {
    const res = await request();
    await res.body?.cancel();
    const lines = warn.mock.calls.map((c) => JSON.parse(String(c[0])) as Record<string, unknown>);
    return [res.status, lines.filter((line) => line.msg === "database_unavailable")];
  } finally {
    warn.mockRestore();
  }
}

describe("a 503 the session object returns for a D1 that failed it", () => {
  afterEach(restorePatches);

  it("a DELETE whose D1 rows D1 fails is logged once, at warn level, with D1's message", async () => {
    const s = await setup();
    await objectOutage(s, (query) => query.includes("DELETE FROM sessions"));
    const logged = await loggedBy(() => api(`/v1/sessions/${s.session}`, { method: "DELETE", key: s.key }));
    expect(logged).toEqual([503, [expect.objectContaining({ level: "warn", error: OVERLOADED })]]);
  });

  it("a state read whose re-read of its changed agent D1 fails is logged once, at warn level, with D1's message", async () => {
    const s = await setup();
    // Warm: the worker's key and agent news are cached, the object holds its copy of the agent.
    expect((await api(`/v1/sessions/${s.session}`, { key: s.key })).status).toBe(200);
    expect((await putAgentOf(s, s.agent, "You are the reconfigured agent.")).status).toBe(200);
    await objectOutage(s, (query) => query.includes("FROM agents WHERE name = ?) AS config"));
    const logged = await loggedBy(() => api(`/v1/sessions/${s.session}`, { key: s.key }));
    expect(logged).toEqual([503, [expect.objectContaining({ level: "warn", error: OVERLOADED })]]);
  });

  it("a state read whose re-read of its changed agent D1 does not answer is 503 database_unavailable once the bound has passed", async () => {
    const s = await setup();
    expect((await api(`/v1/sessions/${s.session}`, { key: s.key })).status).toBe(200);
    expect((await putAgentOf(s, s.agent, "You are the reconfigured agent.")).status).toBe(200);
    const hold = await objectHold(s, (query) => query.includes("FROM agents WHERE name = ?) AS config"));
    const res = await api(`/v1/sessions/${s.session}`, { key: s.key });
    const body = (await res.json()) as { error: { code: string } };
    hold.release();
    expect([res.status, body.error.code, res.headers.get("retry-after")]).toEqual([503, "database_unavailable", "5"]);
  });

  it("a DELETE whose D1 rows D1 does not answer is 503 database_unavailable once the bound has passed, the session kept", async () => {
    const s = await setup();
    expect((await api(`/v1/sessions/${s.session}`, { key: s.key })).status).toBe(200);
    const hold = await objectHold(s, (query) => query.includes("DELETE FROM sessions"));
    const res = await api(`/v1/sessions/${s.session}`, { method: "DELETE", key: s.key });
    const body = (await res.json()) as { error: { code: string } };
    const after = await api(`/v1/sessions/${s.session}`, { key: s.key });
    hold.release();
    await hold.landed();
    expect([res.status, body.error.code, after.status]).toEqual([503, "database_unavailable", 200]);
  });

  it("a DELETE answered 503 whose D1 rows D1 deleted late is finished by its retry", async () => {
    const s = await setup();
    expect((await api(`/v1/sessions/${s.session}`, { key: s.key })).status).toBe(200);
    const hold = await objectHold(s, (query) => query.includes("DELETE FROM sessions"));
    const first = await api(`/v1/sessions/${s.session}`, { method: "DELETE", key: s.key });
    await first.body?.cancel();
    hold.release();
    await hold.landed();
    const retry = await api(`/v1/sessions/${s.session}`, { method: "DELETE", key: s.key });
    await retry.body?.cancel();
    const after = await api(`/v1/sessions/${s.session}`, { key: s.key });
    expect([first.status, retry.status, after.status]).toEqual([503, 200, 404]);
  });
});
