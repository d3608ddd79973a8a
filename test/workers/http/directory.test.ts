// The worker's control-plane reads (src/http/directory.ts) while D1 cannot be reached: a session's turns go on from
// the isolate caches for the documented grace, past it the answer is 503 directory_unavailable with Retry-After, a
// failing agent epoch fails no turn, a failed reload is not tried again on every request, and a reload that hangs
// is waited for 3 s only (here HUNG_WAIT_MS, so a test waits that long for the D1 it holds), and given up 5 s later
// if it never settles (README "The turn path"). Time moves on a fake clock (Date only); the worker's app runs
// in-process (withEnv) so the test's clock and D1 are the ones its caches see.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { CACHE_TIMES } from "../../../src/http/directory";
import { everything, held, outage, recovered } from "../d1-outage";
import { withEnv, withEnvEarly } from "../env-app";
import { history, patch, restorePatches, type Setup, script, setup, tenantKey } from "../helpers";

/** How long a request waits here for a D1 read that hangs, in place of the deployed 3 s. */
const HUNG_WAIT_MS = 200;

/** A message to the session by the worker's app over `db` (the suite's D1 when not given), its turn answered as JSON. */
function turn(s: Setup, content: string, db?: D1Database): Promise<Response> {
  return withEnv(db ? { DB: db } : {}, `/v1/sessions/${s.session}/messages`, {
    method: "POST",
    headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ content }),
  });
}

/** The session's state read by the worker's app over `db`. */
function state(s: Setup, db: D1Database): Promise<Response> {
  return withEnv({ DB: db }, `/v1/sessions/${s.session}`, { headers: { authorization: `Bearer ${s.key}` } });
}

/** A session whose key and the agent epoch the worker's caches hold, loaded now by one answered turn. */
async function warmed(): Promise<Setup> {
  const s = await setup();
  await script(s.model, [{ reply: { text: "warm" } }, { reply: { text: "answered in the outage" } }]);
  const res = await turn(s, "warm");
  expect(res.status).toBe(201);
  await res.text();
  return s;
}

/** Moves the fake clock on by `ms`: it only ever moves forward, so what one test cached is never younger later. */
const later = (ms: number) => vi.setSystemTime(Date.now() + ms);

describe("the turn path while D1 cannot be reached", () => {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
  });
  afterAll(() => {
    vi.useRealTimers();
  });

  it("a key cached more than 60 s ago is still served within the grace: the turn runs", async () => {
    const s = await warmed();
    later(65_000);
    const res = await turn(s, "in the outage", outage(everything).db);
    expect(res.status).toBe(201);
    expect(((await res.json()) as { status: string }).status).toBe("completed");
    expect((await history(s)).map((m) => m.parts)).toContainEqual([{ type: "text", text: "answered in the outage" }]);
  });

  it("past the grace the request is 503 directory_unavailable with Retry-After, and nothing is stored", async () => {
    const s = await warmed();
    later(60_000 + 600_000 + 1_000);
    const res = await turn(s, "past the grace", outage(everything).db);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("directory_unavailable");
    // D1 is back; the key is read again once its Retry-After has passed.
    later(5_000);
    expect(await history(s)).toHaveLength(2);
  });

  it("an agent epoch that cannot be read fails no turn", async () => {
    const s = await warmed();
    later(65_000);
    const res = await turn(s, "epoch unreadable", outage((query) => query.includes("agent_epoch")).db);
    expect(res.status).toBe(201);
    expect(((await res.json()) as { status: string }).status).toBe("completed");
  });

  it("a key's failed reload is tried again after 5 s, not on every request", async () => {
    const s = await warmed();
    later(45_000);
    const keysDown = outage((query) => query.includes("api_keys"));
    for (let i = 0; i < 3; i++) expect((await state(s, keysDown.db)).status).toBe(200);
    expect(keysDown.attempts()).toBe(1);
    later(5_000);
    expect((await state(s, keysDown.db)).status).toBe(200);
    expect(keysDown.attempts()).toBe(2);
  });
});

describe("the turn path while D1 hangs", () => {
  beforeAll(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
  });
  afterAll(() => {
    vi.useRealTimers();
  });
  afterEach(restorePatches);

  /**
   * GET `path` with `key` by the worker's app over a D1 whose key reads hang until `hold.release()`, waited for
   * HUNG_WAIT_MS (until restorePatches): the answer as soon as it is given, and the end of the work the request left
   * behind (`settled`).
   */
  async function keysHeld(key: string, path: string) {
    patch(CACHE_TIMES, "waitMs", HUNG_WAIT_MS);
    const hold = held((query) => query.includes("api_keys"));
    const { res, settled } = await withEnvEarly({ DB: hold.db }, path, { headers: { authorization: `Bearer ${key}` } });
    return { hold, res, settled };
  }

  it("a key whose reload does not answer is served from its entry within the grace, the reload still held", async () => {
    const s = await warmed();
    later(65_000);
    const { hold, res, settled } = await keysHeld(s.key, `/v1/sessions/${s.session}`);
    expect([res.status, hold.waiting()]).toEqual([200, 1]);
    hold.release();
    await settled;
  });

  it("a key with no entry whose load does not answer is 503 directory_unavailable, the load still held", async () => {
    const { hold, res, settled } = await keysHeld(await tenantKey(), "/v1/sessions");
    expect([res.status, res.headers.get("retry-after"), hold.waiting()]).toEqual([503, "5", 1]);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("directory_unavailable");
    hold.release();
    await settled;
  });

  it("a load that answers after its request gave up on it fills the cache", async () => {
    const key = await tenantKey();
    const { hold, res, settled } = await keysHeld(key, "/v1/sessions");
    expect(res.status).toBe(503);
    await res.text();
    hold.release();
    await settled;
    const keysDown = outage((query) => query.includes("api_keys"));
    const listed = await withEnv({ DB: keysDown.db }, "/v1/sessions", { headers: { authorization: `Bearer ${key}` } });
    expect([listed.status, keysDown.attempts()]).toEqual([200, 0]);
  });

  it("a key with no entry whose load never answers is read afresh, once, when that load has outlived its wait and retry interval", async () => {
    const key = await tenantKey();
    // Never released: Workers cancels a request's D1 call with the request, and the call then never settles.
    const { res } = await keysHeld(key, "/v1/sessions");
    expect(res.status).toBe(503);
    await res.text();
    later(60_000);
    const keysBack = recovered((query) => query.includes("api_keys"));
    const listed = await withEnv({ DB: keysBack.db }, "/v1/sessions", { headers: { authorization: `Bearer ${key}` } });
    expect([listed.status, keysBack.calls()]).toEqual([200, 1]);
  });
});
