// The worker's control-plane reads (src/http/directory.ts) while D1 cannot be reached: a session's turns go on from
// the isolate caches for the documented grace, past it the answer is 503 directory_unavailable with Retry-After, a
// failing agent epoch fails no turn, and a failed reload is not tried again on every request (README "The turn
// path"). Time moves on a fake clock (Date only); the worker's app runs in-process (withEnv) so the test's clock and
// D1 are the ones its caches see.
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { withEnv } from "../env-app";
import { history, type Setup, script, setup } from "../helpers";

/**
 * The suite's D1 in an outage: each statement whose SQL `fails` picks rejects, on the primary and on a replica, as
 * an unreachable D1's do, and is counted (`attempts`); the others run.
 */
function outage(fails: (query: string) => boolean): { db: D1Database; attempts: () => number } {
  let attempts = 0;
  const reject = async () => {
    attempts += 1;
    throw new Error("D1_ERROR: Network connection lost.");
  };
  const failing = { bind: () => failing, first: reject, all: reject, run: reject, raw: reject };
  const wrap = <T extends D1Database | D1DatabaseSession>(db: T): T =>
    new Proxy(db, {
      get(target, key) {
        if (key === "prepare") return (query: string) => (fails(query) ? failing : target.prepare(query));
        if (key === "withSession") return (constraint?: string) => wrap((target as D1Database).withSession(constraint));
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return { db: wrap(env.DB), attempts: () => attempts };
}

const everything = () => true;

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
