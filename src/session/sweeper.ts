/**
 * Retention of a session object's rows (`Sweeper`), run from the `sweep` alarm job: bounded DELETE batches
 * (SWEEP_BATCH rows, SWEEP_STATEMENTS statements per alarm) that step aside while a turn runs, and the
 * idle-session expiry check. Conversation history is never deleted.
 */
import { ACTIVE, ENDED } from "../model/turn";
import { isoBefore, type Retention } from "../retention/config";
import { one, write } from "../storage/sql";
import { sqlList } from "../storage/sql-list";
import { transaction } from "../storage/transaction";
import { OPEN_RUN, SWEEPABLE_RUN } from "./runs/run-store";
import type { Scheduler } from "./scheduler";
import { yieldTurn } from "./yield-turn";

/** Rows one DELETE removes at most. The rows are chosen by a subquery, so no statement binds more than two parameters. */
export const SWEEP_BATCH = 500;
/** DELETE statements per alarm: the work of one alarm is bounded; when more is left the job comes back soon. */
export const SWEEP_STATEMENTS = 8;
const SWEEP_AGAIN_MS = 1_000;
/** While a turn runs the sweep steps aside and looks again this much later. */
const SWEEP_BUSY_MS = 60_000;
/** An idle session kept by open work (a queued run, a pending callback) is looked at again this much later. */
const IDLE_RECHECK_MS = 3_600_000;
const REF = "retention";

/** Ended turns other than the newest (whose rows `Last-Event-ID` resumes). */
const OLD_TURN = `t.status NOT IN (${sqlList(ACTIVE)}) AND t.rowid < (SELECT max(rowid) FROM turns)`;
/**
 * Turn rows the turns retention may delete (`t` = turns; the caller adds the cutoff on `ended_at`): ended, not
 * the newest (every status derivation, `/retry` and `Last-Event-ID` read it), and not the turn of a run that is
 * still open (the run concludes, resumes or replays its `run:<id>` idempotency key from it). Paused turns
 * (`awaiting_*`) are not ended, so their approvals and open calls keep their turn.
 */
const SWEEPABLE_TURN = `t.status IN (${sqlList(ENDED)})
  AND t.rowid < (SELECT max(rowid) FROM turns)
  AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.status IN (${OPEN_RUN})
                  AND (r.turn_id = t.id OR t.idempotency_key = 'run:' || r.id))`;

interface SweepReport {
  stream_log: number;
  events: number;
  turns: number;
  runs: number;
  run_callbacks: number;
  /** The statement budget ran out (or a turn started): the job comes back after SWEEP_AGAIN_MS. */
  more: boolean;
  /** The session has been idle past `sessionIdleMs` with nothing open: the caller deletes it. */
  expired: boolean;
}

const ms = (iso: string | null | undefined): number | null => {
  if (!iso) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
};

const earliest = (...xs: Array<number | null>): number | null => {
  const set = xs.filter((x): x is number => x !== null);
  return set.length ? Math.min(...set) : null;
};

/**
 * Retention inside the session Durable Object: a `sweep` job of the alarm
 * scheduler deletes stream-log rows, events, ended turns and ended runs (with
 * their callback attempts and notices) that are past their retention, in bounded batches, never
 * while a turn runs; then it moves itself to the next time something expires,
 * or goes away when nothing will. History (`messages`) is never swept.
 */
export class Sweeper {
  readonly #storage: DurableObjectStorage;
  readonly #scheduler: Scheduler;
  readonly #retention: Retention;
  readonly #busy: () => boolean;
  /**
   * True once `schedule` has found the job early enough for anything that can still become sweepable (see
   * `#covers`): later calls add nothing and read nothing. Memory only; reset when the alarm runs, and by `forget`.
   */
  #covered = false;
  constructor(storage: DurableObjectStorage, scheduler: Scheduler, retention: Retention, busy: () => boolean) {
    this.#busy = busy;
    this.#retention = retention;
    this.#scheduler = scheduler;
    this.#storage = storage;
  }

  get #sql(): SqlStorage {
    return this.#storage.sql;
  }

  /**
   * Makes sure a sweep comes when the next row expires (an existing job is only
   * ever moved earlier). SQL only: a few indexed reads and one upsert, so a
   * turn's end can afford it; nothing is deleted here.
   */
  schedule(now = Date.now()): void {
    if (this.#covered) return;
    const next = this.#next(now);
    if (next === null) return;
    this.#scheduler.addEarliest("sweep", REF, next);
    this.#covered = this.#covers(next, now);
  }

  /** The rows changed behind the sweeper's back (a clear, a wipe): the next `schedule` looks again. */
  forget(): void {
    this.#covered = false;
  }

  /**
   * Whether a job due at `due` is early enough for every row that can become sweepable from now on, so a turn's
   * end need not look again. Such a row's clock starts no earlier than the newest turn's end (that turn becomes
   * "old" when the next one ends; events, turns and runs written later start later still), and it expires at
   * least the shortest retention period after that. A turn or run held back by an open run would start from
   * its own, older end: with open work the answer is no.
   */
  #covers(due: number, now: number): boolean {
    const r = this.#retention;
    const periods = [r.streamMs, r.eventsMs, r.turnsMs, r.runsMs, r.sessionIdleMs].filter((p) => p > 0);
    if (periods.length === 0 || this.#openWork()) return false;
    const newest = one<{ e: string | null }>(this.#sql, "SELECT ended_at AS e FROM turns ORDER BY rowid DESC LIMIT 1");
    const start = Math.min(ms(newest?.e) ?? now, now);
    return due <= start + Math.min(...periods);
  }

  /**
   * Runs the sweep when its job is due; null when it was not due, a turn is running, or `gone` turned true
   * while it yielded between batches (a DELETE wiped the object: there is nothing left to sweep or schedule).
   */
  async alarm(now: number, gone: () => boolean): Promise<SweepReport | null> {
    // The job is moved or removed below: the next `schedule` looks again.
    this.forget();
    const job = this.#scheduler.get("sweep", REF);
    if (!job || job.due_at > now) return null;
    if (this.#busy()) {
      this.#scheduler.reschedule(job, now + SWEEP_BUSY_MS);
      return null;
    }
    const report: SweepReport = {
      stream_log: 0,
      events: 0,
      turns: 0,
      runs: 0,
      run_callbacks: 0,
      more: false,
      expired: false,
    };
    const r = this.#retention;
    const phases: Array<() => number> = [];
    // Each phase deletes one batch and returns how many rows it deleted.
    if (r.streamMs > 0) {
      phases.push(() => {
        const n = this.#streamBatch(isoBefore(now, r.streamMs));
        report.stream_log += n;
        return n;
      });
    }
    if (r.eventsMs > 0) {
      phases.push(() => {
        const n = this.#eventsBatch(isoBefore(now, r.eventsMs));
        report.events += n;
        return n;
      });
    }
    if (r.turnsMs > 0) phases.push(() => this.#turnsBatch(isoBefore(now, r.turnsMs), report));
    if (r.runsMs > 0) phases.push(() => this.#runsBatch(isoBefore(now, r.runsMs), report));
    let budget = SWEEP_STATEMENTS;
    outer: for (const phase of phases) {
      for (;;) {
        if (budget === 0 || this.#busy()) {
          report.more = true;
          break outer;
        }
        budget--;
        if (phase() < SWEEP_BATCH) break;
        await yieldTurn();
        if (gone()) return null;
      }
    }
    // More is left (or a turn started while the sweep yielded): come back shortly, not at once.
    if (report.more) this.#scheduler.add("sweep", REF, now + SWEEP_AGAIN_MS);
    else {
      report.expired = this.idleExpired(now);
      const next = report.expired ? null : this.#next(now);
      if (next === null) this.#scheduler.remove("sweep", REF);
      else this.#scheduler.add("sweep", REF, next);
    }
    return report;
  }

  /** Idle past `sessionIdleMs`, no turn running, no run open and no callback waiting. */
  idleExpired(now: number): boolean {
    const idle = this.#retention.sessionIdleMs;
    if (idle <= 0 || this.#busy() || this.#openWork()) return false;
    const last = this.#lastActivity();
    return last !== null && last + idle <= now;
  }

  #streamBatch(cutoff: string): number {
    return write(
      this.#sql,
      `DELETE FROM stream_log WHERE id IN (
         SELECT s.id FROM turns t JOIN stream_log s ON s.turn_id = t.id WHERE t.ended_at < ? AND ${OLD_TURN} LIMIT ?)`,
      cutoff,
      SWEEP_BATCH,
    );
  }

  #eventsBatch(cutoff: string): number {
    // The newest event stays whatever its age: seq is a rowid, and an emptied table would hand its numbers out again
    // (a client paging with `after` would see nothing, then skip events).
    return write(
      this.#sql,
      `DELETE FROM events WHERE seq IN (
         SELECT seq FROM events WHERE at < ? AND seq < (SELECT max(seq) FROM events) ORDER BY seq LIMIT ?)`,
      cutoff,
      SWEEP_BATCH,
    );
  }

  /**
   * One batch of ended turns past the retention, oldest first, with their stream-log rows, in one
   * transaction; `meta.turns_swept` keeps the count, so `GET /v1/sessions/{id}` still reports every turn.
   * Returns the turns deleted.
   */
  #turnsBatch(cutoff: string, report: SweepReport): number {
    const batch = `SELECT t.id FROM turns t WHERE t.ended_at < ? AND ${SWEEPABLE_TURN} ORDER BY t.rowid LIMIT ?`;
    return transaction(this.#storage, () => {
      report.stream_log += write(this.#sql, `DELETE FROM stream_log WHERE turn_id IN (${batch})`, cutoff, SWEEP_BATCH);
      const n = write(this.#sql, `DELETE FROM turns WHERE id IN (${batch})`, cutoff, SWEEP_BATCH);
      if (n > 0) {
        write(
          this.#sql,
          `INSERT INTO meta (key, value) VALUES ('turns_swept', ?)
           ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + excluded.value`,
          String(n),
        );
      }
      report.turns += n;
      return n;
    });
  }

  /** One batch of ended runs and their callback attempts, in one transaction; returns the runs deleted. */
  #runsBatch(cutoff: string, report: SweepReport): number {
    // Ended runs whose callback is not waiting and whose turn is no longer paused; `ended_at` past the cutoff.
    const batch = `SELECT id FROM runs WHERE ${SWEEPABLE_RUN} AND ended_at < ? ORDER BY ended_at, id LIMIT ?`;
    return transaction(this.#storage, () => {
      report.run_callbacks += write(
        this.#sql,
        `DELETE FROM run_callbacks WHERE run_id IN (${batch})`,
        cutoff,
        SWEEP_BATCH,
      );
      write(this.#sql, `DELETE FROM run_notices WHERE run_id IN (${batch})`, cutoff, SWEEP_BATCH);
      const n = write(this.#sql, `DELETE FROM runs WHERE id IN (${batch})`, cutoff, SWEEP_BATCH);
      report.runs += n;
      return n;
    });
  }

  /** An open run (one awaiting an approval too), a callback not yet delivered, or an approval a person may answer. */
  #openWork(): boolean {
    return (
      one(
        this.#sql,
        `SELECT 1 AS x WHERE EXISTS (
           SELECT 1 FROM runs WHERE status IN (${OPEN_RUN}) OR callback_status = 'pending')
           OR EXISTS (SELECT 1 FROM approvals WHERE status = 'pending')`,
      ) !== null
    );
  }

  /** The newest sign of use: the session's creation, its newest turn, runs, callback attempts and events. */
  #lastActivity(): number | null {
    const info = one<{ value: string }>(this.#sql, "SELECT value FROM meta WHERE key = 'session'");
    if (!info) return null;
    const created = ms((JSON.parse(info.value) as { created_at?: string }).created_at);
    const turn = one<{ s: string; e: string | null }>(
      this.#sql,
      "SELECT started_at AS s, ended_at AS e FROM turns ORDER BY rowid DESC LIMIT 1",
    );
    const runs = one<{ c: string | null; e: string | null }>(
      this.#sql,
      "SELECT max(created_at) AS c, max(ended_at) AS e FROM runs",
    );
    const cb = one<{ a: string | null }>(this.#sql, "SELECT max(at) AS a FROM run_callbacks");
    const ev = one<{ at: string }>(this.#sql, "SELECT at FROM events ORDER BY seq DESC LIMIT 1");
    const times = [created, ms(turn?.s), ms(turn?.e), ms(runs?.c), ms(runs?.e), ms(cb?.a), ms(ev?.at)];
    const known = times.filter((t): t is number => t !== null);
    return known.length ? Math.max(...known) : null;
  }

  /** When the next row expires (or the session goes idle), or null when nothing ever will. */
  #next(now: number): number | null {
    const r = this.#retention;
    const plus = (iso: string | null | undefined, period: number) => {
      const t = ms(iso);
      return t === null ? null : t + period;
    };
    const stream =
      r.streamMs > 0
        ? plus(
            one<{ at: string | null }>(
              this.#sql,
              `SELECT min(t.ended_at) AS at FROM (SELECT DISTINCT turn_id FROM stream_log) s
               JOIN turns t ON t.id = s.turn_id WHERE ${OLD_TURN}`,
            )?.at,
            r.streamMs,
          )
        : null;
    const events =
      r.eventsMs > 0
        ? plus(
            // The newest event is never swept (#eventsBatch): it sets no time.
            one<{ at: string }>(
              this.#sql,
              "SELECT at FROM events WHERE seq < (SELECT max(seq) FROM events) ORDER BY seq LIMIT 1",
            )?.at,
            r.eventsMs,
          )
        : null;
    // The oldest sweepable turn (turns end in rowid order): a scan that stops at its first match, not a
    // min() over every turn, since this runs whenever a turn settles.
    const turns =
      r.turnsMs > 0
        ? plus(
            one<{ at: string | null }>(
              this.#sql,
              `SELECT t.ended_at AS at FROM turns t WHERE ${SWEEPABLE_TURN} ORDER BY t.rowid LIMIT 1`,
            )?.at,
            r.turnsMs,
          )
        : null;
    const runs =
      r.runsMs > 0
        ? plus(
            one<{ at: string | null }>(this.#sql, `SELECT min(ended_at) AS at FROM runs WHERE ${SWEEPABLE_RUN}`)?.at,
            r.runsMs,
          )
        : null;
    let idle: number | null = null;
    if (r.sessionIdleMs > 0) {
      const last = this.#lastActivity();
      // Open work keeps an idle session: look again later.
      if (last !== null) idle = Math.max(last + r.sessionIdleMs, now + IDLE_RECHECK_MS);
    }
    const next = earliest(stream, events, turns, runs, idle);
    return next === null ? null : Math.max(next, now + SWEEP_AGAIN_MS);
  }
}
