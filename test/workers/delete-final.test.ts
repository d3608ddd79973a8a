// DELETE is final: a message or a queued run that was waiting on network I/O (here an MCP server that is
// slow to list its tools) when the session was deleted writes nothing into the wiped object afterwards. A DELETE
// that cannot reach D1 removes nothing, and stops nothing either.
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { handToSession } from "../../src/runs/admission";
import { Session } from "../../src/session/session";
import {
  api,
  apiJson,
  heldToolUrl,
  mockRequests,
  patch,
  queueRun,
  releaseTool,
  restorePatches,
  type Setup,
  script,
  send,
  sessionStub,
  setup,
  uid,
} from "./helpers";
import { runSetup, runStub } from "./runs-helpers";

type Stub = ReturnType<typeof runStub>;

/** Rows in every table of the object, except the schema version the wipe re-creates. */
async function rowsLeft(stub: Stub): Promise<Record<string, number>> {
  return runInDurableObject(stub, (_i, state) => {
    const sql = state.storage.sql;
    const tables = sql
      .exec<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
      )
      .toArray()
      .map((t) => t.name);
    const counts: Record<string, number> = {};
    for (const t of tables) {
      const where = t === "meta" ? " WHERE key != 'schema_version'" : "";
      const n = sql.exec<{ n: number }>(`SELECT count(*) AS n FROM "${t}"${where}`).one().n;
      if (n > 0) counts[t] = n;
    }
    return counts;
  });
}

/** Resolves once the slow endpoint (an MCP listing, an http tool) has received its first request. */
async function listing(tag: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const stats = (await (await fetch(`${env.MOCK_URL}/_tool/stats?tag=${tag}`)).json()) as object | null;
    if (stats !== null) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("the MCP listing never started");
}

/**
 * The alarms session objects start from now on (Session.prototype.alarm, which the objects share with the test: same
 * isolate); `ended` resolves once every one of them has returned. Patched: the describe restores it afterEach.
 */
function watchAlarms(): { ended(): Promise<void> } {
  const started: Array<Promise<void>> = [];
  const alarm = Session.prototype.alarm;
  patch(Session.prototype, "alarm", function (this: Session) {
    const work = alarm.call(this);
    started.push(work);
    return work;
  });
  return {
    ended: async () => {
      if (started.length === 0) throw new Error("no alarm started");
      await Promise.allSettled(started);
    },
  };
}

const slowMcp = (tag: string) => ({
  mcp_servers: [{ name: "slow", url: `${env.MOCK_URL}/_tool?delay_ms=1500&tag=${tag}` }],
});

describe("DELETE while work waits on network I/O", () => {
  afterEach(restorePatches);

  it("a message admitted before the delete writes nothing afterwards", async () => {
    const tag = uid("mcp");
    const s = await runSetup(undefined, slowMcp(tag));
    const session = (
      await apiJson<{ id: string }>("/v1/sessions", { method: "POST", key: s.key, json: { agent: s.agent } })
    ).body.id;
    await script(s.model, [{ reply: { text: "Resurrected?" } }]);
    const sending = apiJson(`/v1/sessions/${session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "hello" },
    });
    await listing(tag);
    const del = await apiJson(`/v1/sessions/${session}`, { method: "DELETE", key: s.key });
    expect(del.status).toBe(200);
    const sent = await sending;
    expect(sent.status).toBe(404);
    expect(await rowsLeft(runStub(s, session))).toEqual({});
    expect(await mockRequests(s.model)).toEqual([]);
    expect((await apiJson(`/v1/sessions/${session}/messages`, { key: s.key })).status).toBe(404);
  });

  it("a queued run that was starting writes nothing afterwards", async () => {
    const tag = uid("mcp");
    const s = await runSetup(undefined, slowMcp(tag));
    await script(s.model, [{ reply: { text: "Resurrected?" } }]);
    const alarms = watchAlarms();
    const queued = await api(`/v1/agents/${s.agent}/runs`, {
      method: "POST",
      key: s.key,
      json: { input: "report", callback_url: "https://callback.example.com/hook" },
    });
    expect(queued.status).toBe(202);
    const { session_id: session } = (await queued.json()) as { session_id: string };
    await listing(tag);
    expect((await apiJson(`/v1/sessions/${session}`, { method: "DELETE", key: s.key })).status).toBe(200);
    // The alarm's work resumes when the listing ends (answered, or aborted by the DELETE closing the session's
    // MCP links) and must find the session gone: the check comes once that alarm has returned.
    await alarms.ended();
    expect(await rowsLeft(runStub(s, session))).toEqual({});
    expect(await mockRequests(s.model)).toEqual([]);
  });
});

describe("DELETE against a webhook run admitted just before it", () => {
  it("the run arriving after the wipe does not bring the session back; a run admitted after the delete creates it anew", async () => {
    const s = await runSetup();
    const session = (
      await apiJson<{ id: string }>("/v1/sessions", { method: "POST", key: s.key, json: { agent: s.agent } })
    ).body.id;
    const stub = runStub(s, session) as unknown as {
      enqueueRun(info: object, spec: object): Promise<{ ok: boolean; error?: { code: string } }>;
    };
    const admitted = new Date(Date.now() - 1000).toISOString();
    const info = (at: string) => ({ tenant: s.tenant, id: session, agent: s.agent, created_at: at, metadata: null });
    const spec = (id: string, at: string) => ({
      id,
      agent: s.agent,
      input: [{ type: "text", text: "report" }],
      created_at: at,
    });
    // The run's worker saw the index row before the delete; its hand-over reaches the object after the wipe.
    expect((await apiJson(`/v1/sessions/${session}`, { method: "DELETE", key: s.key })).status).toBe(200);
    const late = await stub.enqueueRun(info(admitted), spec(uid("run_before"), admitted));
    expect([late.ok, late.error?.code]).toEqual([false, "not_found"]);
    expect(await rowsLeft(runStub(s, session))).toEqual({});
    expect((await apiJson(`/v1/sessions/${session}`, { key: s.key })).status).toBe(404);

    const later = new Date(Date.now() + 1000).toISOString();
    expect((await stub.enqueueRun(info(later), spec(uid("run_after"), later))).ok).toBe(true);
  });

  it("the object's delete removes the D1 rows before its storage: a run admitted right after it is listed and readable", async () => {
    const s = await runSetup();
    const session = (
      await apiJson<{ id: string }>("/v1/sessions", { method: "POST", key: s.key, json: { agent: s.agent } })
    ).body.id;
    const stub = runStub(s, session) as unknown as {
      destroy(tenant: string, id: string): Promise<{ ok: boolean }>;
    };
    // The DELETE route's call into the object; nothing the route does after it may undo a run admitted meanwhile.
    expect((await stub.destroy(s.tenant, session)).ok).toBe(true);
    const listed = async () =>
      (await apiJson<{ sessions: Array<{ id: string }> }>("/v1/sessions?limit=200", { key: s.key })).body.sessions.map(
        (x) => x.id,
      );
    expect(await listed()).not.toContain(session);
    await script(s.model, [{ reply: { text: "fresh" } }]);
    const queued = await apiJson<{ run_id: string }>(`/v1/agents/${s.agent}/runs`, {
      method: "POST",
      key: s.key,
      json: { input: "report", session_id: session },
    });
    expect(queued.status).toBe(202);
    expect(await listed()).toContain(session);
    expect((await apiJson(`/v1/runs/${queued.body.run_id}`, { key: s.key })).status).toBe(200);
  });

  it("a run handed over after the delete leaves no index row: the id is not listed and can be created again", async () => {
    const s = await runSetup();
    const session = (
      await apiJson<{ id: string }>("/v1/sessions", { method: "POST", key: s.key, json: { agent: s.agent } })
    ).body.id;
    const admitted = new Date(Date.now() - 1000).toISOString();
    expect((await apiJson(`/v1/sessions/${session}`, { method: "DELETE", key: s.key })).status).toBe(200);
    const record = {
      id: uid("run_late"),
      tenant: s.tenant,
      agent: s.agent,
      session_id: session,
      idempotency_key: null,
      body_hash: "late",
      auth: "key",
      request: JSON.stringify({ input: [{ type: "text", text: "report" }] }),
      created_at: admitted,
      accepted_at: null,
    };
    await expect(handToSession(env, record)).rejects.toMatchObject({ status: 404 });
    const listed = await apiJson<{ sessions: Array<{ id: string }> }>("/v1/sessions?limit=200", { key: s.key });
    expect(listed.body.sessions.map((x) => x.id)).not.toContain(session);
    const again = await apiJson("/v1/sessions", { method: "POST", key: s.key, json: { agent: s.agent, id: session } });
    expect(again.status).toBe(201);
  });
});

/**
 * Holds the object's D1 read of its agent (readAgent) until `release`; every other statement goes through.
 * `started` resolves once the read is waiting. `restore` puts the binding back.
 */
function holdAgentRead(instance: Session) {
  const db = (instance as unknown as { env: { DB: D1Database } }).env.DB;
  const prepare = db.prepare;
  let reading!: () => void;
  const started = new Promise<void>((r) => {
    reading = r;
  });
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  db.prepare = (query: string) => {
    const statement = prepare.call(db, query);
    if (!query.includes("FROM agents WHERE name")) return statement;
    const held = (...values: unknown[]) => {
      const bound = statement.bind(...values);
      return {
        first: async () => {
          reading();
          await gate;
          return bound.first();
        },
      };
    };
    return { bind: held } as unknown as D1PreparedStatement;
  };
  return { started, release, restore: () => (db.prepare = prepare) };
}

/** An epoch newer than any session's copy, whose changes reach back to none: the object re-reads its agent first. */
const NEWER = { epoch: Number.MAX_SAFE_INTEGER, since: Number.MAX_SAFE_INTEGER, changed: [] };

describe("DELETE while a call re-reads its agent from D1", () => {
  it("a turn call answers 404 (deleted), reading nothing of the dropped tables", async () => {
    const s = await runSetup();
    const session = (
      await apiJson<{ id: string }>("/v1/sessions", { method: "POST", key: s.key, json: { agent: s.agent } })
    ).body.id;
    await runInDurableObject(runStub(s, session), async (instance: Session) => {
      const hold = holdAgentRead(instance);
      try {
        const answering = instance.submitToolResults(NEWER, [], "json");
        await hold.started;
        expect((await instance.destroy(s.tenant, session)).ok).toBe(true);
        hold.release();
        const answer = await answering;
        expect(answer.ok ? null : answer.error.code).toBe("not_found");
      } finally {
        hold.restore();
      }
    });
    expect(await rowsLeft(runStub(s, session))).toEqual({});
  });

  it("a state read answers 404 (deleted), reading nothing of the dropped tables", async () => {
    const s = await runSetup();
    const session = (
      await apiJson<{ id: string }>("/v1/sessions", { method: "POST", key: s.key, json: { agent: s.agent } })
    ).body.id;
    await runInDurableObject(runStub(s, session), async (instance: Session) => {
      const hold = holdAgentRead(instance);
      try {
        const reading = instance.state(NEWER);
        await hold.started;
        expect((await instance.destroy(s.tenant, session)).ok).toBe(true);
        hold.release();
        const answer = await reading;
        expect(answer.ok ? null : answer.error.code).toBe("not_found");
      } finally {
        hold.restore();
      }
    });
  });
  it("a queued run starting stops quietly, reading nothing of the dropped tables", async () => {
    const s = await runSetup();
    const session = (
      await apiJson<{ id: string }>("/v1/sessions", { method: "POST", key: s.key, json: { agent: s.agent } })
    ).body.id;
    // A copy over a minute old, held by a restarted object only: the run's start re-reads the agent from D1.
    await runInDurableObject(runStub(s, session), (_i, state) => {
      state.storage.sql.exec("UPDATE agent_config SET fetched_at = ?", new Date(Date.now() - 61_000).toISOString());
    });
    await abortAllDurableObjects();
    const failed = await runInDurableObject(runStub(s, session), async (instance: Session, state) => {
      const run = uid("run_deleted");
      queueRun(state.storage.sql, run, s.agent, "report");
      const hold = holdAgentRead(instance);
      const errors = vi.spyOn(console, "error");
      try {
        const alarm = instance.alarm();
        await hold.started;
        expect((await instance.destroy(s.tenant, session)).ok).toBe(true);
        hold.release();
        await alarm;
        return errors.mock.calls.map((c) => String(c[0])).filter((line) => line.includes(run));
      } finally {
        errors.mockRestore();
        hold.restore();
      }
    });
    expect(failed).toEqual([]);
    expect(await rowsLeft(runStub(s, session))).toEqual({});
  });
});

/**
 * DELETEs the session while the object's D1 batch (the index and run rows' delete) fails: 503 database_unavailable,
 * to be retried after 5 s.
 */
async function deleteWithoutD1(s: Setup): Promise<void> {
  await runInDurableObject(await sessionStub(s), (instance: Session) => {
    const db = (instance as unknown as { env: { DB: D1Database } }).env.DB;
    patch(db, "batch", async () => {
      throw new Error("D1_ERROR: Network connection lost.");
    });
  });
  const del = await api(`/v1/sessions/${s.session}`, { method: "DELETE", key: s.key });
  restorePatches();
  const { error } = (await del.json()) as { error: { code: string } };
  expect([del.status, error.code, del.headers.get("retry-after")]).toEqual([503, "database_unavailable", "5"]);
}

describe("DELETE when the database cannot be reached", () => {
  afterEach(restorePatches);

  it("answers 503 and leaves the running turn running, to complete", async () => {
    const tag = uid("tool");
    const slow = {
      name: "slow_fetch",
      description: "answers once released, after the DELETE",
      input_schema: { type: "object" },
      execution: { type: "http", url: `${heldToolUrl(tag)}&tag=${tag}` },
    };
    const s = await setup({ tools: [slow] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_slow_1", name: "slow_fetch", input: {} }] } },
      { reply: { text: "still here" } },
    ]);
    const sending = send(s, { content: "fetch it" });
    await listing(tag);
    await deleteWithoutD1(s);
    expect((await apiJson<{ status: string }>(`/v1/sessions/${s.session}`, { key: s.key })).body.status).toBe(
      "running",
    );
    await releaseTool(tag);
    const turn = await sending;
    expect([turn.status, turn.body.status]).toEqual([201, "completed"]);
    expect(JSON.stringify(turn.body.messages)).toContain("still here");
  });

  it("answers 503 and a message waiting on an MCP listing goes on, to complete", async () => {
    const tag = uid("mcp");
    // The listing is answered once released, after the DELETE.
    const s = await setup({ mcp_servers: [{ name: "slow", url: `${heldToolUrl(tag)}&tag=${tag}` }] });
    await script(s.model, [{ reply: { text: "still here" } }]);
    const sending = send(s, { content: "hello" });
    await listing(tag);
    await deleteWithoutD1(s);
    await releaseTool(tag);
    const turn = await sending;
    expect([turn.status, turn.body.status]).toEqual([201, "completed"]);
    expect(JSON.stringify(turn.body.messages)).toContain("still here");
  });
});
