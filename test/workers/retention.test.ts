/**
 * Retention (README "Retention"): the session's sweep job and the D1 cron.
 * Time is injected by writing rows with old timestamps (the suite runs with
 * the default retentions, and SWITCHBOARD_RETENTION_SESSION_IDLE_DAYS=400),
 * and by the cron's `scheduledTime`.
 */
import { createScheduledController, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { setRetentionCursor } from "../../src/d1/runs";
import { deleteExpiredGuards } from "../../src/d1/sessions";
import worker from "../../src/index";
import { MAX_EVENTS } from "../../src/observability/event-log";
import { D1_BATCH, sweepD1, walkIdleSessions } from "../../src/retention/cron";
import type { Session } from "../../src/session/session";
import { SWEEP_BATCH, SWEEP_STATEMENTS } from "../../src/session/sweeper";
import { readCounting } from "./d1-reads";
import { api, apiJson, type Setup, script, setup, sseFrames, uid } from "./helpers";
import { ageEverything, OLD, object, sql, sweep, tenantOf } from "./retention-helpers";

/**
 * A run's D1 record as an API-key run without an idempotency key leaves it, accepted when created: its request is
 * stored (a replay guard's is emptied to '{}', and the cron removes those once 10 minutes old).
 */
function runRecord(id: string, tenant: string, agent: string, session: string, createdAt: string) {
  return env.DB.prepare(
    `INSERT INTO runs (id, tenant, agent, session_id, body_hash, auth, request, created_at, accepted_at)
     VALUES (?, ?, ?, ?, 'h', 'key', '{"input":[]}', ?, ?)`,
  ).bind(id, tenant, agent, session, createdAt, createdAt);
}

async function turn(s: Setup, content: string): Promise<void> {
  const res = await api(`/v1/sessions/${s.session}/messages`, { method: "POST", key: s.key, json: { content } });
  expect(res.status).toBe(200);
  await res.text();
}

async function runAt(s: Setup, id: string, status: string, callback: string | null, endedAt: string | null) {
  await sql(
    s,
    `INSERT INTO runs (id, agent, status, input, callback_url, callback_status, created_at, ended_at)
     VALUES (?, ?, ?, '[]', ?, ?, ?, ?)`,
    id,
    s.agent,
    status,
    callback ? "https://example.com/cb" : null,
    callback,
    endedAt ?? OLD,
    endedAt,
  );
  for (const attempt of [1, 2]) {
    await sql(s, "INSERT INTO run_callbacks (run_id, attempt, at, status) VALUES (?, ?, ?, 500)", id, attempt, OLD);
  }
}

describe("the session's sweep job", () => {
  it("drops stream-log rows of turns ended past the retention, and the newest turn still resumes", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }, { reply: { text: "two" } }, { reply: { text: "three" } }]);
    for (const c of ["a", "b", "c"]) await turn(s, c);
    // Every turn ended long ago, the newest included.
    await sql(s, "UPDATE turns SET started_at = ?, ended_at = ?", OLD, OLD);
    const before = await sql<{ turn_id: string; n: number }>(
      s,
      "SELECT turn_id, count(*) AS n FROM stream_log GROUP BY turn_id",
    );
    expect(before).toHaveLength(3);
    // (Read before the sweep: the older turns' rows go too, past the turns retention.)
    const turns = await sql<{ id: string }>(s, "SELECT id FROM turns ORDER BY ord");
    await sweep(s);
    const after = await sql<{ turn_id: string }>(s, "SELECT DISTINCT turn_id FROM stream_log");
    expect(after.map((r) => r.turn_id)).toEqual([turns[2]?.id]);

    // A row holds a batch of frames (a JSON array), its id the last frame's id: the kept frames' ids.
    const rows = await sql<{ id: number; chunk: string }>(s, "SELECT id, chunk FROM stream_log ORDER BY id");
    const ids = rows.flatMap((r) => {
      const parsed: unknown = JSON.parse(r.chunk);
      const n = Array.isArray(parsed) ? parsed.length : 1;
      return Array.from({ length: n }, (_, i) => r.id - n + 1 + i);
    });
    const first = ids[0] as number;
    const resumed = await api(`/v1/sessions/${s.session}/stream`, {
      key: s.key,
      headers: { "last-event-id": String(first) },
    });
    expect(resumed.status).toBe(200);
    const frames = await sseFrames(resumed);
    expect(frames.map((f) => f.id)).toEqual([...ids.slice(1), ids[ids.length - 1]]);
    expect(frames.some((f) => f.data.includes('"delta":"three"'))).toBe(true);
  });

  it("keeps stream-log rows of turns that ended within the retention", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }, { reply: { text: "two" } }]);
    await turn(s, "a");
    await turn(s, "b");
    const before = await sql<{ n: number }>(s, "SELECT count(*) AS n FROM stream_log");
    await sweep(s);
    expect(await sql<{ n: number }>(s, "SELECT count(*) AS n FROM stream_log")).toEqual(before);
  });

  it("drops events older than the retention and keeps the recent ones", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "old" } }, { reply: { text: "new" } }]);
    await turn(s, "a");
    const [{ seq: oldHead } = { seq: 0 }] = await sql<{ seq: number }>(s, "SELECT max(seq) AS seq FROM events");
    await sql(s, "UPDATE events SET at = ? WHERE seq <= ?", OLD, oldHead);
    await turn(s, "b");
    await sweep(s);
    const page = await apiJson<{ events: Array<{ seq: number; type: string }> }>(`/v1/sessions/${s.session}/events`, {
      key: s.key,
    });
    expect(page.body.events.length).toBeGreaterThan(0);
    expect(page.body.events.every((e) => e.seq > oldHead)).toBe(true);
    expect(page.body.events.map((e) => e.type)).toContain("turn_finished");
  });

  it("keeps the newest event however old, so event numbers never start again at 1", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "long ago" } }, { reply: { text: "today" } }]);
    await turn(s, "a");
    const [{ seq: head } = { seq: 0 }] = await sql<{ seq: number }>(s, "SELECT max(seq) AS seq FROM events");
    await sql(s, "UPDATE events SET at = ?", OLD);
    await sweep(s);
    expect(await sql(s, "SELECT seq FROM events")).toEqual([{ seq: head }]);
    await turn(s, "b");
    const page = await apiJson<{ events: Array<{ seq: number }> }>(`/v1/sessions/${s.session}/events?after=${head}`, {
      key: s.key,
    });
    expect(page.body.events.length).toBeGreaterThan(0);
    expect(page.body.events.every((e) => e.seq > head)).toBe(true);
  });

  it("deletes a large backlog in bounded batches, one alarm at a time", async () => {
    const s = await setup();
    const total = SWEEP_BATCH * SWEEP_STATEMENTS + 700;
    await sql(
      s,
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO events (type, at, turn_id, data) SELECT 'tool_executed', ?, NULL, '{}' FROM n`,
      total,
      OLD,
    );
    const before = Date.now();
    await sweep(s);
    // One alarm runs at most SWEEP_STATEMENTS deletes of SWEEP_BATCH rows (shared by all tables).
    const [left] = await sql<{ n: number }>(s, "SELECT count(*) AS n FROM events");
    expect(left?.n).toBeGreaterThanOrEqual(700);
    expect(left?.n).toBeLessThan(total);
    // More was left: the job comes back a second later (not at once, not at the next expiry).
    const [job] = await sql<{ due_at: number }>(s, "SELECT due_at FROM jobs WHERE kind = 'sweep'");
    expect(job?.due_at).toBeGreaterThanOrEqual(before + 1_000);
    expect(job?.due_at).toBeLessThanOrEqual(Date.now() + 1_000);
    await sweep(s);
    // All but the newest, which keeps the event numbers from starting again.
    expect(await sql(s, "SELECT count(*) AS n FROM events")).toEqual([{ n: 1 }]);
  });

  it("a DELETE delivered while the sweep yields between batches ends the alarm quietly", async () => {
    const s = await setup();
    await sql(
      s,
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO events (type, at, turn_id, data) SELECT 'tool_executed', ?, NULL, '{}' FROM n`,
      SWEEP_BATCH * 3,
      OLD,
    );
    await sql(
      s,
      "INSERT INTO jobs (id, kind, ref, due_at, created_at) VALUES ('sweep:retention', 'sweep', 'retention', 0, ?) ON CONFLICT (id) DO UPDATE SET due_at = 0",
      new Date().toISOString(),
    );
    const tenant = await tenantOf(s);
    await runInDurableObject(await object(s), async (instance: Session) => {
      const alarm = instance.alarm();
      // This timer was set before the sweep's first yield: when it fires, one batch is done and the sweep waits.
      await new Promise((r) => setTimeout(r, 0));
      expect((await instance.destroy(tenant, s.session)).ok).toBe(true);
      await expect(alarm).resolves.toBeUndefined();
    });
  });

  it("sweeps every table in one alarm when the backlog fits its budget", async () => {
    const s = await setup();
    await sql(
      s,
      `INSERT INTO turns (id, ord, status, kind, max_steps, log_start, segment_start, started_at, ended_at)
       VALUES ('turn_old', 1, 'completed', 'message', 10, 0, 0, ?1, ?1), ('turn_new', 2, 'completed', 'message', 10, 0, 0, ?1, ?1)`,
      OLD,
    );
    await sql(
      s,
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO stream_log (turn_id, chunk) SELECT 'turn_old', '{"type":"text-delta","delta":"x"}' FROM n`,
      SWEEP_BATCH + 100,
    );
    // Two old events: the older is swept, the newest stays (event numbers never start again).
    await sql(
      s,
      "INSERT INTO events (type, at, turn_id, data) VALUES ('tool_executed', ?1, NULL, '{}'), ('tool_executed', ?1, NULL, '{}')",
      OLD,
    );
    await runAt(s, "run_old", "completed", null, OLD);
    await sweep(s);
    expect(await sql(s, "SELECT count(*) AS n FROM stream_log")).toEqual([{ n: 0 }]);
    expect(await sql(s, "SELECT count(*) AS n FROM events")).toEqual([{ n: 1 }]);
    expect(await sql(s, "SELECT count(*) AS n FROM runs")).toEqual([{ n: 0 }]);
  });

  it("deletes ended runs past the retention with their callback attempts and approval notices", async () => {
    const s = await setup();
    await runAt(s, "run_delivered", "completed", "delivered", OLD);
    await runAt(s, "run_gave_up", "failed", "failed", OLD);
    await runAt(s, "run_no_callback", "completed", null, OLD);
    await sql(
      s,
      "INSERT INTO run_notices (run_id, turn_id, webhook_id, attempts, status) VALUES ('run_delivered', 'turn_x', 'wh_x', 1, 'delivered')",
    );
    await sweep(s);
    expect(await sql(s, "SELECT id FROM runs")).toEqual([]);
    expect(await sql(s, "SELECT run_id FROM run_callbacks")).toEqual([]);
    expect(await sql(s, "SELECT run_id FROM run_notices")).toEqual([]);
  });

  it("keeps open runs, pending callbacks and recently ended runs, however old they are", async () => {
    const s = await setup();
    await runAt(s, "run_running", "running", null, null);
    await runAt(s, "run_queued", "queued", "pending", null);
    await runAt(s, "run_pending_callback", "completed", "pending", OLD);
    await runAt(s, "run_recent", "completed", "delivered", new Date().toISOString());
    // The alarm's reconcile pass leaves these rows alone: they have no turn.
    await sql(s, "UPDATE runs SET turn_id = NULL");
    await sweep(s);
    const runs = await sql<{ id: string }>(s, "SELECT id FROM runs ORDER BY id");
    expect(runs.map((r) => r.id)).toEqual(["run_pending_callback", "run_queued", "run_recent", "run_running"]);
    expect(await sql(s, "SELECT count(*) AS n FROM run_callbacks")).toEqual([{ n: 8 }]);
  });

  it("steps aside while a turn runs and comes back later", async () => {
    const s = await setup();
    await script(s.model, [
      { reply: { text: "one" } },
      { reply: { text: "two" } },
      { reply: { text: "slow" }, faults: { stall_before_ms: 1500 } },
    ]);
    await turn(s, "a");
    await turn(s, "b");
    await sql(s, "UPDATE turns SET ended_at = ?", OLD);
    await sql(s, "UPDATE events SET at = ?", OLD);
    const rows = await sql(s, "SELECT count(*) AS n FROM stream_log");
    const events = await sql(s, "SELECT count(*) AS n FROM events");
    // The response starts once the turn is admitted; the model then stalls, so the turn is running.
    const running = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "c" },
    });
    const before = Date.now();
    await sweep(s);
    // Nothing deleted while the turn runs (the turn's own rows were added meanwhile, none removed).
    expect((await sql<{ n: number }>(s, "SELECT count(*) AS n FROM stream_log"))[0]?.n).toBeGreaterThanOrEqual(
      rows[0]?.n as number,
    );
    expect((await sql<{ n: number }>(s, "SELECT count(*) AS n FROM events"))[0]?.n).toBeGreaterThanOrEqual(
      events[0]?.n as number,
    );
    const [job] = await sql<{ due_at: number }>(s, "SELECT due_at FROM jobs WHERE kind = 'sweep'");
    expect(job?.due_at).toBeGreaterThanOrEqual(before + 60_000);
    await running.text();
  });

  it("is due when the first turn's stream log expires, and later turns' ends leave it there", async () => {
    const s = await setup();
    await script(
      s.model,
      ["one", "two", "three", "four"].map((text) => ({ reply: { text } })),
    );
    const due = async () =>
      (await sql<{ due_at: number }>(s, "SELECT due_at FROM jobs WHERE kind = 'sweep'"))[0]?.due_at;
    await turn(s, "a");
    await turn(s, "b");
    // The second turn's end makes the first turn's stream log sweepable: an hour after that turn ended.
    const [first] = await sql<{ ended_at: string }>(s, "SELECT ended_at FROM turns ORDER BY rowid LIMIT 1");
    const expected = Date.parse(first?.ended_at as string) + 3_600_000;
    expect(await due()).toBe(expected);
    // Later turns' logs expire later: their ends need not look again, and the job stays.
    await turn(s, "c");
    await turn(s, "d");
    expect(await due()).toBe(expected);
    expect(await sql(s, "SELECT DISTINCT turn_id FROM stream_log")).toHaveLength(3);
  });

  it("moves itself to the next expiry, and is scheduled when a turn ends", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }]);
    await turn(s, "a");
    const [job] = await sql<{ due_at: number }>(s, "SELECT due_at FROM jobs WHERE kind = 'sweep'");
    const [first] = await sql<{ at: string }>(s, "SELECT at FROM events ORDER BY seq LIMIT 1");
    // Only events can expire (the newest turn's stream rows are kept): 30 days after the first one.
    expect(job?.due_at).toBe(Date.parse(first?.at as string) + 30 * 86_400_000);
    // The turn's heartbeat alarm is earlier, so it stays; when it fires with nothing due, it moves to the sweep.
    const alarmOf = async () => runInDurableObject(await object(s), (_i, state) => state.storage.getAlarm());
    expect(await alarmOf()).toBeLessThan(job?.due_at as number);
    expect(await runDurableObjectAlarm(await object(s))).toBe(true);
    expect(await alarmOf()).toBe(job?.due_at);
  });
});

/** Inserts `n` ended turn rows `<prefix>1..n` (oldest first, after any existing turn) ended at `endedAt`. */
async function endedTurns(s: Setup, prefix: string, n: number, endedAt: string): Promise<void> {
  await sql(
    s,
    `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
     INSERT INTO turns (id, ord, status, kind, max_steps, log_start, segment_start, started_at, ended_at)
     SELECT ? || i, coalesce((SELECT max(ord) FROM turns), 0) + i, 'completed', 'message', 10, 0, 0, ?, ? FROM k`,
    n,
    prefix,
    endedAt,
    endedAt,
  );
}

describe("the turns retention (SWITCHBOARD_RETENTION_TURNS_DAYS, default 30)", () => {
  it("drops turns ended past the retention but the newest, and the session still counts every turn", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }, { reply: { text: "two" } }, { reply: { text: "three" } }]);
    for (const c of ["a", "b", "c"]) await turn(s, c);
    await sql(s, "UPDATE turns SET started_at = ?, ended_at = ?", OLD, OLD);
    const [newest] = await sql<{ id: string }>(s, "SELECT id FROM turns ORDER BY ord DESC LIMIT 1");
    await sweep(s);
    expect(await sql(s, "SELECT id FROM turns")).toEqual([{ id: newest?.id }]);
    // History is never swept, and the session's turn count includes the swept turns.
    expect(await sql(s, "SELECT count(*) AS n FROM messages")).toEqual([{ n: 6 }]);
    const state = await apiJson<{ turns: number; messages: number }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body).toMatchObject({ turns: 3, messages: 6 });
    // The next turn follows on as usual.
    await script(s.model, [{ reply: { text: "four" } }]);
    await turn(s, "d");
    expect((await apiJson<{ turns: number }>(`/v1/sessions/${s.session}`, { key: s.key })).body.turns).toBe(4);
  });

  it("keeps turns ended within the retention", async () => {
    const s = await setup();
    await endedTurns(s, "turn_recent_", 3, new Date().toISOString());
    await sweep(s);
    expect(await sql(s, "SELECT count(*) AS n FROM turns")).toEqual([{ n: 3 }]);
  });

  it("never drops a paused turn, however old its row", async () => {
    const s = await setup();
    await endedTurns(s, "turn_done_", 2, OLD);
    // A paused turn is never ended; this row is as old as the others, only its status protects it.
    await sql(
      s,
      `INSERT INTO turns (id, ord, status, kind, max_steps, log_start, segment_start, started_at, ended_at)
       VALUES ('turn_paused', 3, 'awaiting_approval', 'message', 10, 0, 0, ?1, ?1),
              ('turn_waiting', 4, 'awaiting_tool_results', 'message', 10, 0, 0, ?1, ?1)`,
      OLD,
    );
    await endedTurns(s, "turn_last_", 1, OLD);
    await sweep(s);
    const kept = await sql<{ id: string }>(s, "SELECT id FROM turns ORDER BY ord");
    expect(kept.map((t) => t.id)).toEqual(["turn_paused", "turn_waiting", "turn_last_1"]);
  });

  it("keeps the turn an open run still needs (its turn, or its run:<id> idempotency record)", async () => {
    const s = await setup();
    await sql(
      s,
      `INSERT INTO turns (id, ord, status, kind, max_steps, log_start, segment_start, idempotency_key, started_at, ended_at)
       VALUES ('turn_of_queued_run', 1, 'completed', 'message', 10, 0, 0, 'run:run_queued', ?1, ?1),
              ('turn_of_ended_run', 2, 'completed', 'message', 10, 0, 0, 'run:run_done', ?1, ?1)`,
      OLD,
    );
    await endedTurns(s, "turn_last_", 1, OLD);
    // A queued run has no job here, so the alarm does not start it; its admission would replay its key.
    await runAt(s, "run_queued", "queued", null, null);
    await runAt(s, "run_done", "completed", null, new Date().toISOString());
    await sweep(s);
    const kept = await sql<{ id: string }>(s, "SELECT id FROM turns ORDER BY ord");
    expect(kept.map((t) => t.id)).toEqual(["turn_of_queued_run", "turn_last_1"]);
  });

  it("a repeated Idempotency-Key is recognised while its turn is kept, and starts a new turn once it is swept", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "first" } }, { reply: { text: "later" } }, { reply: { text: "again" } }]);
    const send = (content: string, key: string) =>
      apiJson<{ turn_id: string }>(`/v1/sessions/${s.session}/messages`, {
        method: "POST",
        key: s.key,
        headers: { accept: "application/json", "idempotency-key": key },
        json: { content },
      });
    const first = await send("hello", "idem-1");
    await send("later", "idem-2");
    expect((await send("hello", "idem-1")).body.turn_id).toBe(first.body.turn_id);
    await sql(s, "UPDATE turns SET ended_at = ? WHERE id = ?", OLD, first.body.turn_id);
    await sweep(s);
    const repeat = await send("hello", "idem-1");
    expect(repeat.status).toBe(201);
    expect(repeat.body.turn_id).not.toBe(first.body.turn_id);
  });

  it("deletes a large backlog of turns in bounded batches, one alarm at a time", async () => {
    const s = await setup();
    const total = SWEEP_BATCH * SWEEP_STATEMENTS + 300;
    await endedTurns(s, "turn_old_", total, OLD);
    await sweep(s);
    const [left] = await sql<{ n: number }>(s, "SELECT count(*) AS n FROM turns");
    expect(left?.n).toBeGreaterThanOrEqual(300);
    expect(left?.n).toBeLessThan(total);
    await sweep(s);
    expect(await sql(s, "SELECT id FROM turns")).toEqual([{ id: `turn_old_${total}` }]);
    const state = await apiJson<{ turns: number }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.turns).toBe(total);
  });
});

describe("idle sessions (SWITCHBOARD_RETENTION_SESSION_IDLE_DAYS=400 in this suite)", () => {
  it("an idle session past the retention is deleted with its D1 index row and run records", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }]);
    await turn(s, "a");
    const tenant = await tenantOf(s);
    await runRecord(uid("run"), tenant, s.agent, s.session, OLD).run();
    await ageEverything(s);
    await sweep(s);
    expect(
      await env.DB.prepare("SELECT id FROM sessions WHERE tenant = ? AND id = ?").bind(tenant, s.session).first(),
    ).toBeNull();
    expect(await env.DB.prepare("SELECT id FROM runs WHERE session_id = ?").bind(s.session).first()).toBeNull();
    expect((await apiJson(`/v1/sessions/${s.session}`, { key: s.key })).status).toBe(404);
    // Its storage is gone: an object of a deleted session has no tables until it is created again.
    expect(await sql(s, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'messages'")).toEqual([]);
  });

  it("a session with recent activity, or an open run, is kept", async () => {
    const recent = await setup();
    await script(recent.model, [{ reply: { text: "one" } }]);
    await turn(recent, "a");
    await sql(recent, "UPDATE meta SET value = json_set(value, '$.created_at', ?) WHERE key = 'session'", OLD);
    await sweep(recent);
    expect((await apiJson(`/v1/sessions/${recent.session}`, { key: recent.key })).status).toBe(200);

    const busy = await setup();
    await script(busy.model, [{ reply: { text: "one" } }]);
    await turn(busy, "a");
    await runAt(busy, "run_open", "queued", null, null);
    await ageEverything(busy);
    await sql(busy, "UPDATE run_callbacks SET at = ?", OLD);
    await sweep(busy);
    expect((await apiJson(`/v1/sessions/${busy.session}`, { key: busy.key })).status).toBe(200);
    expect(await sql(busy, "SELECT count(*) AS n FROM messages")).not.toEqual([{ n: 0 }]);
  });

  it("a session whose run waits for an approval, or with an approval a person may still answer, is kept", async () => {
    const asking = await setup();
    await script(asking.model, [{ reply: { text: "one" } }]);
    await turn(asking, "a");
    await runAt(asking, "run_asking", "awaiting_approval", null, null);
    await ageEverything(asking);
    await sql(asking, "UPDATE run_callbacks SET at = ?", OLD);
    await sweep(asking);
    expect((await apiJson(`/v1/sessions/${asking.session}`, { key: asking.key })).status).toBe(200);

    const open = await setup();
    await script(open.model, [{ reply: { text: "one" } }]);
    await turn(open, "a");
    await sql(
      open,
      `INSERT INTO approvals (id, call_id, turn_id, name, input, reason, signature, status, requested_at)
       VALUES ('appr_old', 'toolu_old', 'turn_old', 'charge', '{}', 'r', 's', 'pending', ?)`,
      OLD,
    );
    await ageEverything(open);
    await sweep(open);
    expect((await apiJson(`/v1/sessions/${open.session}`, { key: open.key })).status).toBe(200);
  });
});

describe("idle expiry turned on later: the cron's walk over the session index", () => {
  /** The worker's variables with idle expiry off: the suite's own (400 days) is the setting turned on. */
  const idleOff = { ...env, SWITCHBOARD_RETENTION_SESSION_IDLE_DAYS: "0" };

  async function tick(vars: typeof env = env): Promise<void> {
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "23 * * * *" }), vars);
  }

  /** As a session that went idle while the setting was off: nothing left to expire, so no sweep job and no alarm. */
  async function dormant(s: Setup): Promise<void> {
    await sql(s, "DELETE FROM jobs WHERE kind = 'sweep'");
    await runInDurableObject(await object(s), (_i, state) => state.storage.deleteAlarm());
  }

  it("a session dormant before idle expiry was on gets its sweep armed by the cron, and its alarm deletes it", async () => {
    const s = await setup();
    const stub = await object(s);
    const tenant = await tenantOf(s);
    await ageEverything(s);
    await dormant(s);
    await tick(idleOff);
    await tick();
    const jobs = await sql<{ due_at: number }>(s, "SELECT due_at FROM jobs WHERE id = 'sweep:retention'");
    expect(jobs).toHaveLength(1);
    // Idle since 2020: due at the earliest re-check, not 400 days from now.
    expect(jobs[0]?.due_at).toBeLessThanOrEqual(Date.now() + 3_600_000);
    expect(await runInDurableObject(stub, (_i, state) => state.storage.getAlarm())).not.toBeNull();
    // The clock reaching the armed job (moved, never inserted here), then its alarm.
    await sql(s, "UPDATE jobs SET due_at = 0 WHERE id = 'sweep:retention'");
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await apiJson(`/v1/sessions/${s.session}`, { key: s.key })).status).toBe(404);
    expect(
      await env.DB.prepare("SELECT id FROM sessions WHERE tenant = ? AND id = ?").bind(tenant, s.session).first(),
    ).toBeNull();
  });

  it("after a complete pass for a setting, a tick with the same setting asks no session", async () => {
    await setup();
    await tick(idleOff);
    let checked = 0;
    for (;;) {
      const r = await walkIdleSessions(env, 0);
      checked += r.sessions_checked;
      if (!r.sessions_more) break;
    }
    expect(checked).toBeGreaterThan(0);
    expect(await walkIdleSessions(env)).toEqual({ sessions_checked: 0, sessions_missed: 0, sessions_more: false });
  });

  it("a shortened setting walks the index again", async () => {
    await setup();
    await tick(idleOff);
    await tick();
    expect((await walkIdleSessions(env)).sessions_checked).toBe(0);
    const shorter = { ...env, SWITCHBOARD_RETENTION_SESSION_IDLE_DAYS: "300" };
    expect((await walkIdleSessions(shorter)).sessions_checked).toBeGreaterThan(0);
  });

  it("the walk never revives a deleted session, nor creates one behind an index row with no session", async () => {
    const s = await setup();
    const stub = await object(s);
    const tenant = await tenantOf(s);
    expect((await apiJson(`/v1/sessions/${s.session}`, { method: "DELETE", key: s.key })).status).toBe(200);
    // Index rows the walk reaches (a half-done create, say): one for the deleted session, one for no session.
    const never = uid("never");
    const now = new Date().toISOString();
    const index = (id: string) =>
      env.DB.prepare("INSERT INTO sessions (tenant, id, agent, created_at) VALUES (?, ?, ?, ?)").bind(
        tenant,
        id,
        s.agent,
        now,
      );
    await env.DB.batch([index(s.session), index(never)]);
    try {
      await tick(idleOff);
      await tick();
      for (const o of [stub, env.SESSION.getByName(`${tenant}:${never}`)]) {
        const left = await runInDurableObject(o, async (_i, state) => ({
          tables: state.storage.sql
            .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('meta', 'jobs')")
            .toArray(),
          alarm: await state.storage.getAlarm(),
        }));
        expect(left).toEqual({ tables: [], alarm: null });
      }
      expect(await runInDurableObject(stub, (_i, state) => state.storage.get("deleted_at"))).toBeDefined();
      expect((await apiJson(`/v1/sessions/${s.session}`, { key: s.key })).status).toBe(404);
    } finally {
      await env.DB.prepare("DELETE FROM sessions WHERE tenant = ? AND id IN (?, ?)")
        .bind(tenant, s.session, never)
        .run();
    }
  });
});

describe("D1 retention", () => {
  async function record(s: Setup, id: string, createdAt: string): Promise<string> {
    await runRecord(id, await tenantOf(s), s.agent, s.session, createdAt).run();
    return id;
  }

  const exists = async (id: string) =>
    (await env.DB.prepare("SELECT id FROM runs WHERE id = ?").bind(id).first()) !== null;

  async function cron(at = Date.now()): Promise<void> {
    await worker.scheduled(createScheduledController({ scheduledTime: at, cron: "23 * * * *" }), env);
  }

  it("the cron deletes run records past the retention whose run has ended, and keeps open and recent ones", async () => {
    const s = await setup();
    const ended = await record(s, uid("run_ended"), OLD);
    const open = await record(s, uid("run_open"), OLD);
    const pending = await record(s, uid("run_pending"), OLD);
    const recent = await record(s, uid("run_recent"), new Date().toISOString());
    const asking = await record(s, uid("run_asking"), OLD);
    await runAt(s, ended, "completed", "delivered", OLD);
    await runAt(s, open, "running", null, null);
    await runAt(s, pending, "failed", "pending", OLD);
    // Paused for a person's approval (no callback): its record is how the approval and the result are reached.
    await runAt(s, asking, "awaiting_approval", null, null);
    await cron();
    expect(await exists(ended)).toBe(false);
    expect(await exists(open)).toBe(true);
    expect(await exists(pending)).toBe(true);
    expect(await exists(recent)).toBe(true);
    expect(await exists(asking)).toBe(true);
  });

  it("the retention is measured from the cron's scheduled time", async () => {
    const s = await setup();
    const now = new Date().toISOString();
    const id = await record(s, uid("run"), now);
    await cron(Date.now() + 29 * 86_400_000);
    expect(await exists(id)).toBe(true);
    await cron(Date.now() + 31 * 86_400_000);
    expect(await exists(id)).toBe(false);
  });

  it("a tick continues after the records the last one kept, so open old records never hide later ended ones", async () => {
    const s = await setup();
    const tenant = await tenantOf(s);
    // Ten batches of the oldest records, all still queued in their session (behind an approval, say).
    const open = Array.from({ length: D1_BATCH * 10 }, (_, i) => `${uid("run_q")}_${i}`);
    await env.DB.batch(open.map((id) => runRecord(id, tenant, s.agent, s.session, OLD)));
    await runInDurableObject(await object(s), (_i, state) => {
      state.storage.transactionSync(() => {
        for (const id of open) {
          state.storage.sql.exec(
            "INSERT INTO runs (id, agent, status, input, created_at) VALUES (?, ?, 'queued', '[]', ?)",
            id,
            s.agent,
            OLD,
          );
        }
      });
    });
    const ended = await record(s, uid("run_ended"), "2020-01-02T00:00:00.000Z");
    await runAt(s, ended, "completed", "delivered", OLD);
    try {
      // Ticks whose time budget ends after their first batch: only the cursor carries them past the open ones.
      for (let tick = 0; tick < 10; tick++) {
        expect((await sweepD1(env, Date.now(), 0)).more).toBe(true);
        expect(await exists(ended)).toBe(true);
      }
      await sweepD1(env, Date.now(), 0);
      expect(await exists(ended)).toBe(false);
      expect(await exists(open[0] as string)).toBe(true);
    } finally {
      // The other tests of this file share D1: they must not start behind these.
      await env.DB.batch(open.map((id) => env.DB.prepare("DELETE FROM runs WHERE id = ?").bind(id)));
      await cron();
    }
  });

  it("a tick keeps taking batches while they come back full", async () => {
    const s = await setup();
    const tenant = await tenantOf(s);
    // More than ten batches of ended records (their session no longer holds them), behind any left by other tests.
    const ids = Array.from({ length: D1_BATCH * 11 + 1 }, (_, i) => `${uid("run_old")}_${i}`);
    await env.DB.batch(ids.map((id) => runRecord(id, tenant, s.agent, s.session, OLD)));
    await cron();
    const left = await env.DB.prepare("SELECT count(*) AS n FROM runs WHERE session_id = ?")
      .bind(s.session)
      .first<{ n: number }>();
    expect(left?.n).toBe(0);
  });

  /** `n` old records of a session that was never created (nothing holds them open), ids `${prefix}_00001`…. */
  async function backlog(prefix: string, n: number): Promise<void> {
    await env.DB.prepare(
      `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
       INSERT INTO runs (id, tenant, agent, session_id, body_hash, auth, request, created_at, accepted_at)
       SELECT ? || '_' || printf('%05d', i), ?, 'agent', 'ses_never', 'h', 'key', '{"input":[]}', ?, ? FROM k`,
    )
      .bind(n, prefix, uid("t"), OLD, OLD)
      .run();
  }

  /** How many records' ids start with `prefix`. */
  async function left(prefix: string): Promise<number> {
    const row = await env.DB.prepare("SELECT count(*) AS n FROM runs WHERE id LIKE ? || '_%'")
      .bind(prefix)
      .first<{ n: number }>();
    return row?.n ?? 0;
  }

  it("a pass over a backlog of old records reads each about once, not the rest of the backlog for every batch", async () => {
    const prefix = uid("run_backlog");
    const n = D1_BATCH * 40;
    await backlog(prefix, n);
    // From the oldest record, whatever the other tests of this file left the cursor at.
    await setRetentionCursor(env.DB, { at: "", id: "" });
    const db = readCounting(env.DB, (query) => query.trimStart().startsWith("SELECT"));
    await sweepD1({ ...env, DB: db.db }, Date.now());
    expect(await left(prefix)).toBe(0);
    // Records left old by the other tests of this file are read too: a few, well inside the tenth.
    expect(db.rowsRead()).toBeLessThanOrEqual(n * 1.1);
  });

  it("the removal of expired replay guards reads only guards, not every record", async () => {
    const prefix = uid("run_plain");
    await backlog(prefix, D1_BATCH * 40);
    try {
      // Guards of other tests that are already past their window go first; then there is none to read.
      await deleteExpiredGuards(env.DB, Date.now(), 500);
      const db = readCounting(env.DB, () => true);
      expect(await deleteExpiredGuards(db.db, Date.now(), 500)).toBe(0);
      // D1 counts a row or two for looking into the empty index; every record would be 2,000 and more.
      expect(db.rowsRead()).toBeLessThan(10);
    } finally {
      await env.DB.prepare("DELETE FROM runs WHERE id LIKE ? || '_%'").bind(prefix).run();
    }
  });

  /** A webhook run's record (with its webhook-id) created now, kept emptied by its session's deletion. */
  async function keptGuard(s: Setup): Promise<string> {
    const tenant = await tenantOf(s);
    const id = uid("run_guard");
    const now = new Date().toISOString();
    await env.DB.prepare(
      "INSERT INTO runs (id, tenant, agent, session_id, idempotency_key, body_hash, auth, request, created_at, accepted_at) VALUES (?, ?, ?, ?, ?, 'h', 'signature', '{\"input\":[]}', ?, ?)",
    )
      .bind(id, tenant, s.agent, s.session, uid("msg"), now, now)
      .run();
    expect((await apiJson(`/v1/sessions/${s.session}`, { method: "DELETE", key: s.key })).status).toBe(200);
    expect(await exists(id)).toBe(true);
    return id;
  }

  it("the cron deletes a deleted session's replay-guard record once no replay can need it, long before the runs retention", async () => {
    const s = await setup();
    const id = await keptGuard(s);
    await cron(Date.now() + 11 * 60_000);
    expect(await exists(id)).toBe(false);
  });

  it("the cron keeps a deleted session's replay-guard record while a replay may still come", async () => {
    const s = await setup();
    const id = await keptGuard(s);
    await cron(Date.now() + 5 * 60_000);
    expect(await exists(id)).toBe(true);
  });

  it("deleting a session deletes its index row and its run records", async () => {
    const s = await setup();
    const id = await record(s, uid("run"), new Date().toISOString());
    const res = await apiJson(`/v1/sessions/${s.session}`, { method: "DELETE", key: s.key });
    expect(res.status).toBe(200);
    expect(await exists(id)).toBe(false);
    expect(await env.DB.prepare("SELECT id FROM sessions WHERE id = ?").bind(s.session).first()).toBeNull();
  });
});

describe("the event cap (MAX_EVENTS newest events per session)", () => {
  it("a turn's end keeps exactly the newest MAX_EVENTS events", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "two" } }]);
    // Seeded behind the object's back before its first turn: the event log counts its table when it first trims.
    await runInDurableObject(await object(s), (_i, state) => {
      state.storage.transactionSync(() => {
        for (let i = 0; i < MAX_EVENTS + 10; i++) {
          state.storage.sql.exec("INSERT INTO events (type, at, turn_id, data) VALUES ('note', ?, NULL, '{}')", OLD);
        }
      });
    });
    const before = await sql<{ n: number; hi: number }>(s, "SELECT count(*) AS n, max(seq) AS hi FROM events");
    expect(before[0]?.n).toBe(MAX_EVENTS + 10);
    await (
      await api(`/v1/sessions/${s.session}/messages`, { method: "POST", key: s.key, json: { content: "b" } })
    ).text();
    const [after] = await sql<{ n: number; lo: number; hi: number }>(
      s,
      "SELECT count(*) AS n, min(seq) AS lo, max(seq) AS hi FROM events",
    );
    expect(after?.n).toBe(MAX_EVENTS);
    expect(after && after.hi - after.lo + 1).toBe(MAX_EVENTS);
    const [newest] = await sql<{ type: string }>(s, "SELECT type FROM events ORDER BY seq DESC LIMIT 1");
    expect(newest?.type).toBe("turn_finished");
  });
});
