/**
 * The session object's one alarm (`SessionAlarm`): the due jobs (jobs.ts), then the retention sweep (sweeper.ts)
 * and, when it finds the session idle past its expiry, the session's end (session-delete.ts `expire`), re-armed for
 * whatever is due next; and the scheduling of that sweep (`scheduleSweep`, `ensureSweep`).
 */
import { log } from "../observability/log";
import type { Jobs } from "./jobs";
import type { Scheduler } from "./scheduler";
import type { SessionEngine } from "./session-engine";
import type { SessionRecord } from "./session-record";
import type { Sweeper } from "./sweeper";

/** What the alarm needs of the object: what it holds, the jobs, the sweeper and the end of an expired session. */
interface AlarmDeps {
  record: SessionRecord;
  engine: SessionEngine;
  scheduler: Scheduler;
  jobs: Jobs;
  sweeper: Sweeper;
  expire: () => Promise<void>;
}

export class SessionAlarm {
  readonly #deps: AlarmDeps;

  constructor(deps: AlarmDeps) {
    this.#deps = deps;
  }

  /**
   * The one alarm: the heartbeat while a turn runs (a new instance that finds
   * no runner has already recovered in the constructor; interrupted runs are
   * resumed or failed here), the due jobs (jobs.ts: queued runs, callback and
   * notice deliveries, approvals' expiry), then the retention sweep
   * (src/session/sweeper.ts). It is re-armed for whatever is due next.
   */
  async run(): Promise<void> {
    const { record, engine, scheduler, jobs, sweeper, expire } = this.#deps;
    scheduler.forget();
    // Runs may conclude here (a callback delivered): the turns they held back become sweepable.
    sweeper.forget();
    record.ready();
    if (!record.hasTables) return;
    try {
      await jobs.alarm();
      // A DELETE may have wiped the object while the jobs awaited (a callback delivery, say).
      if (!record.hasTables) return;
      this.scheduleSweep();
      // The sweep yields between batches; a DELETE delivered then wipes the tables it would go on deleting from.
      const generation = engine.generation;
      const swept = await sweeper.alarm(Date.now(), () => !record.hasTables || engine.stale(generation));
      if (swept && (swept.stream_log || swept.events || swept.turns || swept.runs)) {
        log("info", "retention_swept", { session: record.info()?.id, ...swept });
      }
      if (swept?.expired) await expire();
    } finally {
      // A session that expired itself has no tables left, and nothing to arm.
      if (record.hasTables) scheduler.arm();
    }
  }

  /** Never throws into its caller (a turn's end): a missed schedule is made up by the next turn or alarm. */
  scheduleSweep(): void {
    const { record, sweeper } = this.#deps;
    try {
      if (record.info()) sweeper.schedule();
    } catch (e) {
      log("error", "sweep_schedule_failed", { error: String(e) });
    }
  }

  /**
   * The D1 retention cron's poke when the idle-expiry setting is new (retention/cron.ts `walkIdleSessions`): the
   * sweep job is scheduled for whatever expires next under this object's retention, idle expiry included (an
   * existing job only moves earlier), and the alarm armed for it. A session dormant since before the setting
   * was on has no job left, and nothing else would wake it. An object with no session (never created, deleted
   * with its tombstone, or whose state did not load: its rebuild by `clear` schedules the sweep) is left as it is:
   * no tables are created.
   */
  ensureSweep(): void {
    const { record, sweeper, scheduler } = this.#deps;
    if (record.broken || !record.info()) return;
    sweeper.schedule();
    scheduler.arm();
  }
}
