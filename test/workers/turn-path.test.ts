/**
 * The steady-state turn path (issue 10): no D1 statement per turn, for API
 * keys and session tokens, from a browser origin or not; the session object knows its own existence and
 * agent; and a one-step text turn stays within its SQLite write budget.
 * Counts come from the debug counters (SWITCHBOARD_DEBUG_CHECKS is on in this suite).
 */
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AgentConfig } from "../../src/agents/types";
import { AgentCache, type TurnMark } from "../../src/session/agent-cache";
import { ADMIN, api, apiJson, clientTool, mockRequests, type Setup, script, sessionStub, setup, uid } from "./helpers";
import { runSetup, signedRun } from "./runs-helpers";

const D1 = "x-debug-d1-statements";

async function turn(s: Setup, content: string, key = s.key, headers: Record<string, string> = {}): Promise<Response> {
  const res = await api(`/v1/sessions/${s.session}/messages`, { method: "POST", key, json: { content }, headers });
  await res.text();
  return res;
}

/** The tenant of the setup's key, from the D1 session index (tests may read D1 directly). */
async function tenantOf(s: Setup): Promise<string> {
  const row = await env.DB.prepare("SELECT tenant FROM sessions WHERE id = ?")
    .bind(s.session)
    .first<{ tenant: string }>();
  if (!row) throw new Error("session row missing");
  return row.tenant;
}

async function mint(s: Setup, actions: string[]): Promise<string> {
  const res = await apiJson<{ token: string }>(`/v1/sessions/${s.session}/tokens`, {
    method: "POST",
    key: s.key,
    json: { actions },
  });
  expect(res.status).toBe(201);
  return res.body.token;
}

/** How a test calls: the setup's API key or a minted session token, from an allowed browser origin or not. */
type Caller = "an API key" | "a session token from an allowed origin" | "an API key from an allowed origin";
const CALLERS: Caller[] = ["an API key", "a session token from an allowed origin", "an API key from an allowed origin"];

/** The bearer and headers for `caller`: an origin is added to the tenant's CORS list first. */
async function credentials(s: Setup, caller: Caller): Promise<{ key: string; headers: Record<string, string> }> {
  if (caller === "an API key") return { key: s.key, headers: {} };
  const origin = `https://${uid("app")}.example`;
  const tenant = await tenantOf(s);
  await apiJson(`/v1/tenants/${tenant}/cors`, { method: "PUT", key: ADMIN, json: { allowed_origins: [origin] } });
  const key = caller === "an API key from an allowed origin" ? s.key : await mint(s, ["send", "stream"]);
  return { key, headers: { origin } };
}

describe("no D1 on the steady-state turn path", () => {
  it.each(CALLERS)("a message with %s runs no D1 statement", async (caller) => {
    const s = await setup();
    const { key, headers } = await credentials(s, caller);
    await script(s.model, [{ reply: { text: "one" } }, { reply: { text: "two" } }]);
    await turn(s, "warm", key, headers);
    const res = await turn(s, "steady", key, headers);
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(headers.origin ?? null);
    expect(res.headers.get(D1)).toBe("0");
  });

  it.each(CALLERS)("POST /chat, POST /tool-results and GET /stream with %s run no D1 statement", async (caller) => {
    const s = await setup({ tools: [clientTool("ask_user")] });
    const { key, headers } = await credentials(s, caller);
    const id = uid("toolu_tp");
    await script(s.model, [
      { reply: { text: "warm" } },
      { reply: { tool_calls: [{ id, name: "ask_user", input: { q: "x" } }] } },
      { reply: { text: "thanks" } },
    ]);
    await turn(s, "warm", key, headers);
    const chat = await api(`/v1/sessions/${s.session}/chat`, {
      method: "POST",
      key,
      headers,
      json: { messages: [{ role: "user", parts: [{ type: "text", text: "ask me" }] }] },
    });
    await chat.text();
    expect(chat.status).toBe(200);
    expect(chat.headers.get(D1)).toBe("0");
    const results = await api(`/v1/sessions/${s.session}/tool-results`, {
      method: "POST",
      key,
      headers,
      json: { results: [{ tool_use_id: id, content: "yes" }] },
    });
    await results.text();
    expect(results.status).toBe(200);
    expect(results.headers.get(D1)).toBe("0");
    const stream = await api(`/v1/sessions/${s.session}/stream?after=0`, { key, headers });
    await stream.text();
    expect(stream.status).toBe(200);
    expect(stream.headers.get(D1)).toBe("0");
  });

  it("an unknown session is a 404 from its object, with no D1 read and nothing stored", async () => {
    const s = await setup();
    const ghost = uid("ghost");
    const res = await api(`/v1/sessions/${ghost}/messages`, { method: "POST", key: s.key, json: { content: "x" } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_found");
    expect(res.headers.get(D1)).toBe("0");
    const tenant = await tenantOf(s);
    const tables = await runInDurableObject(env.SESSION.getByName(`${tenant}:${ghost}`), (_i, state) =>
      state.storage.sql.exec("SELECT count(*) AS n FROM sqlite_master").one(),
    );
    expect(tables.n).toBe(0);
  });
});

describe("the agent config lives in the session object", () => {
  it("a reconfigured agent is used from the next turn, read once by the object", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }, { reply: { text: "two" } }, { reply: { text: "three" } }]);
    await turn(s, "before");
    const put = await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: { model: { provider: "anthropic", name: s.model }, system: "You are the reconfigured agent." },
    });
    expect(put.status).toBe(200);
    const first = await turn(s, "after");
    expect(first.headers.get(D1)).toBe("1");
    const second = await turn(s, "again");
    expect(second.headers.get(D1)).toBe("0");
    const systems = (await mockRequests(s.model)).map((r) => JSON.stringify(r.body.system));
    expect(systems[0]).toContain("You are a test agent.");
    expect(systems[1]).toContain("You are the reconfigured agent.");
    expect(systems[2]).toContain("You are the reconfigured agent.");
  });

  it("a turn paused for a client tool resumes with the config it was admitted with; the next turn gets the new one", async () => {
    const s = await setup({ tools: [clientTool("ask_user")] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_pin", name: "ask_user", input: { q: "which?" } }] } },
      { reply: { text: "resumed" } },
      { reply: { text: "next turn" } },
    ]);
    const paused = await apiJson<{ status: string }>(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "ask me" },
    });
    expect(paused.body.status).toBe("awaiting_tool_results");
    const put = await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: { model: { provider: "anthropic", name: s.model }, system: "You are the reconfigured agent." },
    });
    expect(put.status).toBe(200);
    // A read of the session meanwhile (the worker brings the new epoch) does not swap the paused turn's config.
    expect((await apiJson(`/v1/sessions/${s.session}`, { key: s.key })).status).toBe(200);
    const resumed = await apiJson<{ status: string }>(`/v1/sessions/${s.session}/tool-results`, {
      method: "POST",
      key: s.key,
      json: { results: [{ tool_use_id: "toolu_pin", content: "the blue one" }] },
    });
    expect(resumed.body.status).toBe("completed");
    expect((await turn(s, "and now")).status).toBe(200);
    const requests = await mockRequests(s.model);
    const systems = requests.map((r) => JSON.stringify(r.body.system));
    const tools = requests.map((r) => ((r.body.tools as Array<{ name: string }> | undefined) ?? []).map((t) => t.name));
    expect(systems[1]).toContain("You are a test agent.");
    expect(tools[1]).toContain("ask_user");
    expect(systems[2]).toContain("You are the reconfigured agent.");
    expect(tools[2]).not.toContain("ask_user");
  });

  it("a refused message while a turn is paused leaves that turn its config (the new one waits for an admission)", async () => {
    const s = await setup({ tools: [clientTool("ask_user")] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_pin_refused", name: "ask_user", input: { q: "which?" } }] } },
      { reply: { text: "resumed" } },
    ]);
    await apiJson(`/v1/sessions/${s.session}/messages`, { method: "POST", key: s.key, json: { content: "ask me" } });
    await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: { model: { provider: "anthropic", name: s.model }, system: "You are the reconfigured agent." },
    });
    // An admission the session refuses (a result for a call it never made): the pause is not ended.
    const refused = await apiJson(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "x", tool_results: [{ tool_use_id: "toolu_nope", content: "?" }] },
    });
    expect(refused.status).toBe(404);
    const resumed = await apiJson<{ status: string }>(`/v1/sessions/${s.session}/tool-results`, {
      method: "POST",
      key: s.key,
      json: { results: [{ tool_use_id: "toolu_pin_refused", content: "the blue one" }] },
    });
    expect(resumed.body.status).toBe("completed");
    const last = (await mockRequests(s.model)).at(-1);
    expect(JSON.stringify(last?.body.system)).toContain("You are a test agent.");
    expect(((last?.body.tools as Array<{ name: string }> | undefined) ?? []).map((t) => t.name)).toContain("ask_user");
  });

  it("a run queued behind a client's paused turn does not swap that turn's config", async () => {
    const s = await runSetup(undefined, { tools: [clientTool("ask_user")] });
    const session = uid("pinned");
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_pin_run", name: "ask_user", input: { q: "which?" } }] } },
      { reply: { text: "resumed" } },
      { reply: { text: "the run's answer" } },
    ]);
    expect(
      (await apiJson("/v1/sessions", { method: "POST", key: s.key, json: { agent: s.agent, id: session } })).status,
    ).toBe(201);
    await apiJson(`/v1/sessions/${session}/messages`, { method: "POST", key: s.key, json: { content: "ask me" } });
    await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: {
        model: { provider: "anthropic", name: s.model },
        system: "You are the reconfigured agent.",
        webhook_secrets: s.secrets,
        webhook_tenant: s.tenant,
      },
    });
    expect((await signedRun(s, { input: "later", session_id: session })).status).toBe(202);
    const resumed = await apiJson<{ status: string }>(`/v1/sessions/${session}/tool-results`, {
      method: "POST",
      key: s.key,
      json: { results: [{ tool_use_id: "toolu_pin_run", content: "the blue one" }] },
    });
    expect(resumed.body.status).toBe("completed");
    const second = (await mockRequests(s.model))[1];
    expect(JSON.stringify(second?.body.system)).toContain("You are a run agent.");
  });

  it("a change after the database was restored to an older copy (its epoch went back) still reaches the session", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }, { reply: { text: "two" } }]);
    const put = (system: string) =>
      apiJson(`/v1/agents/${s.agent}`, {
        method: "PUT",
        key: ADMIN,
        json: { model: { provider: "anthropic", name: s.model }, system },
      });
    expect((await put("Before the restore.")).status).toBe(200);
    await turn(s, "before");
    // D1 Time Travel to a copy from before those changes: the counter is back where it was.
    await env.DB.prepare("UPDATE agent_epoch SET epoch = 0 WHERE id = 1").run();
    expect((await put("After the restore.")).status).toBe(200);
    await turn(s, "after");
    const systems = (await mockRequests(s.model)).map((r) => JSON.stringify(r.body.system));
    expect(systems[0]).toContain("Before the restore.");
    expect(systems[1]).toContain("After the restore.");
  });

  it("a deleted agent refuses the next turn with 409 agent_missing and writes nothing", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }]);
    await turn(s, "before");
    expect((await apiJson(`/v1/agents/${s.agent}`, { method: "DELETE", key: ADMIN })).status).toBe(200);
    const res = await apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "after" },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("agent_missing");
    const state = await apiJson<{ messages: number; turns: number }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body).toMatchObject({ messages: 2, turns: 1 });
  });

  it("a message refused for a deleted agent counts the object's D1 read in x-debug-d1-statements", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }]);
    await turn(s, "before");
    expect((await apiJson(`/v1/agents/${s.agent}`, { method: "DELETE", key: ADMIN })).status).toBe(200);
    const res = await turn(s, "after");
    expect(res.status).toBe(409);
    expect(res.headers.get(D1)).toBe("1");
  });

  it("while a turn is paused, messages refused for a deleted agent read D1 once, not each", async () => {
    const s = await setup({ tools: [clientTool("ask_user")] });
    await script(s.model, [{ reply: { tool_calls: [{ id: "toolu_pin_gone", name: "ask_user", input: {} }] } }]);
    await apiJson(`/v1/sessions/${s.session}/messages`, { method: "POST", key: s.key, json: { content: "ask me" } });
    expect((await apiJson(`/v1/agents/${s.agent}`, { method: "DELETE", key: ADMIN })).status).toBe(200);
    const stub = (await sessionStub(s)) as unknown as { debugCounts(): Promise<{ d1_statements: number }> };
    const before = (await stub.debugCounts()).d1_statements;
    const codes: string[] = [];
    for (const content of ["one", "two", "three"]) {
      const res = await apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/messages`, {
        method: "POST",
        key: s.key,
        json: { content },
      });
      codes.push(res.body.error.code);
    }
    expect(codes).toEqual(["agent_missing", "agent_missing", "agent_missing"]);
    expect((await stub.debugCounts()).d1_statements - before).toBe(1);
  });

  it("a session whose object has no cached agent (created before the cache) reads it from D1 once", async () => {
    const s = await setup();
    const tenant = await tenantOf(s);
    await runInDurableObject(env.SESSION.getByName(`${tenant}:${s.session}`), (_i, state) => {
      state.storage.sql.exec("DELETE FROM agent_config");
    });
    // A fresh instance, as after a deploy: the in-memory copy is gone too.
    await abortAllDurableObjects();
    await script(s.model, [{ reply: { text: "one" } }, { reply: { text: "two" } }]);
    const first = await turn(s, "first");
    expect(first.status).toBe(200);
    expect(first.headers.get(D1)).toBe("1");
    expect((await turn(s, "second")).headers.get(D1)).toBe("0");
  });
});

/** A D1 whose agent read waits until `release`, then answers `config` at `epoch` (the agent as changed meanwhile). */
function heldRead(config: AgentConfig, epoch: number): { db: D1Database; release: () => void } {
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const first = async () => {
    await gate;
    return { epoch, config: JSON.stringify(config) };
  };
  return { db: { prepare: () => ({ bind: () => ({ first }) }) } as unknown as D1Database, release };
}

describe("the agent config of a turn stays while the object reads a newer one", () => {
  const admitted = { model: { provider: "anthropic", name: "m" }, system: "admitted" } as AgentConfig;
  const changed = { ...admitted, system: "changed" } as AgentConfig;

  it("a paused turn resumed while a message's admission read D1 keeps its config for its next step", async () => {
    const s = await setup();
    const system = await runInDurableObject(await sessionStub(s), async (_i, state) => {
      let turn: TurnMark = { open: "paused", id: "turn_held_a" };
      const d1 = heldRead(changed, 50);
      const cache = new AgentCache(
        () => state.storage.sql,
        () => d1.db,
        () => turn,
      );
      cache.prime(s.agent, admitted, 1);
      const admission = cache.resolve(s.agent, { epoch: 50, since: 40, changed: [[s.agent, 50]] }, true);
      turn = { open: "running", id: "turn_held_a" }; // its client's results resumed it during the read
      d1.release();
      await admission; // refused by the engine: a turn runs
      turn = { open: "paused", id: "turn_held_a" }; // paused again, for its next client call
      const results = await cache.resolve(s.agent, { epoch: 50, since: 40, changed: [[s.agent, 50]] });
      return results.ok ? results.agent.system : results.error.code;
    });
    expect(system).toBe("admitted");
  });

  it("a client turn started while a run's start read D1 keeps its config", async () => {
    const s = await setup();
    const system = await runInDurableObject(await sessionStub(s), async (_i, state) => {
      let turn: TurnMark = { open: null, id: "turn_held_b" };
      const d1 = heldRead(changed, 50);
      const cache = new AgentCache(
        () => state.storage.sql,
        () => d1.db,
        () => turn,
      );
      cache.prime(s.agent, admitted, 1);
      // The copy is older than the 60 s a run may use it for: the run's start reads D1.
      state.storage.sql.exec("UPDATE agent_config SET fetched_at = '2000-01-01T00:00:00.000Z'");
      cache.invalidate();
      const start = cache.current(s.agent, true);
      turn = { open: "running", id: "turn_held_c" }; // a client's message started a turn during the read
      d1.release();
      await start; // the run sees the turn and waits
      const next = await cache.resolve(s.agent, { epoch: 1, since: 0, changed: [] });
      return next.ok ? next.agent.system : next.error.code;
    });
    expect(system).toBe("admitted");
  });
});

describe("a lean session object", () => {
  /** SQLite rows written by one JSON-mode turn (the whole turn), from the debug counters. */
  async function rowsOf(s: Setup, content: string): Promise<number> {
    return (await countsOf(s, content)).rows;
  }

  /** SQLite statements and rows written by one JSON-mode turn (the whole turn), from the debug counters. */
  async function countsOf(s: Setup, content: string): Promise<{ statements: number; rows: number }> {
    const res = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content },
      headers: { accept: "application/json" },
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { status: string }).status).toBe("completed");
    return {
      statements: Number(res.headers.get("x-debug-sql-statements")),
      rows: Number(res.headers.get("x-debug-sql-rows-written")),
    };
  }

  it("from the third turn on, a turn's end does not look at retention again", async () => {
    const s = await setup();
    await script(
      s.model,
      ["one", "two", "three", "four", "five"].map((text) => ({ reply: { text } })),
    );
    const [, second, third, fourth, fifth] = [
      await countsOf(s, "first"),
      await countsOf(s, "second"),
      await countsOf(s, "third"),
      await countsOf(s, "fourth"),
      await countsOf(s, "fifth"),
    ];
    // The second turn's end schedules the sweep for the first turn's stream log (src/session/sweeper.ts): 4
    // reads for the next expiry, 5 for the session's last activity (this suite keeps idle sessions 400 days),
    // the job's upsert, and 2 reads that find the job early enough for anything newer: later ends skip all 12.
    // The upsert also makes the scheduler read the earliest job again, at that end and at the third turn's
    // start (src/session/scheduler.ts); from the fourth turn on, both reads are remembered.
    expect(third.statements).toBe(second.statements - 13);
    expect(fourth.statements).toBe(third.statements - 1);
    expect(fifth.statements).toBe(fourth.statements);
  });

  it("a steady-state text turn runs nine SQLite statements (README 'A lean object'), none for runs it never had", async () => {
    const s = await setup();
    await script(
      s.model,
      ["one", "two", "three", "four"].map((text) => ({ reply: { text } })),
    );
    for (const content of ["first", "second", "third"]) await countsOf(s, content);
    expect((await countsOf(s, "fourth")).statements).toBe(9);
  });

  it("a one-step text turn writes at most 8 SQLite rows, plus the documented once-per-session and sweep rows", async () => {
    const s = await setup();
    await script(
      s.model,
      ["one two three", "eight nine", "four five six seven", "ten", "eleven"].map((text) => ({ reply: { text } })),
    );
    await rowsOf(s, "first");
    // Every turn after the first is counted; README "A lean object" names each row beyond the 8.
    const [second, third, fourth, fifth] = [
      await rowsOf(s, "second"),
      await rowsOf(s, "third"),
      await rowsOf(s, "fourth"),
      await rowsOf(s, "fifth"),
    ];
    expect(third).toBeGreaterThan(0);
    expect(third).toBeLessThanOrEqual(8);
    // The second turn moves the retention sweep job earlier, once per session: the first turn's stream log
    // becomes sweepable (src/session/sweeper.ts). The job row and its due_at index: +2.
    expect(second).toBeLessThanOrEqual(8 + 2);
    // From the fourth turn on, each turn deletes the stream-log row it pushes out of replay: +1.
    expect(fourth).toBeLessThanOrEqual(8 + 1);
    expect(fifth).toBeLessThanOrEqual(8 + 1);
  });

  it("turns inside the heartbeat window leave the session's alarm as the first one set it", async () => {
    const s = await setup();
    await script(
      s.model,
      ["one", "two", "three"].map((text) => ({ reply: { text } })),
    );
    const object = env.SESSION.getByName(`${await tenantOf(s)}:${s.session}`);
    const alarmOf = () => runInDurableObject(object, (_i, state) => state.storage.getAlarm());
    await rowsOf(s, "first");
    const first = await alarmOf();
    // The first turn's heartbeat (30 s ahead), earlier than the sweep job it would otherwise move to.
    expect(first).toBeGreaterThan(Date.now());
    expect(first).toBeLessThanOrEqual(Date.now() + 30_000);
    for (const content of ["second", "third"]) {
      await new Promise((r) => setTimeout(r, 5));
      await rowsOf(s, content);
      // An alarm write at a turn's start or end would hold its stream back until confirmed (the output gate).
      expect(await alarmOf()).toBe(first);
    }
  });
});
