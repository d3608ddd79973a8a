/**
 * Durable jobs and the one alarm of a session object: the `jobs` table (one row per kind and ref, written only
 * through this file, as plain SQL so it joins the caller's transaction) and `Scheduler`, which arms the alarm
 * for the earliest due job or, while a turn runs, the HEARTBEAT_MS heartbeat.
 */
import { log } from "../observability/log";
import { all, nowIso, one, type SqlValue, write } from "../storage/sql";

/** How often a running turn re-arms the alarm that detects eviction. */
const HEARTBEAT_MS = 30_000;
/** Delay before a job that threw is tried again (jobs.ts), and between re-checks of open runs that keep failing. */
export const JOB_RETRY_MS = 5_000;

type JobKind = "run" | "callback" | "sweep" | "approval" | "notice";

export interface Job {
  id: string;
  kind: JobKind;
  ref: string;
  due_at: number;
  created_at: string;
  [key: string]: string | number;
}

/**
 * Bumped by every write of `jobs` (`writeJobs`, the only writer) and by a rolled-back session transaction
 * (`jobsChanged`): a Scheduler's remembered earliest due time holds while the version it was read at is
 * current. One counter for the isolate, which may run several objects: a write in one costs the others a read.
 */
let jobsVersion = 0;

/** The jobs table may have changed without a write here (a rollback): remembered due times are read again. */
export function jobsChanged(): void {
  jobsVersion++;
}

/** Every write of `jobs` goes through here: it bumps the version. */
function writeJobs(sql: SqlStorage, query: string, ...params: SqlValue[]): void {
  jobsVersion++;
  write(sql, query, ...params);
}

/** Inserts a job or moves it; `when` narrows the move (e.g. only to an earlier time). */
function upsertJob(sql: SqlStorage, kind: JobKind, ref: string, dueAt: number, when = ""): void {
  writeJobs(
    sql,
    `INSERT INTO jobs (id, kind, ref, due_at, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET due_at = excluded.due_at${when}`,
    `${kind}:${ref}`,
    kind,
    ref,
    dueAt,
    nowIso(),
  );
}

/** Adds a job (idempotent per kind and ref); SQL only, for code that has no Scheduler at hand (e.g. a turn). */
export function addJob(sql: SqlStorage, kind: JobKind, ref: string, dueAt: number): void {
  upsertJob(sql, kind, ref, dueAt);
}

/** Removes a job; SQL only (e.g. an approval answered before its expiry). */
export function removeJob(sql: SqlStorage, kind: JobKind, ref: string): void {
  writeJobs(sql, "DELETE FROM jobs WHERE id = ?", `${kind}:${ref}`);
}

/**
 * The session's one alarm, shared. Durable work (start a queued run, deliver
 * a callback, sweep rows past their retention) is a row in `jobs` with a due time, written in the same
 * transaction as the state that needs it, so it survives eviction and
 * restarts. The heartbeat is not a row: it is derived from memory (a runner
 * is active), because a new instance has no runner by definition.
 *
 * `arm` makes the alarm fire no later than the earliest of: the heartbeat
 * (while a turn runs) and the earliest due job. It writes the alarm only when
 * the one already set would come too late (or is unknown): an earlier alarm
 * stays and re-arms when it fires. Run jobs only count while runs may start
 * (no turn runs, none waits for a client's tool results): a run waits, and
 * the end of what it waits for re-arms. Open runs that disagree with their
 * turn (a crash, a re-check that threw) make the alarm due as well, so a new
 * instance never arms past (or deletes) the re-check they need.
 */
export class Scheduler {
  readonly #storage: DurableObjectStorage;
  readonly #runnerActive: () => boolean;
  readonly #runsBlocked: () => boolean;
  readonly #recheckDue: () => number | null;
  /**
   * The alarm as this instance last set it: a time, null for none, undefined when unknown (a new instance, an
   * alarm that has just fired, a failed write).
   */
  #alarm: number | null | undefined = undefined;
  /**
   * The earliest due time last read with run jobs counted (`all`) and without (`others`), each with the jobs
   * version it was read at: a turn's start reads one, its end the other.
   */
  #due: Record<"all" | "others", { version: number; at: number | null } | null> = { all: null, others: null };
  /**
   * `recheckDue`: when open runs need the alarm's re-check (SessionRuns.recheckDue), asked while no runner is
   * active (a running turn's heartbeat re-checks them anyway).
   */
  constructor(
    storage: DurableObjectStorage,
    runnerActive: () => boolean,
    runsBlocked: () => boolean = runnerActive,
    recheckDue: () => number | null = () => null,
  ) {
    this.#recheckDue = recheckDue;
    this.#runsBlocked = runsBlocked;
    this.#runnerActive = runnerActive;
    this.#storage = storage;
  }

  /** Adds a job (idempotent per kind and ref). SQL only: callers may run it inside their transaction. */
  add(kind: JobKind, ref: string, dueAt: number): void {
    addJob(this.#storage.sql, kind, ref, dueAt);
  }

  /** Adds a job, or moves an existing one earlier (never later). SQL only. */
  addEarliest(kind: JobKind, ref: string, dueAt: number): void {
    upsertJob(this.#storage.sql, kind, ref, dueAt, " WHERE excluded.due_at < jobs.due_at");
  }

  get(kind: JobKind, ref: string): Job | null {
    return one<Job>(this.#storage.sql, "SELECT * FROM jobs WHERE id = ?", `${kind}:${ref}`);
  }

  /** Due jobs of the given kinds, earliest first. */
  due(now: number, kinds: readonly JobKind[]): Job[] {
    return all<Job>(this.#storage.sql, "SELECT * FROM jobs WHERE due_at <= ? ORDER BY due_at, created_at", now).filter(
      (j) => kinds.includes(j.kind),
    );
  }

  /** Moves a job (a lease while it is being worked on, or its next retry). */
  reschedule(job: Job, dueAt: number): void {
    writeJobs(this.#storage.sql, "UPDATE jobs SET due_at = ? WHERE id = ?", dueAt, job.id);
  }

  remove(kind: JobKind, ref: string): void {
    removeJob(this.#storage.sql, kind, ref);
  }

  /** The time the alarm should fire next, or null when nothing is waiting. */
  next(now = Date.now()): number | null {
    const active = this.#runnerActive();
    const runs = !(active || this.#runsBlocked());
    const key = runs ? "all" : "others";
    const known = this.#due[key];
    let next: number | null;
    if (known !== null && known.version === jobsVersion) next = known.at;
    else {
      next =
        one<{ due: number | null }>(
          this.#storage.sql,
          "SELECT min(due_at) AS due FROM jobs WHERE kind != 'run' OR ? = 1",
          runs ? 1 : 0,
        )?.due ?? null;
      this.#due[key] = { version: jobsVersion, at: next };
    }
    // Not cached with the jobs: it reads runs and turns, which change without a jobs write.
    const soonest = active ? now + HEARTBEAT_MS : this.#recheckDue();
    if (soonest !== null) next = next === null ? soonest : Math.min(next, soonest);
    return next === null ? null : Math.max(next, now);
  }

  /**
   * Makes sure the alarm fires no later than `next()`. An alarm already set for an earlier time that is still
   * ahead stays as it is: when it fires, the handler re-arms for whatever is due then. So a busy session does
   * not write its alarm at every turn's start (the heartbeat) and end (the sweep's far due time): a storage
   * write holds the turn's stream back until it is confirmed. Never throws: a failed write is logged, and the
   * next `arm` writes again.
   */
  arm(): void {
    const now = Date.now();
    let next: number | null;
    try {
      next = this.next(now);
    } catch (e) {
      // A failed read must not throw out of a turn's end: the alarm fires soon and re-arms from what is stored then.
      log("error", "alarm_next_failed", { error: String(e) });
      next = now + HEARTBEAT_MS;
    }
    const set = this.#alarm;
    // Nothing to write: no alarm wanted and none set, or the one set is still ahead and early enough.
    if (set === null && next === null) return;
    if (typeof set === "number" && next !== null && now < set && set <= next) return;
    this.#alarm = next;
    const op = next === null ? this.#storage.deleteAlarm() : this.#storage.setAlarm(next);
    op.catch((e: unknown) => {
      this.#alarm = undefined;
      log("error", "alarm_arm_failed", { error: String(e) });
    });
  }

  /** The alarm fired (it is no longer set once the handler ends) or was deleted behind the scheduler's back. */
  forget(): void {
    this.#alarm = undefined;
    this.#due = { all: null, others: null };
  }
}
