/**
 * The session object's side of webhook-triggered runs: `SessionRuns` queues runs, starts and resumes them from
 * the alarm, concludes them when their turn ends or pauses for approval, and queues their signed callbacks and
 * approval notices (delivered by deliveries.ts). The alarm's jobs (jobs.ts) call `recheck` and `start`; nothing
 * throws into the engine.
 */
import type { AgentConfig } from "../../agents/types";
import { type ErrorInfo, failure, type Result } from "../../model/errors";
import type { TurnStatus } from "../../model/turn";
import { log } from "../../observability/log";
import { headChars } from "../../storage/fit";
import { openView } from "../approval-store";
import { RUN_KEY_PREFIX, type TurnAnswer } from "../rpc-types";
import { JOB_RETRY_MS, type Job, type Scheduler } from "../scheduler";
import type { SessionEngine } from "../session-engine";
import { firstSeqOf } from "../turn/answers";
import type { TurnRow } from "../turn/turn-store";
import { type RunRow, RunStore } from "./run-store";
import { MAX_QUEUED_RUNS, MAX_RESUMES, type RunOutput, type RunSpec, type RunView } from "./types";

const OUTPUT_CHARS = 100_000;

/**
 * Webhook-triggered runs inside the session DO. A run is queued with a `run`
 * job; the alarm starts it through the engine's normal admission path (so
 * invariant P, one-turn-at-a-time and idempotency hold), with the run id as
 * the turn's idempotency key, so a job retried after a crash never admits a
 * second turn. The turn's end concludes the run and queues its callback.
 */
export class SessionRuns {
  readonly store: RunStore;
  /** When this instance's alarm last re-checked open runs (0: never, so a new instance re-checks at once). */
  #checkedAt = 0;

  readonly #engine: SessionEngine;
  readonly #scheduler: Scheduler;
  readonly #sessionId: () => string;
  readonly #agent: (name: string, admission?: boolean) => Promise<AgentConfig | null>;
  readonly #gone: () => boolean;
  /**
   * `agent` gives the agent's config (null: deleted) from the object's copy,
   * at most a minute old (src/session/agent-cache.ts): a run started later than
   * it was accepted uses a config reconfigured meanwhile within that bound. It answers null, reading nothing
   * more, when the session is deleted during its D1 read; the work checks `gone` (Jobs.gone: the session was
   * deleted while this alarm's work awaited) after it and stops.
   */
  constructor(
    engine: SessionEngine,
    scheduler: Scheduler,
    sessionId: () => string,
    agent: (name: string, admission?: boolean) => Promise<AgentConfig | null>,
    gone: () => boolean,
  ) {
    this.#agent = agent;
    this.#sessionId = sessionId;
    this.#scheduler = scheduler;
    this.#engine = engine;
    this.#gone = gone;
    this.store = new RunStore(engine.storage.sql);
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

  /**
   * The alarm's re-check of open runs, before its jobs (jobs.ts): a run whose turn ended, paused, was interrupted
   * or cleared is concluded, resumed or failed (`#reconcile`). One that throws (a D1 read of the agent) is logged
   * and stays due (`recheckDue`) without stopping the others.
   */
  async recheck(): Promise<void> {
    this.#checkedAt = Date.now();
    for (const row of this.store.open()) {
      if (this.#gone()) return;
      if (row.status === "queued") continue;
      try {
        await this.#reconcile(row);
      } catch (e) {
        log("error", "run_recheck_failed", { run_id: row.id, error: String(e) });
      }
    }
  }

  /** A `run` job: the queued run starts, unless another turn must go first (`blocked`). */
  async start(job: Job): Promise<void> {
    const row = this.store.get(job.ref);
    if (row?.status !== "queued") return this.#scheduler.remove("run", job.ref);
    // A turn is running or paused for a client: the run waits; the turn's end re-arms the alarm for it.
    if (this.blocked()) return;
    const agent = await this.#agent(row.agent, true);
    if (this.#gone()) return;
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
    if (this.#gone()) return;
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
    if (this.#gone()) return;
    if (!agent) return this.#fail(row, { code: "agent_missing", message: `agent "${row.agent}" no longer exists` });
    // Re-checked after the await: a client message may have started a turn meanwhile.
    if (this.#engine.running || this.#engine.turns.latest()?.id !== turn.id) return this.#fail(row, error);
    this.store.resumed(row.id);
    const answer = await this.#engine.retry(agent, "none");
    if (this.#gone()) return;
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

  /** Ends the run and queues its callback, in one transaction with `first` (a rebuild's write of its row). */
  #finish(
    row: RunRow,
    status: "completed" | "failed",
    output: RunOutput | null,
    error: ErrorInfo | null,
    first?: () => void,
  ): void {
    this.#engine.tx(() => {
      first?.();
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
   * The rebuild of a broken session (session-delete.ts `rebuild`) wiped its storage: the runs that were still open
   * (`RunStore.open`, read before the wipe) are written back and failed with `session_rebuilt`, each in one
   * transaction, their callbacks queued, as a clear fails the run of the paused turn it ends; `GET /v1/runs/{id}`
   * then shows the failed run, where it would answer 404.
   */
  failRebuilt(rows: RunRow[]): void {
    const error = {
      code: "session_rebuilt",
      message: "the session's storage could not be loaded and was rebuilt (POST /clear) before the run ended",
    };
    for (const row of rows) this.#finish(row, "failed", null, error, () => this.store.restore(row));
  }

  /**
   * The agent of `turnId`'s paused turn is gone and an approval of it expired (approval-answers.ts): the turn's run,
   * if still open, fails `agent_missing`, before the turn is cancelled (so the cancel's settled hook leaves it so).
   */
  failAgentMissing(turnId: string): void {
    const row = this.store.byTurn(turnId);
    if (row?.status === "awaiting_approval" || row?.status === "running") {
      this.#fail(row, { code: "agent_missing", message: `agent "${row.agent}" no longer exists` });
    }
  }
}
