// Runs driven by the session's alarm: runs a crash interrupted resumed or failed, callbacks retried and signed,
// approvals expiring, and an alarm meeting a DELETE or an agent change.
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { AgentCache } from "../../src/session/agent-cache";
import { HistoryStore } from "../../src/session/history/history-store";
import { RunStore } from "../../src/session/runs/run-store";
import { TurnStore } from "../../src/session/turn/turn-store";
import {
  ADMIN,
  apiJson,
  expectOnlySweepLeft,
  mockRequests,
  pairingProblems,
  patch,
  restorePatches,
  uid,
} from "./helpers";
import {
  deliveries,
  ended,
  getRun,
  newSecret,
  type RunSetup,
  runSetup,
  runStub,
  script,
  sessionWithQueuedRuns,
  signedRun,
  waitRun,
} from "./runs-helpers";

afterEach(restorePatches);

async function start(s: RunSetup, body: Record<string, unknown>): Promise<{ run_id: string; session_id: string }> {
  const res = await signedRun(s, body);
  expect(res.status).toBe(202);
  return (await res.json()) as { run_id: string; session_id: string };
}

const alarmOf = (s: RunSetup, session: string) =>
  runInDurableObject(runStub(s, session), (_i, state) => state.storage.getAlarm());

/** Makes the session's callback job due now and runs its alarm, as the clock would after the backoff. */
async function advance(s: RunSetup, session: string): Promise<void> {
  await runInDurableObject(runStub(s, session), (_i, state) => {
    state.storage.sql.exec("UPDATE jobs SET due_at = 0 WHERE kind = 'callback'");
  });
  expect(await runDurableObjectAlarm(runStub(s, session))).toBe(true);
}

describe("a run interrupted by a crash", () => {
  it("is resumed by the alarm after the restart and completes", async () => {
    const s = await runSetup();
    await script(s.model, [
      { reply: { text: "never finished" }, faults: { stall_before_ms: 1000 } },
      { reply: { text: "Recovered." } },
    ]);
    const a = await start(s, { input: "work" });
    await waitRun(s, a.run_id, (r) => r.status === "running");
    // The heartbeat is armed while the run's turn runs.
    expect(await alarmOf(s, a.session_id)).not.toBeNull();
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(runStub(s, a.session_id))).toBe(true);
    const run = await waitRun(s, a.run_id, ended);
    expect(run).toMatchObject({ status: "completed", resumes: 1 });
    expect(run.result?.output).toBe("Recovered.");
    const state = await runInDurableObject(runStub(s, a.session_id), (_i, st) =>
      st.storage.sql.exec<{ status: string }>("SELECT status FROM turns ORDER BY ord").toArray(),
    );
    expect(state.map((t) => t.status)).toEqual(["interrupted", "completed"]);
    expect((await mockRequests(s.model)).filter((r) => r.rejected)).toEqual([]);
  });

  it("fails visibly when it cannot be resumed any more", async () => {
    const s = await runSetup();
    const stall = { reply: { text: "x" }, faults: { stall_before_ms: 1000 } };
    await script(s.model, [stall, stall, stall]);
    const a = await start(s, { input: "work" });
    for (let i = 0; i < 3; i++) {
      await waitRun(s, a.run_id, (r) => r.status === "running" && r.resumes === i);
      await new Promise((r) => setTimeout(r, 100));
      await abortAllDurableObjects();
      expect(await runDurableObjectAlarm(runStub(s, a.session_id))).toBe(true);
    }
    const run = await waitRun(s, a.run_id, ended);
    expect(run.status).toBe("failed");
    expect(run.error?.code).toBe("interrupted");
    expect(run.resumes).toBe(2);
    const msgs = await runInDurableObject(runStub(s, a.session_id), (_i, st) =>
      st.storage.sql.exec<{ role: string; parts: string }>("SELECT role, parts FROM messages ORDER BY seq").toArray(),
    );
    const history = msgs.map((m, i) => ({ seq: i + 1, role: m.role, origin: "x", parts: JSON.parse(m.parts) }));
    expect(pairingProblems(history)).toEqual([]);
  });
});

describe("a run interrupted by a crash in a long, compacted session", () => {
  it("concludes from its resumed turn's own messages, reading no history from before the compaction view", async () => {
    const s = await runSetup();
    const session_id = uid("ses");
    const created = await apiJson("/v1/sessions", {
      method: "POST",
      key: s.key,
      json: { agent: s.agent, id: session_id },
    });
    expect(created.status).toBe(201);
    const turns = Array.from({ length: 40 }, (_, i) => ({
      user: `question ${i} ${"q".repeat(1000)}`,
      assistant: `answer ${i}`,
    }));
    const seeded = await apiJson(`/v1/sessions/${session_id}/debug/seed`, {
      method: "POST",
      key: s.key,
      json: { turns },
      undocumented: "the debug seeding route is for tests, not in the contract",
    });
    expect(seeded.status).toBe(200);
    const compacted = await apiJson(`/v1/sessions/${session_id}/compact`, { method: "POST", key: s.key });
    expect(compacted.status).toBe(200);
    await script(s.model, [
      { reply: { text: "never finished" }, faults: { stall_before_ms: 1000 } },
      { reply: { text: "Recovered." } },
    ]);
    const a = await start(s, { input: "work", session_id });
    await waitRun(s, a.run_id, (r) => r.status === "running");
    await abortAllDurableObjects();
    // Every read of stored messages from here on: where it started, and where the view started then.
    const reads: Array<{ seq: number; viewStart: number }> = [];
    const since = HistoryStore.prototype.since;
    patch(HistoryStore.prototype, "since", function (this: HistoryStore, seq) {
      reads.push({ seq, viewStart: this.viewStart() });
      return since.call(this, seq);
    });
    expect(await runDurableObjectAlarm(runStub(s, session_id))).toBe(true);
    const run = await waitRun(s, a.run_id, ended);
    expect(run).toMatchObject({ status: "completed", resumes: 1, result: { output: "Recovered." } });
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.filter((r) => r.seq < r.viewStart)).toEqual([]);
  });
});

describe("a run interrupted by a crash, whose re-check cannot finish at once", () => {
  /** A run whose turn stalls, cut off by a crash once it is running. */
  async function crashedRun(s: RunSetup, replies: unknown[] = []): Promise<{ run_id: string; session_id: string }> {
    await script(s.model, [{ reply: { text: "never finished" }, faults: { stall_before_ms: 1000 } }, ...replies]);
    const a = await start(s, { input: "work" });
    await waitRun(s, a.run_id, (r) => r.status === "running");
    await abortAllDurableObjects();
    return a;
  }

  it("is re-checked again soon when the alarm's re-check throws once (a D1 blip), and completes", async () => {
    const s = await runSetup();
    const a = await crashedRun(s, [{ reply: { text: "Recovered after the blip." } }]);
    const current = AgentCache.prototype.current;
    let thrown = false;
    patch(AgentCache.prototype, "current", function (this: AgentCache, name, admission) {
      if (thrown) return current.call(this, name, admission);
      thrown = true;
      return Promise.reject(new Error("D1 unavailable"));
    });
    expect(await runDurableObjectAlarm(runStub(s, a.session_id))).toBe(true);
    expect(thrown).toBe(true);
    expect((await getRun(s, a.run_id)).status).toBe("running");
    // The next re-check is armed, not the sweep a month away.
    expect(await alarmOf(s, a.session_id)).toBeLessThan(Date.now() + 60_000);
    // Run by hand rather than waited for (it may already have fired by itself).
    await runDurableObjectAlarm(runStub(s, a.session_id));
    expect(await waitRun(s, a.run_id, ended)).toMatchObject({ status: "completed", resumes: 1 });
  });

  it("a clear on the restarted object before the old heartbeat fires keeps the re-check armed: the run fails", async () => {
    const s = await runSetup();
    const a = await crashedRun(s);
    const clear = await apiJson(`/v1/sessions/${a.session_id}/clear`, { method: "POST", key: s.key });
    expect(clear.status).toBe(200);
    // Nothing runs the alarm by hand: the one the clear left must fire by itself.
    const run = await waitRun(s, a.run_id, ended);
    expect(run).toMatchObject({ status: "failed", error: { code: "turn_missing" } });
  });
});

describe("a run whose turn was left running with no runner", () => {
  it("is failed by the alarm's re-check, which ends the orphaned turn", async () => {
    const s = await runSetup();
    // The turn's own end and the engine's end of it (endStuckTurn) both fail to write, once each.
    const finish = TurnStore.prototype.finish;
    const thrown = new Set<string>();
    patch(TurnStore.prototype, "finish", function (this: TurnStore, id, status, reason, error) {
      if (thrown.has(status)) return finish.call(this, id, status, reason, error);
      thrown.add(status);
      throw new Error("turn write failed");
    });
    await script(s.model, [{ reply: { text: "Done, but not written." } }]);
    const a = await start(s, { input: "work" });
    const run = await waitRun(s, a.run_id, ended);
    expect([...thrown].sort()).toEqual(["completed", "failed"]);
    expect(run).toMatchObject({ status: "failed", error: { code: "internal_error" } });
    const turns = await runInDurableObject(runStub(s, a.session_id), (_i, st) =>
      st.storage.sql.exec<{ status: string }>("SELECT status FROM turns").toArray(),
    );
    expect(turns.map((t) => t.status)).toEqual(["failed"]);
  });
});

describe("callbacks", () => {
  it("retries on schedule with capped exponential backoff, records every attempt, and is signed", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "result for the callback" } }]);
    const name = uid("cb");
    const a = await start(s, { input: "go", callback_url: `${env.MOCK_URL}/_callback/${name}?fail=2` });

    // Attempt 1 goes out as soon as the run ends; it fails, and the next one is ~10 s later.
    let run = await waitRun(s, a.run_id, (r) => (r.callback?.attempts.length ?? 0) >= 1);
    expect(run.callback).toMatchObject({ status: "pending", attempts: [{ attempt: 1, status: 500 }] });
    const first = Date.parse(run.callback?.attempts[0]?.at as string);
    const next1 = Date.parse(run.callback?.next_attempt_at as string);
    expect(next1 - first).toBeGreaterThanOrEqual(10_000);
    expect(next1 - first).toBeLessThan(11_000 + 2_000);
    expect(await alarmOf(s, a.session_id)).toBe(next1);

    await advance(s, a.session_id);
    run = await getRun(s, a.run_id);
    expect(run.callback?.attempts.map((x) => x.status)).toEqual([500, 500]);
    const second = Date.parse(run.callback?.attempts[1]?.at as string);
    const next2 = Date.parse(run.callback?.next_attempt_at as string);
    expect(next2 - second).toBeGreaterThanOrEqual(30_000);
    expect(next2 - second).toBeLessThan(33_000 + 2_000);

    await advance(s, a.session_id);
    run = await getRun(s, a.run_id);
    expect(run.callback).toMatchObject({ status: "delivered", next_attempt_at: null });
    expect(run.callback?.attempts.map((x) => x.status)).toEqual([500, 500, 200]);
    await expectOnlySweepLeft(runStub(s, a.session_id));

    // Every delivery is signed with the agent's first secret and carries the run id as webhook-id.
    const got = await deliveries(name);
    expect(got.map((d) => d.answered)).toEqual([500, 500, 200]);
    const wh = new Webhook(s.secrets[0] as string);
    for (const d of got) {
      expect(d.headers["webhook-id"]).toBe(a.run_id);
      const payload = wh.verify(d.body, d.headers) as { type: string; data: { status: string; result: unknown } };
      expect(payload.type).toBe("run.completed");
      expect(payload.data).toMatchObject({ status: "completed", result: { output: "result for the callback" } });
    }
  });

  it("gives up after six attempts and says so", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "nobody listens" } }]);
    const name = uid("cb");
    const a = await start(s, { input: "go", callback_url: `${env.MOCK_URL}/_callback/${name}?fail=100` });
    await waitRun(s, a.run_id, (r) => (r.callback?.attempts.length ?? 0) >= 1);
    const gaps: number[] = [];
    for (let i = 0; i < 5; i++) {
      const before = await getRun(s, a.run_id);
      gaps.push(
        Date.parse(before.callback?.next_attempt_at as string) - Date.parse(before.callback?.attempts[i]?.at as string),
      );
      await advance(s, a.session_id);
    }
    const run = await getRun(s, a.run_id);
    expect(run.callback?.status).toBe("failed");
    expect(run.callback?.attempts).toHaveLength(6);
    expect(run.callback?.next_attempt_at).toBeNull();
    await expectOnlySweepLeft(runStub(s, a.session_id));
    expect((await deliveries(name)).length).toBe(6);
    // 10 s, 30 s, 90 s, 270 s, 810 s (each +0–10 % jitter): capped exponential backoff.
    [10, 30, 90, 270, 810].forEach((base, i) => {
      expect(gaps[i]).toBeGreaterThanOrEqual(base * 1000);
      expect(gaps[i]).toBeLessThan(base * 1100 + 2000);
    });
  });
});

describe("callbacks of an agent stored with an undecodable secret first", () => {
  it("are signed with the first usable secret, and delivered", async () => {
    const s = await runSetup();
    // Stored before PUT /v1/agents checked secrets: written to D1 directly, as such a config would be.
    const row = await env.DB.prepare("SELECT config FROM agents WHERE name = ?")
      .bind(s.agent)
      .first<{ config: string }>();
    const config = { ...JSON.parse(row?.config as string), webhook_secrets: ["my-secret-value!", s.secrets[0]] };
    await env.DB.prepare("UPDATE agents SET config = ? WHERE name = ?").bind(JSON.stringify(config), s.agent).run();
    await script(s.model, [{ reply: { text: "signed" } }]);
    const name = uid("cb-usable");
    const a = await start(s, { input: "go", callback_url: `${env.MOCK_URL}/_callback/${name}` });
    const run = await waitRun(s, a.run_id, (r) => r.callback?.status !== "pending");
    expect(run.callback?.status).toBe("delivered");
    const [got] = await deliveries(name);
    expect(new Webhook(s.secrets[0] as string).verify(got?.body as string, got?.headers ?? {})).toMatchObject({
      type: "run.completed",
    });
  });
});

describe("an alarm and a DELETE at once", () => {
  it("an alarm whose callback delivery is in flight when the session is deleted ends quietly", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "done" } }]);
    const name = uid("cb");
    // Every delivery is answered 300 ms late; the first fails, so a retry job waits in the alarm.
    const a = await start(s, { input: "go", callback_url: `${env.MOCK_URL}/_callback/${name}?fail=1&delay_ms=300` });
    await waitRun(s, a.run_id, (r) => (r.callback?.attempts.length ?? 0) >= 1);
    const object = runStub(s, a.session_id);
    await runInDurableObject(object, (_i, state) => {
      state.storage.sql.exec("UPDATE jobs SET due_at = 0 WHERE kind = 'callback'");
    });
    // The alarm delivers the retry (300 ms); the session is deleted while it waits for the answer.
    const alarm = runDurableObjectAlarm(object);
    const until = Date.now() + 5_000;
    while ((await deliveries(name)).length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    expect((await deliveries(name)).length).toBe(2);
    const deleted = await (
      object as unknown as { destroy(tenant: string, id: string): Promise<{ ok: boolean }> }
    ).destroy(s.tenant, a.session_id);
    expect(deleted.ok).toBe(true);
    // The alarm ends without touching the wiped object (before the fix, its sweep threw "no such table").
    await expect(alarm).resolves.toBe(true);
    const tables = await runInDurableObject(object, (_i, state) =>
      state.storage.sql.exec("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'jobs'").one(),
    );
    expect(tables.n).toBe(0);
  });
});

describe("the agent's config in a run's session", () => {
  const d1In = async (s: RunSetup, session: string) =>
    (await (runStub(s, session) as unknown as { debugCounts(): Promise<{ d1_statements: number }> }).debugCounts())
      ?.d1_statements ?? -1;

  it("a run that starts at once, and its callback, read no D1 in the session object", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "no reads" } }]);
    const name = uid("cb");
    const a = await start(s, { input: "go", callback_url: `${env.MOCK_URL}/_callback/${name}` });
    const run = await waitRun(s, a.run_id, (r) => r.callback?.status === "delivered");
    expect(run.result?.output).toBe("no reads");
    expect(await d1In(s, a.session_id)).toBe(0);
  });

  it("a retry after the copy is a minute old reads the agent once and signs with its rotated secret", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "rotated" } }]);
    const name = uid("cb");
    const a = await start(s, { input: "go", callback_url: `${env.MOCK_URL}/_callback/${name}?fail=1` });
    await waitRun(s, a.run_id, (r) => (r.callback?.attempts.length ?? 0) >= 1);
    const rotated = newSecret();
    const put = await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: {
        model: { provider: "anthropic", name: s.model },
        system: "You are a run agent.",
        webhook_secrets: [rotated],
        webhook_tenant: s.tenant,
      },
    });
    expect(put.status).toBe(200);
    await runInDurableObject(runStub(s, a.session_id), (_i, state) => {
      state.storage.sql.exec("UPDATE agent_config SET fetched_at = ?", new Date(Date.now() - 61_000).toISOString());
    });
    // A restarted object (its counters from 0) holds only the stored copy, now over a minute old.
    await abortAllDurableObjects();
    await advance(s, a.session_id);
    expect((await getRun(s, a.run_id)).callback?.status).toBe("delivered");
    const got = await deliveries(name);
    expect(got).toHaveLength(2);
    const second = got[1] as (typeof got)[number];
    expect(new Webhook(rotated).verify(second.body, second.headers)).toMatchObject({ type: "run.completed" });
    expect(() => new Webhook(s.secrets[0] as string).verify(second.body, second.headers)).toThrow();
    expect(await d1In(s, a.session_id)).toBe(1);
  });
});

describe("the secret that signs an approval notice while its run's turn is paused", () => {
  /**
   * A run paused for approval whose first notice failed; then the agent's secret is replaced and the session's
   * copy (kept for the paused turn) made a minute old, and the notice's retry is run.
   */
  async function rotatedWhilePaused(): Promise<{ s: RunSetup; session: string; hook: string; rotated: string }> {
    const tools = [
      {
        name: "charge_card",
        description: "Charges a card.",
        input_schema: { type: "object", properties: { amount: { type: "number" } } },
        execution: { type: "http", url: `${env.MOCK_URL}/_callback/${uid("charge")}` },
        requires_approval: true,
      },
    ];
    const s = await runSetup(undefined, { tools });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_rotated", name: "charge_card", input: { amount: 1 } }] } },
    ]);
    const hook = uid("hook");
    const a = await start(s, { input: "charge 1", callback_url: `${env.MOCK_URL}/_callback/${hook}?fail=1` });
    await waitRun(s, a.run_id, (r) => r.status === "awaiting_approval");
    for (let i = 0; (await deliveries(hook)).length === 0; i++) {
      if (i >= 400) throw new Error("no notice attempt");
      await new Promise((r) => setTimeout(r, 25));
    }
    const rotated = newSecret();
    const put = await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: {
        model: { provider: "anthropic", name: s.model },
        system: "You are a run agent.",
        webhook_secrets: [rotated],
        webhook_tenant: s.tenant,
        tools,
      },
    });
    expect(put.status).toBe(200);
    await runInDurableObject(runStub(s, a.session_id), (_i, state) => {
      state.storage.sql.exec("UPDATE agent_config SET fetched_at = ?", new Date(Date.now() - 61_000).toISOString());
      state.storage.sql.exec("UPDATE jobs SET due_at = 0 WHERE kind = 'notice'");
    });
    // A restarted object holds only the stored copy, now over a minute old.
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(runStub(s, a.session_id))).toBe(true);
    return { s, session: a.session_id, hook, rotated };
  }

  it("is the agent's current secret once the copy is a minute old, not the one removed since", async () => {
    const { s, hook, rotated } = await rotatedWhilePaused();
    const got = await deliveries(hook);
    expect(got).toHaveLength(2);
    const retry = got[1] as (typeof got)[number];
    expect(new Webhook(rotated).verify(retry.body, retry.headers)).toMatchObject({ type: "run.awaiting_approval" });
    expect(() => new Webhook(s.secrets[0] as string).verify(retry.body, retry.headers)).toThrow();
  });

  it("is read without replacing the copy the paused turn resumes with", async () => {
    const { s, session } = await rotatedWhilePaused();
    const copy = await runInDurableObject(runStub(s, session), (_i, state) =>
      state.storage.sql.exec<{ config: string }>("SELECT config FROM agent_config").one(),
    );
    expect((JSON.parse(copy.config) as { webhook_secrets: string[] }).webhook_secrets).toEqual(s.secrets);
  });
});

describe("an approval whose agent was deleted, expiring", () => {
  it("ends the paused turn: its run and the run queued behind it fail agent_missing, nothing stays open", async () => {
    const tools = [
      {
        name: "charge_card",
        description: "Charges a card.",
        input_schema: { type: "object", properties: { amount: { type: "number" } } },
        execution: { type: "http", url: `${env.MOCK_URL}/_callback/${uid("charge-gone")}` },
        requires_approval: true,
      },
    ];
    const s = await runSetup(undefined, { tools, approval_ttl_s: 60 });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_agent_gone", name: "charge_card", input: { amount: 1 } }] } },
    ]);
    const paused = await start(s, { input: "charge 1" });
    await waitRun(s, paused.run_id, (r) => r.status === "awaiting_approval");
    const behind = await start(s, { input: "next", session_id: paused.session_id });
    expect((await getRun(s, behind.run_id)).status).toBe("queued");
    expect((await apiJson(`/v1/agents/${s.agent}`, { method: "DELETE", key: ADMIN })).status).toBe(200);
    // The session holds no copy of its agent (a session from before the copy), so the expiry reads the deleted
    // agent from D1; the clock is fast-forwarded past the approval's TTL.
    await runInDurableObject(runStub(s, paused.session_id), (_i, state) => {
      state.storage.sql.exec("DELETE FROM agent_config");
      state.storage.sql.exec("UPDATE jobs SET due_at = 0 WHERE kind = 'approval'");
    });
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(runStub(s, paused.session_id))).toBe(true);
    const first = await waitRun(s, paused.run_id, ended);
    expect(first.error?.code).toBe("agent_missing");
    const second = await waitRun(s, behind.run_id, ended);
    expect(second.error?.code).toBe("agent_missing");
    const left = await runInDurableObject(runStub(s, paused.session_id), (_i, state) => ({
      turn: state.storage.sql.exec<{ status: string }>("SELECT status FROM turns ORDER BY ord DESC LIMIT 1").one(),
      pending: state.storage.sql.exec("SELECT count(*) AS n FROM approvals WHERE status = 'pending'").one().n,
    }));
    expect(left.turn.status).not.toBe("awaiting_approval");
    expect(left.pending).toBe(0);
    expect((await mockRequests(s.model)).length).toBe(1);
  });
});

describe("what the alarm reads of queued runs", () => {
  it("open runs and single runs are read without their input and schema; only starting a run reads them", async () => {
    const s = await runSetup();
    const big = JSON.stringify([{ type: "text", text: "x".repeat(500_000) }]);
    const ids = [uid("run_a"), uid("run_b")];
    const session_id = await sessionWithQueuedRuns(s, ids, { input: big, json_schema: "{}" });
    const read = await runInDurableObject(runStub(s, session_id), (_i, state) => {
      const store = new RunStore(state.storage.sql);
      return { open: store.open(), one: store.get(ids[0] as string), spec: store.startSpec(ids[0] as string) };
    });
    expect(read.open.map((r) => r.id)).toEqual(ids);
    for (const row of [...read.open, read.one]) {
      expect(row).not.toHaveProperty("input");
      expect(row).not.toHaveProperty("json_schema");
    }
    expect(JSON.stringify(read.spec?.input)).toBe(big);
  });
});
