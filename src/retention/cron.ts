/**
 * The worker's retention cron over D1 (wrangler.toml `[triggers]`): run
 * records past their retention are deleted once their session says the run
 * has ended. Each tick continues where the last one stopped (D1 `retention_cursor`).
 */

import { deleteRuns, type RunRef, retentionCursor, runsCreatedBefore, setRetentionCursor } from "../d1/runs";
import type { WorkerEnv } from "../http/types";
import { log } from "../observability/log";
import type { Session } from "../session/session";
import { isoBefore, retentionOf } from "./config";

/** D1 run records read and deleted per statement (one bound parameter each, so well under 100). */
export const D1_BATCH = 50;
/**
 * Wall time one cron invocation keeps taking batches while they come back full (a busy deployment creates more
 * than a fixed few batches an hour); the rest waits for the next tick. Well inside a cron invocation's limits.
 */
export const D1_TICK_MS = 60_000;

type OpenRunsRpc = Pick<Session, "openRuns">;

export interface D1SweepReport {
  runs_deleted: number;
  /** Old records kept because their session still has the run open (queued, running or callback pending). */
  runs_kept: number;
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
  const report: D1SweepReport = { runs_deleted: 0, runs_kept: 0, more: false };
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
