/**
 * The session object's side of webhook-triggered runs: `SessionRuns` queues runs, starts and resumes them from
 * the alarm, concludes them when their turn ends or pauses for approval, and queues their signed callbacks and
 * approval notices (delivered by deliveries.ts). A failing job is retried later without stopping the others;
 * nothing throws into the engine.
 */
import type { AgentConfig } from "../../agents/types";
import type { Env } from "../../env";
import { type ErrorInfo, failure, type Result } from "../../model/errors";
import type { TurnStatus } from "../../model/turn";
import { log } from "../../observability/log";
import { headChars } from "../../storage/fit";
import { openView } from "../approvals";
import { RUN_KEY_PREFIX, type TurnAnswer } from "../rpc-types";
import type { Job, Scheduler } from "../scheduler";
import type { SessionEngine } from "../session-engine";
import { firstSeqOf } from "../turn/answers";
import type { TurnRow } from "../turn/turn-store";
import { Deliveries } from "./deliveries";
import { type RunRow, RunStore } from "./run-store";
import { MAX_QUEUED_RUNS, MAX_RESUMES, type RunOutput, type RunSpec, type RunView } from "./types";

const OUTPUT_CHARS = 100_000;
/** Delay before a job that threw is tried again. */
const JOB_RETRY_MS = 5_000;

/**
 * Webhook-triggered runs inside the session DO. A run is queued with a `run`
 * job; the alarm starts it through the engine's normal admission path (so
 * invariant P, one-turn-at-a-time and idempotency hold), with the run id as
 * the turn's idempotency key, so a job retried after a crash never admits a
 * second turn. The turn's end concludes the run and queues its callback.
 */
export class SessionRuns {
  readonly store: RunStore;
  #chain: Promise<void> = Promise.resolve();
  /** The engine's generation when this alarm's work began: after a DELETE, work that awaited writes nothing. */
  #generation = 0;
  /** When this instance's alarm last re-checked open runs (0: never, so a new instance re-checks at once). */
  #checkedAt = 0;

  readonly #engine: SessionEngine;
  readonly #scheduler: Scheduler;
  readonly #sessionId: () => string;
  readonly #agentName: () => string | null;
  readonly #agent: (name: string, admission?: boolean) => Promise<AgentConfig | null>;
  /** The runs' callbacks and approval notices (deliveries.ts). */
  readonly #deliveries: Deliveries;
  /**
   * `agent` gives the agent's config (null: deleted) from the object's copy,
   * at most a minute old (src/session/agent-cache.ts): a run started later than
   * it was accepted uses a config reconfigured meanwhile within that bound.
   * `signer` gives the config whose secrets sign callbacks and approval notices (deliveries.ts): at most a minute
   * old even while a turn is open and keeps an older copy (AgentCache.signing). Both answer null, reading nothing
   * more, when the session is deleted during their D1 read; the work checks `#gone` after each and stops.
   */
  constructor(
    engine: SessionEngine,
    scheduler: Scheduler,
    env: Env,
    sessionId: () => string,
    agentName: () => string | null,
    agent: (name: string, admission?: boolean) => Promise<AgentConfig | null>,
    signer: (name: string) => Promise<AgentConfig | null>,
  ) {
    this.#agent = agent;
    this.#agentName = agentName;
    this.#sessionId = sessionId;
    this.#scheduler = scheduler;
    this.#engine = engine;
    this.store = new RunStore(engine.storage.sql);
    this.#deliveries = new Deliveries({
      store: this.store,
      view: (id) => this.view(id),
      engine,
      scheduler,
      env,
      sessionId,
      signer,
      gone: () => this.#gone,
    });
  }

  /**
   * Queues a run (a second call with the same id changes nothing) and returns its view; refused with
   * `run_queue_full` while MAX_QUEUED_RUNS runs wait in this session already.
   */
  enqueue(spec: RunSpec): Result<{ run: RunView }> {
    const inserted = this.#engine.tx(() => {
      // A repeat of a run already held is answered whatever the queue holds now.
      if (this.store.get(spec.id)) return false;
      if (this.store.queued() >= MAX_QUEUED_RUNS) return null;
      const fresh = this.store.insert(spec);
      if (fresh) this.#scheduler.add("run", spec.id, Date.now());
      return fresh;
    });
    if (inserted === null) {
      return failure(
        "run_queue_full",
        `session "${this.#sessionId()}" already has ${MAX_QUEUED_RUNS} queued runs; retry once some have started`,
      );
    }
    if (inserted) {
      this.store.sweep();
      this.#engine.eventLog.record("run_queued", null, { run_id: spec.id, callback: Boolean(spec.callback_url) });
      this.#scheduler.arm();
    }
    return { ok: true, run: this.view(spec.id) as RunView };
  }

  view(id: string): RunView | null {
    const row = this.store.get(id);
    if (!row) return null;
    const view = this.store.view(row, this.#sessionId(), this.#scheduler.get("callback", id)?.due_at ?? null);
    return row.status === "awaiting_approval" ? { ...view, approvals: this.#approvalsOf(row) } : view;
  }

  #approvalsOf(row: RunRow) {
    return this.#engine.approvals
      .pending()
      .filter((a) => a.turn_id === row.turn_id)
      .map(openView);
  }

  /** Engine hook: a paused turn continues (its approvals were answered); its run is running again. */
  onResumed(turnId: string): void {
    // Never throws into the engine: the resumed turn must still start. A run missed here shows
    // `awaiting_approval` until its turn settles.
    try {
      const row = this.store.byTurn(turnId);
      if (row?.status !== "awaiting_approval") return;
      this.store.setStatus(row.id, "running");
      this.#engine.eventLog.record("run_started", turnId, { run_id: row.id, after: "approval" });
    } catch (e) {
      log("error", "run_resume_failed", { turn_id: turnId, error: String(e) });
    }
  }

  /**
   * A run may not start now: a turn runs, a turn waits for a person's approval (a run would supersede it and
   * decline the call the person is deciding on), or a client's turn waits for its client tool results (the
   * client's real results would be refused as late). A run's own turn paused for client tool results does not
   * block: nobody will answer it, and that run has already failed.
   */
  blocked(): boolean {
    if (this.#engine.running) return true;
    const latest = this.#engine.turns.latest();
    if (latest?.status === "awaiting_approval") return true;
    // A run's own turn paused for client results failed that run (awaiting_tool_results): it blocks nothing.
    // Its `run:` key says so without the run's row (clients may not use that prefix); a resumed turn has no key,
    // and its run's row is kept while the turn stays paused (SWEEPABLE_RUN).
    if (latest?.status !== "awaiting_tool_results") return false;
    return !latest.idempotency_key?.startsWith(RUN_KEY_PREFIX) && !this.store.ownsTurn(latest.id);
  }

  /**
   * Engine hook: a turn stopped running, or a paused turn ended without a runner (cancelled, superseded by a new
   * message, cleared). An interrupted turn never gets here (no runner survives a restart).
   */
  onSettled(turnId: string): void {
    // Never throws into the engine (its waiters must still be released). A run missed here stays
    // `running` until an alarm's reconcile pass (every alarm starts with one) concludes it.
    try {
      const row = this.store.byTurn(turnId);
      if (row?.status !== "running" && row?.status !== "awaiting_approval") return;
      const turn = this.#engine.turns.get(turnId);
      if (!turn) this.#fail(row, { code: "turn_missing", message: "the run's turn was cleared" });
      else this.#conclude(row, turn);
    } catch (e) {
      log("error", "run_settle_failed", { turn_id: turnId, error: String(e) });
    }
  }

  /**
   * When the alarm must next re-check open runs, or null when every open run agrees with its turn (asked only
   * while no runner is active). Derived from the stored runs and turns, not from a job row: a re-check that threw
   * (a D1 read of the agent), a hook that failed to conclude a run, an orphaned turn, or a new instance that
   * never saw either, all leave a run that disagrees, and it stays due until a re-check settles it. Paced by
   * JOB_RETRY_MS after the last re-check, so a check that keeps failing is not a hot alarm loop.
   */
  recheckDue(): number | null {
    return this.store.unsettled() ? this.#checkedAt + JOB_RETRY_MS : null;
  }

  /** The alarm's share: serialised, so two deliveries of the alarm never work the same job at once. */
  alarm(): Promise<void> {
    const work = this.#chain.then(() => this.#work());
    this.#chain = work.catch(() => {});
    return work;
  }

  /** True when the session was deleted while this alarm's work awaited something. */
  get #gone(): boolean {
    return this.#engine.stale(this.#generation);
  }

  async #work(): Promise<void> {
    this.#generation = this.#engine.generation;
    if (this.#gone) return;
    this.#checkedAt = Date.now();
    for (const row of this.store.open()) {
      if (this.#gone) return;
      if (row.status !== "queued") await this.#guard(row.id, () => this.#reconcile(row));
    }
    const handlers = {
      run: (job: Job) => this.#start(job),
      callback: (job: Job) => this.#deliveries.callback(job),
      approval: (job: Job) => this.#expire(job),
      notice: (job: Job) => this.#deliveries.notice(job),
    };
    for (const job of this.#scheduler.due(Date.now(), ["run", "callback", "approval", "notice"])) {
      if (this.#gone) return;
      const handler = handlers[job.kind as keyof typeof handlers];
      const ok = await this.#guard(job.ref, () => handler(job));
      // A job that threw (D1 unreachable, say) is retried a little later, not in a hot alarm loop.
      if (!ok && !this.#gone && this.#scheduler.get(job.kind, job.ref))
        this.#scheduler.reschedule(job, Date.now() + JOB_RETRY_MS);
    }
  }

  /** One job's failure must not stop the others, nor make the platform retry the whole alarm. */
  async #guard(runId: string, fn: () => Promise<void>): Promise<boolean> {
    try {
      await fn();
      return true;
    } catch (e) {
      log("error", "run_job_failed", { run_id: runId, error: String(e) });
      return false;
    }
  }

  async #start(job: Job): Promise<void> {
    const row = this.store.get(job.ref);
    if (row?.status !== "queued") return this.#scheduler.remove("run", job.ref);
    // A turn is running or paused for a client: the run waits; the turn's end re-arms the alarm for it.
    if (this.blocked()) return;
    const agent = await this.#agent(row.agent, true);
    if (this.#gone) return;
    if (!agent) return this.#fail(row, { code: "agent_missing", message: `agent "${row.agent}" no longer exists` });
    if (this.blocked()) return; // a client turn started while the agent was read
    // The input is read here only, once the run starts (the alarm's other reads leave it out).
    const spec = this.store.startSpec(row.id);
    if (!spec) return this.#scheduler.remove("run", row.id);
    const answer = await this.#engine.sendMessage(
      agent,
      {
        content: spec.input,
        tool_results: [],
        idempotency_key: `${RUN_KEY_PREFIX}${row.id}`,
        body_hash: "run",
        ...(spec.json_schema ? { json_schema: spec.json_schema } : {}),
      },
      "none",
      // Checked again after the engine's own await (the MCP listing): a client's turn may have paused meanwhile.
      () => !this.blocked(),
    );
    if (this.#gone) return;
    if (!answer.ok && answer.error.code === "turn_in_progress") return;
    const turnId = this.#adopt(answer);
    if (!turnId) return this.#fail(row, answer.ok ? { code: "internal_error", message: "no turn" } : answer.error);
    this.#engine.tx(() => {
      this.store.started(row.id, turnId);
      this.#scheduler.remove("run", row.id);
    });
    this.#engine.eventLog.record("run_started", turnId, { run_id: row.id });
    await this.#reconcile(this.store.get(row.id) as RunRow);
  }

  /**
   * The turn of an admission, asked for with no stream (the run is read from storage): an opened one would take a
   * client's place among the object's streams.
   */
  #adopt(answer: Result<TurnAnswer>): string | null {
    return answer.ok ? answer.turn_id : null;
  }

  /**
   * A running run whose turn is no longer running: conclude it, or resume it after an interruption; an orphaned
   * turn (stored running, no runner) is ended first.
   */
  async #reconcile(row: RunRow): Promise<void> {
    if ((row.status !== "running" && row.status !== "awaiting_approval") || !row.turn_id) return;
    const turn = this.#engine.turns.get(row.turn_id);
    if (!turn) return this.#fail(row, { code: "turn_missing", message: "the run's turn was cleared" });
    if (turn.status === "running") {
      // Stored `running` with no runner (its end and the engine's own end of it failed to write): nothing else
      // will end it. Ended as failed here; the engine's settled hook then concludes the run.
      if (!this.#engine.running) this.#engine.healOrphan("the turn crashed");
      return;
    }
    if (turn.status === "awaiting_approval") return this.#awaitApproval(row, turn);
    if (turn.status !== "interrupted") return this.#conclude(row, turn);
    const error = {
      code: "interrupted",
      message: "the session restarted while the run's turn was running",
    };
    if (row.resumes >= MAX_RESUMES || this.#engine.turns.latest()?.id !== turn.id) return this.#fail(row, error);
    const agent = await this.#agent(row.agent, true);
    if (this.#gone) return;
    if (!agent) return this.#fail(row, { code: "agent_missing", message: `agent "${row.agent}" no longer exists` });
    // Re-checked after the await: a client message may have started a turn meanwhile.
    if (this.#engine.running || this.#engine.turns.latest()?.id !== turn.id) return this.#fail(row, error);
    this.store.resumed(row.id);
    const answer = await this.#engine.retry(agent, "none");
    if (this.#gone) return;
    const turnId = this.#adopt(answer);
    if (!turnId) return this.#fail(row, error);
    this.store.started(row.id, turnId);
    this.#engine.eventLog.record("run_resumed", turnId, { run_id: row.id, interrupted_turn_id: turn.id });
    const current = this.#engine.turns.get(turnId);
    if (current && current.status !== "running") this.#conclude(this.store.get(row.id) as RunRow, current);
  }

  /** Records the run's outcome from its ended (or paused) turn and queues the callback, in one transaction. */
  #conclude(row: RunRow, turn: TurnRow): void {
    const status: TurnStatus = turn.status;
    if (status === "running" || status === "interrupted") return;
    if (status === "awaiting_approval") {
      this.#awaitApproval(row, turn);
      return;
    }
    // From the turn's own first message: a resumed run's turn is a retry that may have written none at admission.
    const r = this.#engine.result(turn.id, firstSeqOf(this.#engine.history, turn));
    const last = [...r.messages].reverse().find((m) => m.role === "assistant");
    const text = (last?.parts ?? []).map((p) => (p.type === "text" ? p.text : "")).join("");
    const output: RunOutput = {
      output: headChars(text, OUTPUT_CHARS),
      finish_reason: r.finish_reason,
      usage: r.usage,
      ...(r.structured_result !== undefined ? { structured_result: r.structured_result } : {}),
    };
    const error: ErrorInfo | null =
      status === "completed" && r.finish_reason === "superseded"
        ? { code: "superseded", message: "a new message in the session ended the run's paused turn" }
        : status === "completed"
          ? null
          : status === "awaiting_tool_results"
            ? {
                code: "awaiting_tool_results",
                message: "the agent called client-executed tools, which a run cannot answer",
              }
            : status === "cancelled"
              ? { code: "cancelled", message: "the run's turn was cancelled" }
              : { code: r.error?.code ?? "failed", message: r.error?.message ?? "the run's turn failed" };
    this.#finish(row, error ? "failed" : "completed", output, error);
  }

  #fail(row: RunRow, error: ErrorInfo): void {
    this.#finish(row, "failed", null, { code: error.code, message: error.message });
  }

  #finish(row: RunRow, status: "completed" | "failed", output: RunOutput | null, error: ErrorInfo | null): void {
    this.#engine.tx(() => {
      this.store.finish(row.id, status, output, error);
      this.#scheduler.remove("run", row.id);
      if (row.callback_url) this.#scheduler.add("callback", row.id, Date.now());
    });
    this.#engine.eventLog.record("run_finished", row.turn_id, { run_id: row.id, status, ...(error ? { error } : {}) });
    this.#scheduler.arm();
  }

  /**
   * The run's turn paused for a person: the run shows `awaiting_approval`
   * (with the approvals to answer) and, with a callback_url, a signed
   * `run.awaiting_approval` notice is queued — once per pause (its
   * webhook-id names the pause), retried like callbacks.
   */
  #awaitApproval(row: RunRow, turn: TurnRow): void {
    // The pause's own id: its turn and segment (answering one of two approvals leaves the same pause).
    const webhookId = `${row.id}.approval.${turn.id}.${turn.segment_start}`;
    const fresh = this.#engine.tx(() => {
      if (row.status !== "awaiting_approval") this.store.setStatus(row.id, "awaiting_approval");
      const added = row.callback_url ? this.store.newNotice(row.id, turn.id, webhookId) : false;
      if (added) this.#scheduler.add("notice", row.id, Date.now());
      return row.status !== "awaiting_approval" || added;
    });
    if (!fresh) return;
    this.#engine.eventLog.record("run_awaiting_approval", turn.id, {
      run_id: row.id,
      approval_ids: this.#approvalsOf({ ...row, turn_id: turn.id }).map((a) => a.approval_id),
    });
    this.#scheduler.arm();
  }

  /**
   * An approval's `approval_ttl_s` ran out: declined with that reason (the turn resumes if it was the last). With
   * its agent deleted (and no copy kept) the turn could never resume: it is ended instead (`#endOrphaned`).
   */
  async #expire(job: Job): Promise<void> {
    const name = this.#agentName();
    const agent = name ? await this.#agent(name) : null;
    if (this.#gone) return; // deleted during the agent's read: the job went with the tables
    if (agent) await this.#engine.expireApproval(agent, job.ref);
    else await this.#endOrphaned(job.ref);
    this.#scheduler.remove("approval", job.ref);
  }

  /**
   * The paused turn of an expired approval whose agent is gone. Left paused it would block every run behind it
   * forever (`blocked`); it is cancelled, declining its open approvals, and its run fails `agent_missing` (failed
   * first, so the cancel's settled hook leaves it so). The runs queued behind then start and fail the same way.
   */
  async #endOrphaned(approvalId: string): Promise<void> {
    const approval = this.#engine.approvals.get(approvalId);
    const latest = this.#engine.turns.latest();
    if (approval?.status !== "pending" || latest?.id !== approval.turn_id || latest.status !== "awaiting_approval") {
      return;
    }
    const row = this.store.byTurn(latest.id);
    if (row?.status === "awaiting_approval" || row?.status === "running") {
      this.#fail(row, { code: "agent_missing", message: `agent "${row.agent}" no longer exists` });
    }
    await this.#engine.cancel();
  }
}
