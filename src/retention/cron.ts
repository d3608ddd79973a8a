/**
 * The worker's retention cron over D1 (wrangler.toml `[triggers]`): run
 * records past their retention are deleted once their session says the run
 * has ended, a deleted session's replay-guard records once no replay can need
 * them, and when the idle-expiry setting is new to them every indexed
 * session is asked to schedule its sweep for it. Each tick continues where
 * the last one stopped (D1 `retention_cursor`).
 */

import { deleteRuns, type RunRef, retentionCursor, runsCreatedBefore, setRetentionCursor } from "../d1/runs";
import {
  deleteExpiredGuards,
  IDLE_CURSOR_START,
  type IdleCursor,
  idleCursor,
  type SessionKey,
  sessionsAfter,
  setIdleCursor,
} from "../d1/sessions";
import type { WorkerEnv } from "../http/types";
import { log } from "../observability/log";
import type { Session } from "../session/session";
import { isoBefore, retentionOf } from "./config";

/** D1 run records read and deleted per statement (one bound parameter each, so well under 100). */
export const D1_BATCH = 50;
/** Replay-guard records deleted per statement (one subquery, two bound parameters). */
const D1_GUARD_BATCH = 500;
/**
 * Wall time one cron invocation keeps taking batches while they come back full (a busy deployment creates more
 * than a fixed few batches an hour); the rest waits for the next tick. Well inside a cron invocation's limits.
 */
const D1_TICK_MS = 60_000;

type OpenRunsRpc = Pick<Session, "openRuns">;
type EnsureSweepRpc = Pick<Session, "ensureSweep">;

interface D1SweepReport {
  runs_deleted: number;
  /** Old records kept because their session still has the run open (queued, running or callback pending). */
  runs_kept: number;
  /** Replay-guard records of deleted sessions removed once past their window (deleteExpiredGuards). */
  guards_deleted: number;
  /** The time budget ran out; the next tick continues after the last record this one read. */
  more: boolean;
}

/** Which of `refs` their sessions still have open; a session that cannot be asked keeps all of its runs. */
async function stillOpen(env: WorkerEnv, refs: RunRef[]): Promise<Set<string>> {
  const bySession = new Map<string, RunRef[]>();
  for (const r of refs) {
    const name = `${r.tenant}:${r.session_id}`;
    bySession.set(name, [...(bySession.get(name) ?? []), r]);
  }
  const open = new Set<string>();
  await Promise.all(
    [...bySession].map(async ([name, rs]) => {
      const ids = rs.map((r) => r.id);
      try {
        const stub = env.SESSION.getByName(name) as unknown as OpenRunsRpc;
        for (const id of await stub.openRuns(ids)) open.add(id);
      } catch (e) {
        for (const id of ids) open.add(id);
        log("error", "retention_session_unreachable", { session: name, error: String(e) });
      }
    }),
  );
  return open;
}

/**
 * The cron's retention pass over D1: run records created longer ago than
 * `runsMs` are deleted once their run has ended (the session is asked), in
 * batches of D1_BATCH. The record is also the `webhook-id` idempotency
 * record, so the retention is the window in which a repeat is recognised.
 *
 * A tick starts after the last record the previous tick read, not at the
 * oldest: records still open in their sessions are kept and stay the oldest
 * (a run queued behind an approval with no TTL may stay open for weeks), so
 * starting from the oldest every time could read the same records until the
 * budget runs out and never reach ended records behind them. A tick takes
 * batches while they come back full, for `budgetMs` of wall time (at least
 * one batch); a pass that reaches the end starts again from the oldest at
 * the next tick.
 */
export async function sweepD1(env: WorkerEnv, now: number, budgetMs = D1_TICK_MS): Promise<D1SweepReport> {
  const report: D1SweepReport = { runs_deleted: 0, runs_kept: 0, guards_deleted: 0, more: false };
  // A deleted session's replay-guard records are needed only until no replay can be accepted, whatever the runs
  // retention; batches of D1_GUARD_BATCH until one comes back short (a few per deletion in the last hour).
  for (;;) {
    const n = await deleteExpiredGuards(env.DB, now, D1_GUARD_BATCH);
    report.guards_deleted += n;
    if (n < D1_GUARD_BATCH) break;
  }
  const { runsMs } = retentionOf(env);
  if (runsMs <= 0) return report;
  const cutoff = isoBefore(now, runsMs);
  // Wall time, not `now` (the scheduled time, which a test may move): each batch is D1 and object I/O.
  const until = Date.now() + budgetMs;
  let after = await retentionCursor(env.DB);
  for (;;) {
    const results = await runsCreatedBefore(env.DB, cutoff, after, D1_BATCH);
    const open = await stillOpen(env, results);
    const gone = results.filter((r) => !open.has(r.id)).map((r) => r.id);
    await deleteRuns(env.DB, gone);
    report.runs_deleted += gone.length;
    report.runs_kept += results.length - gone.length;
    const last = results[results.length - 1];
    // Saved after every batch, so a tick cut short (a D1 error, the CPU limit) still moves the next one on.
    // A short batch ends the pass: the next tick starts again from the oldest record.
    after = last && results.length === D1_BATCH ? { at: last.created_at, id: last.id } : { at: "", id: "" };
    await setRetentionCursor(env.DB, after);
    if (results.length < D1_BATCH) return report;
    if (Date.now() >= until) break;
  }
  report.more = true;
  return report;
}

interface IdleWalkReport {
  /** Sessions this tick asked to schedule their sweep. */
  sessions_checked: number;
  /** Of those, the ones that could not be asked (the pass is walked again once it ends). */
  sessions_missed: number;
  /** The time budget ran out; the next tick continues after the last index row this one read. */
  sessions_more: boolean;
}

/** Asks each session to schedule its sweep (Session.ensureSweep); returns how many could not be asked. */
async function ensureSweeps(env: WorkerEnv, keys: SessionKey[]): Promise<number> {
  const failed = await Promise.all(
    keys.map(async ({ tenant, id }) => {
      const name = `${tenant}:${id}`;
      try {
        await (env.SESSION.getByName(name) as unknown as EnsureSweepRpc).ensureSweep();
        return 0;
      } catch (e) {
        log("error", "retention_session_unreachable", { session: name, error: String(e) });
        return 1;
      }
    }),
  );
  return failed.reduce<number>((a, b) => a + b, 0);
}

/**
 * The cron's walk over the D1 session index for idle expiry. A session's idle
 * expiry is its own sweep job's to decide, but a session that went dormant
 * while the setting was off (or longer) has no job left, and nothing would
 * wake it: so when `SWITCHBOARD_RETENTION_SESSION_IDLE_DAYS` is on and no
 * complete pass has been made for its value yet, every indexed session is
 * asked to schedule its sweep (`ensureSweep`, which only ever moves the job
 * earlier), in batches of D1_BATCH in (tenant, id) order, for `budgetMs` of
 * wall time a tick (at least one batch); the next tick continues after the
 * cursor.
 *
 * The rule that keeps it from waking every session every hour: a pass that
 * reaches the end with every session asked records the setting it was for,
 * and no tick walks again until the setting changes. A pass under way for
 * another setting starts again from the start; one that missed a session
 * (unreachable) is walked again. With the setting off nothing is walked, and
 * the record is cleared, since sessions idle meanwhile drop their jobs: the
 * setting turned on again walks again. Sessions created after a pass schedule
 * their own sweep.
 */
export async function walkIdleSessions(env: WorkerEnv, budgetMs = D1_TICK_MS): Promise<IdleWalkReport> {
  const report: IdleWalkReport = { sessions_checked: 0, sessions_missed: 0, sessions_more: false };
  const { sessionIdleMs } = retentionOf(env);
  const stored = await idleCursor(env.DB);
  if (sessionIdleMs <= 0) {
    if (stored.doneMs !== 0 || stored.passMs !== 0) await setIdleCursor(env.DB, IDLE_CURSOR_START);
    return report;
  }
  if (stored.doneMs === sessionIdleMs) return report;
  let c: IdleCursor =
    stored.passMs === sessionIdleMs ? stored : { ...IDLE_CURSOR_START, passMs: sessionIdleMs, doneMs: stored.doneMs };
  const until = Date.now() + budgetMs;
  for (;;) {
    const keys = await sessionsAfter(env.DB, c.after, D1_BATCH);
    const missed = await ensureSweeps(env, keys);
    report.sessions_checked += keys.length;
    report.sessions_missed += missed;
    const last = keys[keys.length - 1];
    // Saved after every batch, as the runs pass does. A short batch ends the pass: recorded as done for this
    // setting when it missed no session, else the next tick walks it again.
    c =
      last && keys.length === D1_BATCH
        ? { ...c, after: last, missed: c.missed + missed }
        : {
            ...IDLE_CURSOR_START,
            passMs: sessionIdleMs,
            doneMs: c.missed + missed === 0 ? sessionIdleMs : c.doneMs,
          };
    await setIdleCursor(env.DB, c);
    if (keys.length < D1_BATCH) return report;
    if (Date.now() >= until) break;
  }
  report.sessions_more = true;
  return report;
}
