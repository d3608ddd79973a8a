/**
 * The session routes (src/http/routes/sessions.ts). Their `x-debug-d1-statements` (README "Debug counters"): a read
 * of a session's state, a compaction and a DELETE count the D1 statements the session's object ran for them, as turn
 * calls do, not only the worker's. SWITCHBOARD_DEBUG_CHECKS is on in this suite. A create with an id D1 fails changes
 * nothing, or, when its index row was written before D1 failed, is finished by its retry (docs/API.md "Sessions"),
 * also when another create of the id, whose init failed, deleted that row meanwhile; one without an id writes its row
 * last, so whatever D1 did of it lists no session that does not exist. A create whose init failed deletes the index
 * row only when it wrote that row and the object holds no session.
 */
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { Session } from "../../../../src/session/session";
import { answerLost, outage } from "../../d1-outage";
import { withEnv } from "../../env-app";
import {
  ADMIN,
  api,
  apiJson,
  gate,
  listedIds,
  patch,
  restorePatches,
  type Setup,
  setup,
  tenantKey,
  uid,
} from "../../helpers";

const D1 = "x-debug-d1-statements";

/** PUTs the session's agent with a new system prompt: the object's next call with the worker's news re-reads it. */
async function changeAgent(s: Setup): Promise<void> {
  const put = await apiJson(`/v1/agents/${s.agent}`, {
    method: "PUT",
    key: ADMIN,
    json: { model: { provider: "anthropic", name: s.model }, system: "You are the reconfigured agent." },
  });
  expect(put.status).toBe(200);
}

describe("x-debug-d1-statements on the session routes", () => {
  it("a state read after its agent changed counts the object's D1 read of the agent", async () => {
    const s = await setup();
    // Warm: the worker's key and agent news are cached, the object holds its copy of the agent.
    expect((await api(`/v1/sessions/${s.session}`, { key: s.key })).headers.get(D1)).toBe("0");
    await changeAgent(s);
    const res = await api(`/v1/sessions/${s.session}`, { key: s.key });
    expect(res.status).toBe(200);
    expect(res.headers.get(D1)).toBe("1");
  });

  it("a compaction after its agent changed counts the object's D1 read of the agent, refused as it is", async () => {
    const s = await setup();
    expect((await api(`/v1/sessions/${s.session}`, { key: s.key })).headers.get(D1)).toBe("0");
    await changeAgent(s);
    // A new session has nothing to compact: refused once the agent was read.
    const res = await api(`/v1/sessions/${s.session}/compact`, { method: "POST", key: s.key });
    expect(res.status).toBe(409);
    expect(res.headers.get(D1)).toBe("1");
  });

  it("a DELETE counts the object's D1 batch (the session's run records and its index row)", async () => {
    const s = await setup();
    // Warm: the worker's key is cached.
    expect((await api(`/v1/sessions/${s.session}`, { key: s.key })).status).toBe(200);
    const res = await api(`/v1/sessions/${s.session}`, { method: "DELETE", key: s.key });
    expect(res.status).toBe(200);
    expect(res.headers.get(D1)).toBe("3");
  });
});

describe("creating a session while D1 fails", () => {
  afterEach(restorePatches);

  it("a create whose index row D1 fails answers 503 database_unavailable and leaves no session", async () => {
    const s = await setup();
    const id = uid("ses_d1_down");
    const res = await withEnv({ DB: outage((query) => query.includes("INSERT INTO sessions")).db }, "/v1/sessions", {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
      body: JSON.stringify({ agent: s.agent, id }),
    });
    expect([res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([
      503,
      "database_unavailable",
    ]);
    expect((await apiJson(`/v1/sessions/${id}`, { key: s.key })).status).toBe(404);
    expect(await env.DB.prepare("SELECT id FROM sessions WHERE id = ?").bind(id).first()).toBeNull();
  });

  it("a create whose index row D1 wrote before failing is finished by its retry with the same id", async () => {
    const s = await setup();
    const id = uid("ses_cut_short");
    const body = { agent: s.agent, id, metadata: { attempt: "same" } };
    const cut = await withEnv({ DB: answerLost((query) => query.includes("INSERT INTO sessions")) }, "/v1/sessions", {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(cut.status).toBe(503);
    const retry = await apiJson<{ metadata: unknown }>("/v1/sessions", { method: "POST", key: s.key, json: body });
    expect([retry.status, retry.body.metadata]).toEqual([201, { attempt: "same" }]);
    expect((await apiJson(`/v1/sessions/${id}`, { key: s.key })).status).toBe(200);
  });

  it("the retry that finishes a create cut short carries its location_hint on the first call that reaches the object", async () => {
    const s = await setup();
    const id = uid("ses_cut_hinted");
    const body = { agent: s.agent, id, location_hint: "weur" };
    const cut = await withEnv({ DB: answerLost((query) => query.includes("INSERT INTO sessions")) }, "/v1/sessions", {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(cut.status).toBe(503);
    // The object is created where the first call that reaches it says: every stub of the retry carries the hint.
    const hints: Array<string | null> = [];
    const getByName = env.SESSION.getByName.bind(env.SESSION);
    patch(env.SESSION, "getByName", (name, options) => {
      if (name.endsWith(`:${id}`)) hints.push(options?.locationHint ?? null);
      return getByName(name, options);
    });
    const retry = await withEnv({}, "/v1/sessions", {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(retry.status).toBe(201);
    expect(hints.length > 0 && hints.every((hint) => hint === "weur")).toBe(true);
  });

  it("a create without an id whose index row D1 wrote before failing answers 503 and lists only a session that exists", async () => {
    const s = await setup();
    const key = await tenantKey();
    const cut = await withEnv({ DB: answerLost((query) => query.includes("INSERT INTO sessions")) }, "/v1/sessions", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ agent: s.agent }),
    });
    expect(cut.status).toBe(503);
    const listed = await apiJson<{ sessions: Array<{ id: string }> }>("/v1/sessions", { key });
    const read = await Promise.all(
      listed.body.sessions.map(async (session) => (await api(`/v1/sessions/${session.id}`, { key })).status),
    );
    expect(read).toEqual([200]);
  });
});

type InitAnswer = Awaited<ReturnType<Session["init"]>>;

/**
 * Two creates of `id` by `s`'s key, the second sent once the first reached its init, both inits patched: the first's
 * runs `first` once the second has asked the object (describe) whether it holds the session, and found none; the
 * second's runs `second` once the first was answered. `first` and `second` are given the object's own init. The two
 * answers' statuses, in that order.
 */
async function racedCreates(
  s: Setup,
  id: string,
  first: (init: () => Promise<InitAnswer>) => Promise<InitAnswer>,
  second: (init: () => Promise<InitAnswer>) => Promise<InitAnswer>,
): Promise<[number, number]> {
  const firstAtInit = gate();
  const secondDescribed = gate();
  const firstAnswered = gate();
  const init = Session.prototype.init;
  let inits = 0;
  patch(Session.prototype, "init", async function (this: Session, ...args: Parameters<Session["init"]>) {
    inits += 1;
    const own = () => init.apply(this, args);
    if (inits === 1) {
      firstAtInit.open();
      await secondDescribed.opened;
      return first(own);
    }
    await firstAnswered.opened;
    return second(own);
  });
  const describeSession = Session.prototype.describe;
  patch(Session.prototype, "describe", async function (this: Session) {
    const held = await describeSession.call(this);
    secondDescribed.open();
    return held;
  });
  const create = () => apiJson("/v1/sessions", { method: "POST", key: s.key, json: { agent: s.agent, id } });
  const firstAnswer = create();
  await firstAtInit.opened;
  const secondAnswer = create();
  const firstStatus = (await firstAnswer).status;
  firstAnswered.open();
  return [firstStatus, (await secondAnswer).status];
}

describe("two creates of one id, the first's init failing", () => {
  afterEach(restorePatches);

  it("the second, which found the first's row with no session behind it, leaves its 201 session listed", async () => {
    const s = await setup();
    const id = uid("ses_raced");
    // The first create's init fails once the second found its row and no session; the second's init runs once the
    // first's failure deleted that row.
    const statuses = await racedCreates(
      s,
      id,
      async () => {
        throw new Error("the first create's init failed");
      },
      (init) => init(),
    );
    expect(statuses).toEqual([500, 201]);
    expect(await listedIds(s)).toContain(id);
  });
});

describe("a create whose init fails after the object holds the session", () => {
  afterEach(restorePatches);

  it("keeps the index row another create of the id wrote and answered 201 for", async () => {
    const s = await setup();
    const id = uid("ses_kept_row");
    // The first create (its row written) creates the session once the second found that row and no session; the
    // second's init comes after the first's 201, finds the session held, and fails on the way back.
    const statuses = await racedCreates(
      s,
      id,
      (init) => init(),
      async (init) => {
        await init();
        throw new Error("the second create's init failed");
      },
    );
    expect(statuses).toEqual([201, 500]);
    expect(await listedIds(s)).toContain(id);
  });

  it("keeps the index row it wrote, so the session its init created is listed", async () => {
    const s = await setup();
    const id = uid("ses_init_lost");
    const init = Session.prototype.init;
    patch(Session.prototype, "init", async function (this: Session, ...args: Parameters<Session["init"]>) {
      await init.apply(this, args);
      throw new Error("the create's init failed once the session was created");
    });
    const create = await apiJson("/v1/sessions", { method: "POST", key: s.key, json: { agent: s.agent, id } });
    expect(create.status).toBe(500);
    expect(await listedIds(s)).toContain(id);
  });
});
