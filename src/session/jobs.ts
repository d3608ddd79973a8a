/**
 * The alarm's jobs (`Jobs`): the re-check of open runs, then every due job by its kind: `run` (start a queued run,
 * runs/session-runs.ts), `callback` and `notice` (a run's deliveries, runs/deliveries.ts) and `approval` (an
 * approval's expiry, in any session: approval-answers.ts). Serialised per instance. A job that throws is logged as
 * `job_failed` (its kind and ref) and tried again JOB_RETRY_MS later, without stopping the others. The `sweep` job
 * is the sweeper's (sweeper.ts).
 */
import type { AgentConfig } from "../agents/types";
import { log } from "../observability/log";
import { expireByJob } from "./approval-answers";
import type { Deliveries } from "./runs/deliveries";
import type { SessionRuns } from "./runs/session-runs";
import { JOB_RETRY_MS, type Job, type Scheduler } from "./scheduler";
import type { SessionEngine } from "./session-engine";

/** The kinds of job worked here, each by its handler. */
const KINDS = ["run", "callback", "approval", "notice"] as const;

/**
 * What the jobs need: the engine (its delete tombstone), the jobs themselves, the runs and their deliveries, and
 * `agent`, the session's agent config for an approval's expiry (null: deleted, or the session deleted during its
 * D1 read).
 */
interface JobsDeps {
  engine: SessionEngine;
  scheduler: Scheduler;
  runs: SessionRuns;
  deliveries: Deliveries;
  agent: () => Promise<AgentConfig | null>;
}

export class Jobs {
  readonly #deps: JobsDeps;
  readonly #handlers: Record<(typeof KINDS)[number], (job: Job) => Promise<void>>;
  #chain: Promise<void> = Promise.resolve();
  /** The engine's generation when this alarm's work began: after a DELETE, work that awaited writes nothing. */
  #generation = 0;

  constructor(deps: JobsDeps) {
    this.#deps = deps;
    const { engine, scheduler, runs, deliveries, agent } = deps;
    const gone = () => this.gone;
    this.#handlers = {
      run: (job) => runs.start(job),
      callback: (job) => deliveries.callback(job),
      approval: (job) =>
        expireByJob({ engine, scheduler, agent, gone, failRun: (turnId) => runs.failAgentMissing(turnId) }, job.ref),
      notice: (job) => deliveries.notice(job),
    };
  }

  /** True when the session was deleted while this alarm's work awaited something. */
  get gone(): boolean {
    return this.#deps.engine.stale(this.#generation);
  }

  /** The alarm's share: serialised, so two deliveries of the alarm never work the same job at once. */
  alarm(): Promise<void> {
    const work = this.#chain.then(() => this.#work());
    this.#chain = work.catch(() => {});
    return work;
  }

  async #work(): Promise<void> {
    const { engine, scheduler, runs } = this.#deps;
    this.#generation = engine.generation;
    if (this.gone) return;
    await runs.recheck();
    if (this.gone) return;
    for (const job of scheduler.due(Date.now(), KINDS)) {
      if (this.gone) return;
      const handler = this.#handlers[job.kind as (typeof KINDS)[number]];
      const ok = await this.#guard(job, () => handler(job));
      // A job that threw (D1 unreachable, say) is retried a little later, not in a hot alarm loop.
      if (!ok && !this.gone && scheduler.get(job.kind, job.ref)) scheduler.reschedule(job, Date.now() + JOB_RETRY_MS);
    }
  }

  /** One job's failure must not stop the others, nor make the platform retry the whole alarm. */
  async #guard(job: Job, fn: () => Promise<void>): Promise<boolean> {
    try {
      await fn();
      return true;
    } catch (e) {
      log("error", "job_failed", { kind: job.kind, ref: job.ref, error: String(e) });
      return false;
    }
  }
}
