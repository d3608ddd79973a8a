/**
 * What a webhook run sends its caller (`Deliveries`): the signed callback with the run's result (`callback` jobs)
 * and the `run.awaiting_approval` notice of a pause (`notice` jobs). Each job is leased while its delivery is in
 * flight, every attempt is recorded, and a failed one is retried with backoff, CALLBACK_MAX_ATTEMPTS in all.
 */
import type { AgentConfig } from "../../agents/types";
import type { Env } from "../../env";
import { flag } from "../../env-values";
import { nowIso } from "../../storage/sql";
import type { Job, Scheduler } from "../scheduler";
import type { SessionEngine } from "../session-engine";
import { deliver } from "./callback";
import type { RunStore } from "./run-store";
import { CALLBACK_MAX_ATTEMPTS, CALLBACK_TIMEOUT_MS, callbackDelay, type RunView } from "./types";

/** A callback being delivered is leased this long; if the instance dies mid-delivery the job comes back after it. */
const CALLBACK_LEASE_MS = CALLBACK_TIMEOUT_MS + 50_000;

/**
 * What delivering needs: the runs' rows and their view, the engine (transactions, events), the jobs, the
 * private-URL setting, the session's id, `signer` (the config whose secrets sign, AgentCache.signing), and `gone`
 * (the session was deleted while this alarm's work awaited: nothing more is read or written).
 */
interface DeliveryDeps {
  store: RunStore;
  view: (runId: string) => RunView | null;
  engine: SessionEngine;
  scheduler: Scheduler;
  env: Env;
  sessionId: () => string;
  signer: (name: string) => Promise<AgentConfig | null>;
  gone: () => boolean;
}

export class Deliveries {
  readonly #deps: DeliveryDeps;

  constructor(deps: DeliveryDeps) {
    this.#deps = deps;
  }

  /** The run's pending approval notice while its run still waits for that approval, else null. */
  #pendingNotice(runId: string) {
    const { store } = this.#deps;
    const row = store.get(runId);
    const notice = store.notice(runId);
    if (!row?.callback_url || row.status !== "awaiting_approval" || notice?.status !== "pending") return null;
    return { row, notice, url: row.callback_url };
  }

  /** A `notice` job: the run's `run.awaiting_approval` notice, under the pause's webhook-id. */
  async notice(job: Job): Promise<void> {
    const { store, engine, scheduler, env, signer, gone } = this.#deps;
    const before = this.#pendingNotice(job.ref);
    if (!before) return scheduler.remove("notice", job.ref);
    scheduler.reschedule(job, Date.now() + CALLBACK_LEASE_MS);
    const agent = await signer(before.row.agent);
    if (gone()) return;
    // Read again after the await (the agent may come from D1): the approval may have been answered meanwhile, and
    // a notice must not go out under the pause's webhook-id as run.running or run.completed. A new pause begun
    // meanwhile is the one sent.
    const pending = this.#pendingNotice(job.ref);
    if (!pending) return scheduler.remove("notice", job.ref);
    const { row, notice } = pending;
    const view = this.#deps.view(row.id) as RunView;
    delete view.callback;
    const outcome = await deliver(
      pending.url,
      agent?.webhook_secrets ?? [],
      view,
      flag(env.SWITCHBOARD_ALLOW_PRIVATE_URLS),
      notice.webhook_id,
    );
    if (gone()) return;
    const attempt = notice.attempts + 1;
    const done = outcome.delivered || !outcome.retryable || attempt >= CALLBACK_MAX_ATTEMPTS;
    const status = outcome.delivered ? "delivered" : done ? "failed" : "pending";
    engine.tx(() => {
      // A new pause replaced this notice while it was in flight: its job is the new notice's now.
      if (!store.recordNotice(row.id, notice.webhook_id, status, outcome.error)) return;
      if (done) scheduler.remove("notice", row.id);
      else scheduler.reschedule(job, Date.now() + callbackDelay(attempt));
    });
    engine.eventLog.record("approval_notice_attempt", row.turn_id, {
      run_id: row.id,
      webhook_id: notice.webhook_id,
      attempt,
      status: outcome.status,
      error: outcome.error,
      notice_status: status,
    });
  }

  /** A `callback` job: the ended run's result. */
  async callback(job: Job): Promise<void> {
    const { store, engine, scheduler, env, sessionId, signer, gone } = this.#deps;
    const row = store.get(job.ref);
    const ended = row?.status === "completed" || row?.status === "failed";
    if (!row?.callback_url || !ended || row.callback_status !== "pending") {
      return scheduler.remove("callback", job.ref);
    }
    const attempt = store.attempts(row.id).length + 1;
    scheduler.reschedule(job, Date.now() + CALLBACK_LEASE_MS);
    const at = nowIso();
    const agent = await signer(row.agent);
    if (gone()) return;
    const view = store.view(row, sessionId(), null);
    delete view.callback; // the receiver gets the result, not our delivery bookkeeping
    const outcome = await deliver(
      row.callback_url,
      agent?.webhook_secrets ?? [],
      view,
      flag(env.SWITCHBOARD_ALLOW_PRIVATE_URLS),
    );
    if (gone()) return;
    const done = outcome.delivered || !outcome.retryable || attempt >= CALLBACK_MAX_ATTEMPTS;
    const status = outcome.delivered ? "delivered" : done ? "failed" : "pending";
    engine.tx(() => {
      store.recordAttempt(row.id, { attempt, at, status: outcome.status, error: outcome.error }, status);
      if (done) scheduler.remove("callback", row.id);
      else scheduler.reschedule(job, Date.now() + callbackDelay(attempt));
    });
    engine.eventLog.record("callback_attempt", row.turn_id, {
      run_id: row.id,
      attempt,
      status: outcome.status,
      error: outcome.error,
      callback_status: status,
    });
  }
}
