/**
 * The turn logic of the session Durable Object (`SessionEngine`): send, retry, cancel, compact, tool results,
 * approvals and stream subscriptions, with at most one running turn. Refusals come back as Result failures
 * (`turn_in_progress`, `idempotency_conflict`, `not_found` after a DELETE), not as exceptions.
 */
import type { AgentConfig } from "../agents/types";
import { MAX_STEPS_LIMIT } from "../agents/types";
import { newId } from "../crypto/new-id";
import type { Env } from "../env";
import { positive } from "../env-values";
import type { Result } from "../model/errors";
import { failure } from "../model/errors";
import type { JsonObject } from "../model/json";
import type { Part } from "../model/message";
import { ACTIVE, isPaused, type TurnKind, type TurnStatus } from "../model/turn";
import { EventLog } from "../observability/event-log";
import { log } from "../observability/log";
import { inSpan } from "../observability/tracing";
import { nowIso } from "../storage/sql";
import { type AnswerOptions, answerApprovals, declineOpen, recordDeclined } from "./approval-answers";
import { type ApprovalAnswer, ApprovalStore, MOVED_ON, openView } from "./approval-store";
import { type CompactionInfo, Compactor } from "./compaction/compactor";
import { ContextBudget } from "./compaction/context-budget";
import { deleted } from "./deleted";
import type { ToolCallRow } from "./history/call-ledger";
import { HistoryStore, type SuppliedResult } from "./history/history-store";
import { oversized } from "./oversized";
import { endStream, endStuckTurn } from "./recovery";
import type { AnswerMode, Mode, PendingCall, SendInput, TurnAnswer, TurnResult } from "./rpc-types";
import { SessionTools } from "./session-tools";
import { dropCaches, sessionTx } from "./session-tx";
import { StreamLog } from "./stream/stream-log";
import { STREAM_PING_MS } from "./stream/subscribers";
import { answeredOnReplay, checkSupplied, pendingResults, turnResult } from "./turn/answers";
import { TurnRunner } from "./turn/turn-runner";
import { type TurnRow, TurnStore } from "./turn/turn-store";

const STUCK_REASON = "the turn crashed while this call was open";

/**
 * The session's state machine for turns: admission (one turn at a time,
 * idempotency, repair of open calls in the same transaction as the new user
 * message), runners, waiters and stream subscriptions. The DO class is a thin
 * RPC surface over this.
 */
export class SessionEngine {
  readonly history: HistoryStore;
  readonly turns: TurnStore;
  readonly eventLog: EventLog;
  readonly streamLog: StreamLog;
  readonly tools: SessionTools;
  readonly budget: ContextBudget;
  readonly compactor: Compactor;
  readonly approvals: ApprovalStore;
  #runner: TurnRunner | null = null;
  #waiters = new Map<string, Array<() => void>>();
  /**
   * The tombstone of a deleted session, in memory: bumped when a DELETE starts and when it ends. Work that
   * awaited network I/O (MCP listings, D1 reads, callbacks) compares the generation it started with after
   * every await and writes nothing when it changed. Memory suffices: an eviction ends that work too.
   */
  #generation = 0;
  #deleting = false;
  /** Bumped by `clear`: work that awaited (an on-demand compaction's summary) writes nothing of a cleared conversation. */
  #conversation = 0;
  /** Set by the DO: `arm` re-arms the shared alarm (heartbeat + due jobs); `settled` lets runs see a turn stop. */
  hooks: { arm(): void; settled(turnId: string, status: TurnStatus): void; resumed(turnId: string): void } = {
    arm: () => {},
    settled: () => {},
    resumed: () => {},
  };

  readonly storage: DurableObjectStorage;
  readonly env: Env;

  constructor(storage: DurableObjectStorage, env: Env, name: () => string) {
    this.storage = storage;
    this.env = env;
    this.history = new HistoryStore(storage.sql);
    this.turns = new TurnStore(storage.sql);
    this.eventLog = new EventLog(storage.sql, name, env.SWITCHBOARD_LOG_EVENTS !== "false");
    this.streamLog = new StreamLog(storage.sql, positive(env.SWITCHBOARD_STREAM_PING_MS, STREAM_PING_MS));
    this.tools = new SessionTools(storage.sql, this.history);
    this.approvals = new ApprovalStore(storage.sql, name);
    this.budget = new ContextBudget(storage.sql, this.history);
    this.compactor = new Compactor({
      storage,
      history: this.history,
      tools: this.tools,
      turns: this.turns,
      approvals: this.approvals,
      eventLog: this.eventLog,
      env,
      budget: this.budget,
    });
  }

  get running(): TurnRunner | null {
    return this.#runner;
  }

  get generation(): number {
    return this.#generation;
  }

  /** True when work that started at `generation` must not write: its session was deleted, or is being. */
  stale(generation: number): boolean {
    return this.#deleting || generation !== this.#generation;
  }

  /** A DELETE starts: everything in flight belongs to a deleted session; nothing new is admitted. */
  beginDelete(): void {
    this.#generation++;
    this.#deleting = true;
    this.compactor.stopOnDemand();
  }

  /** A DELETE is done (its wipe dropped the caches, `wiped`): the object serves a fresh, empty session. */
  endDelete(): void {
    this.#generation++;
    this.#deleting = false;
  }

  /** The storage was wiped (a DELETE, an expiry, a rebuild): the in-memory caches go too, and the open streams end. */
  wiped(): void {
    dropCaches(this);
    this.tools.forget();
    this.budget.forget();
    this.streamLog.reset();
  }

  /** One SQLite transaction (session-tx.ts); a rollback drops every store's in-memory rows. */
  tx<T>(fn: () => T): T {
    return sessionTx(this, fn);
  }

  /**
   * A user message (or a run's input) starts a turn. `mayStart`, checked after the last await: false when another
   * turn must go first (a run behind a pause that began meanwhile) → 409 turn_in_progress, nothing written.
   */
  async sendMessage(
    agent: AgentConfig,
    input: SendInput,
    mode: AnswerMode,
    mayStart?: () => boolean,
  ): Promise<Result<TurnAnswer>> {
    const tooLarge = oversized(input);
    if (tooLarge) return tooLarge;
    const generation = this.#generation;
    // MCP tool lists need network I/O: fetched before the checks below, which then run without an await.
    await this.tools.refresh(agent, this.env);
    if (this.stale(generation)) return deleted();
    if (mayStart && !mayStart()) return failure("turn_in_progress", "another turn must go first");
    this.healOrphan();
    if (input.idempotency_key) {
      const prior = this.turns.byIdempotencyKey(input.idempotency_key);
      if (prior) {
        if (prior.body_hash !== (input.body_hash ?? null)) {
          return failure("idempotency_conflict", "this Idempotency-Key was used with a different request body");
        }
        // The stream log keeps the newest turns' frames only: an older turn replays as its result, in JSON.
        const swept =
          mode === "stream" && this.#runner?.turnId !== prior.id && !this.streamLog.has(prior.id, prior.log_start);
        const first = prior.first_message_seq ?? 0;
        return { ok: true, ...(await this.#answer(prior, swept ? "json" : mode, first, true, prior.log_start)) };
      }
    }
    const latest = this.turns.latest();
    if (latest?.status === "running") return failure("turn_in_progress", "a turn is already running in this session");
    const checked = checkSupplied(this, input.tool_results, latest?.id ?? null);
    if (!checked.ok) return checked;
    const supplied = new Map(input.tool_results.map((r) => [r.tool_use_id, r]));
    // Should admission write no message, the JSON answer reads from after the newest stored one, not every
    // stored message from seq 0.
    const after = this.history.nextSeq();
    const turn = this.#begin(agent, "message", input, latest, {
      supplied,
      extra: input.content,
      reason: "no result was provided before the next user message",
      declined: MOVED_ON,
    });
    return { ok: true, ...(await this.#answer(turn, mode, turn.first_message_seq ?? after, false, turn.log_start)) };
  }

  async retry(agent: AgentConfig, mode: AnswerMode): Promise<Result<TurnAnswer>> {
    const generation = this.#generation;
    await this.tools.refresh(agent, this.env);
    if (this.stale(generation)) return deleted();
    this.healOrphan();
    const latest = this.turns.latest();
    if (latest?.status === "running") return failure("turn_in_progress", "a turn is already running in this session");
    const open = this.history.openCalls().length > 0;
    const last = this.history.last();
    if (!latest) {
      // No turn at all (a new session, or one just cleared): the usual reason would name a turn that never ran.
      return failure(
        "nothing_to_retry",
        "there is no turn to retry: this session has none yet; send a message instead",
      );
    }
    if (latest.status === "completed" || (!open && last?.role !== "user")) {
      return failure(
        "nothing_to_retry",
        "there is nothing to re-run: the last turn completed or ended with the model's own answer; send a new message instead",
      );
    }
    // A retried turn keeps the step budget and structured-output contract of the turn it re-runs.
    const schema = latest.json_schema ? (JSON.parse(latest.json_schema) as JsonObject) : undefined;
    const kept = { max_steps: latest.max_steps, ...(schema ? { json_schema: schema } : {}) };
    // As for a message: the answer reads from here when admission writes no message (nothing to close).
    const after = this.history.nextSeq();
    const turn = this.#begin(agent, "retry", kept, latest, {
      reason: "the call was superseded by a retry",
      declined: "the turn was retried",
    });
    return { ok: true, ...(await this.#answer(turn, mode, turn.first_message_seq ?? after, false, turn.log_start)) };
  }

  /**
   * Ends a turn storage calls `running` although no runner drives it. Recovery ends those of a lost instance at
   * wake-up; one can only appear later when a turn's start failed after its admission committed (a storage
   * error while its events were written), or when its end and the engine's own end of it (`#settled`) both
   * failed to write. It would refuse every later message and run as turn_in_progress; a run's alarm re-check
   * ends it too (`message` then says the turn crashed).
   */
  healOrphan(message = "the turn never started"): void {
    const latest = this.turns.latest();
    if (latest?.status !== "running" || this.#runner) return;
    log("error", "orphan_turn_ended", { turn_id: latest.id });
    endStuckTurn(this, latest, "failed", { code: "internal_error", message }, STUCK_REASON);
    this.hooks.settled(latest.id, "failed");
  }

  /** Admits a turn: one transaction closes open calls, writes the user message and the turn row. */
  #begin(
    agent: AgentConfig,
    kind: TurnKind,
    input: { max_steps?: number; idempotency_key?: string; body_hash?: string; json_schema?: JsonObject },
    previous: TurnRow | null,
    close: { supplied?: ReadonlyMap<string, SuppliedResult>; extra?: Part[]; reason: string; declined: string },
  ): TurnRow {
    const id = newId("turn");
    const maxSteps = Math.min(input.max_steps ?? agent.max_steps, MAX_STEPS_LIMIT);
    // Only what admission needs happens before the provider request; sweeps run when a turn settles.
    const superseded = previous && isPaused(previous.status) ? previous.id : null;
    const { turn, synthesized, declined, unloaded, tooLarge, unreferenced } = this.tx(() => {
      if (superseded) this.turns.finish(superseded, "completed", "superseded", null);
      // Open approvals are answered "declined" in this same admission transaction; closeOpenCalls writes them.
      const declined = declineOpen(this.approvals, this.history, close.declined, "admission");
      const { notices, unloaded, unreferenced } = this.tools.admit(agent);
      const closed = this.tools.closeOpenCalls(agent, {
        turnId: id,
        reason: close.reason,
        ...(close.supplied ? { supplied: close.supplied } : {}),
        extra: [...notices, ...(close.extra ?? [])],
        ...(close.extra?.length ? { origin: "client" as const } : {}),
      });
      // The turn row is written once, already pointing at its first message.
      const turn = this.turns.create({
        id,
        kind,
        max_steps: maxSteps,
        log_start: this.streamLog.head(),
        idempotency_key: input.idempotency_key ?? null,
        body_hash: input.body_hash ?? null,
        json_schema: input.json_schema ? JSON.stringify(input.json_schema) : null,
        first_message_seq: closed.message?.seq ?? null,
      });
      return { turn, synthesized: closed.synthesized, declined, unloaded, tooLarge: closed.unloaded, unreferenced };
    });
    // The events' log lines wait until the turn's first content is out (or it settles): a console line is not
    // free, and these would otherwise delay the provider request and the first delta. The rows are written now.
    this.eventLog.hold();
    try {
      recordDeclined(this.eventLog, declined, previous?.id ?? null, close.declined, "admission");
      // The paused turn this one superseded ends here: its one end event.
      if (superseded) {
        this.eventLog.record("turn_finished", superseded, { status: "completed", finish_reason: "superseded" });
      }
      this.eventLog.record("turn_started", id, { kind, max_steps: maxSteps });
      if (unloaded.length) this.eventLog.record("tools_unloaded", id, { names: unloaded, reason: "tools_limit" });
      if (tooLarge.length) this.eventLog.record("tools_unloaded", id, { names: tooLarge, reason: "row_limit" });
      if (unreferenced.length) {
        this.eventLog.record("tools_unloaded", id, { names: unreferenced, reason: "projection" });
      }
      if (synthesized.length > 0) {
        this.eventLog.record("tool_result_synthesized", id, { tool_use_ids: synthesized, reason: close.reason });
      }
    } catch (e) {
      // The turn is admitted (committed): it starts anyway, or it would stay `running` with nothing to end it.
      log("error", "admission_events_failed", { turn_id: id, error: String(e) });
    }
    try {
      this.#start(agent, id, { kind, max_steps: maxSteps });
    } catch (e) {
      this.eventLog.release();
      throw e;
    }
    // A paused turn this one superseded has ended: a run waiting on its approval learns how.
    if (superseded) this.hooks.settled(superseded, "completed");
    // As written: callers use its id, first message and log start, which nothing changes later.
    return turn;
  }

  /**
   * Runs a segment of the turn; `turn` (its kind and step budget) labels the segment's span. `answered`: the calls
   * of the pause it resumes (TurnRunner).
   */
  #start(
    agent: AgentConfig,
    turnId: string,
    turn: { kind: string; max_steps: number },
    answered: readonly ToolCallRow[] = [],
  ): void {
    const runner = new TurnRunner(
      {
        storage: this.storage,
        history: this.history,
        turns: this.turns,
        eventLog: this.eventLog,
        streamLog: this.streamLog,
        tools: this.tools,
        budget: this.budget,
        compactor: this.compactor,
        approvals: this.approvals,
        env: this.env,
        agent,
        onSettled: (id, status) => this.#settled(id, status),
      },
      turnId,
      answered,
    );
    this.#runner = runner;
    // The heartbeat alarm is written once the provider request is out (a timer runs after the microtasks that
    // reach the request's fetch): a storage write still pending when the request is sent holds it back (the
    // output gate; about 1 ms under wrangler dev). Admission itself is durable before the request, and an
    // instance that dies in between leaves a `running` turn that the next call to the object recovers.
    setTimeout(() => {
      // Unless the turn already ended (its end re-armed) or the session was deleted meanwhile.
      if (this.#runner === runner) this.hooks.arm();
    }, 0);
    // Detached from the request on purpose: a client that disconnects does not stop the turn.
    // The span carries the turn_started and turn_finished events' attributes: how the segment began and ended.
    const start = {
      "switchboard.turn_id": turnId,
      "switchboard.model": agent.model.name,
      "switchboard.kind": turn.kind,
      "switchboard.max_steps": turn.max_steps,
    };
    inSpan("switchboard.turn", start, async (span) => {
      const end = await runner.run();
      span.setAttributes({
        "switchboard.status": end.status,
        ...(end.finish_reason ? { "switchboard.finish_reason": end.finish_reason } : {}),
        ...(end.error ? { "switchboard.error_code": end.error.code } : {}),
      });
    }).catch((e) => log("error", "runner_escaped", { error: String(e), stack: (e as Error)?.stack }));
  }

  #settled(turnId: string, status: TurnStatus): void {
    if (this.#runner?.turnId === turnId) this.#runner = null;
    try {
      // A runner that threw while writing its own end leaves the row `running`: end it here, or every later
      // message would be refused as turn_in_progress until the object restarts.
      const turn = this.turns.get(turnId);
      if (turn?.status === "running") {
        endStuckTurn(this, turn, "failed", { code: "internal_error", message: "the turn crashed" }, STUCK_REASON);
      }
      // Not deleteAlarm: queued runs and callback retries share the alarm.
      this.hooks.settled(turnId, status);
    } catch (e) {
      log("error", "turn_settle_failed", { turn_id: turnId, error: String(e) });
    }
    try {
      // Retention sweeps wait until the turn's stream is out (they were on the admission path); after the turn's
      // end above, so a sweep that throws cannot leave the turn `running` with no runner.
      this.eventLog.sweep();
      this.streamLog.sweep();
    } catch (e) {
      log("error", "retention_sweep_failed", { turn_id: turnId, error: String(e) });
    } finally {
      // The waiters first: JSON answers and DELETE wait on them, so nothing after may keep them waiting.
      const ws = this.#waiters.get(turnId) ?? [];
      this.#waiters.delete(turnId);
      for (const w of ws) w();
      this.eventLog.release();
      this.hooks.arm();
    }
  }

  /** Resolves when the turn is no longer running (ended or paused). */
  waitFor(turnId: string): Promise<void> {
    if (this.#runner?.turnId !== turnId) return Promise.resolve();
    return new Promise((resolve) => {
      const list = this.#waiters.get(turnId) ?? [];
      list.push(resolve);
      this.#waiters.set(turnId, list);
    });
  }

  async #answer(
    turn: TurnRow,
    mode: AnswerMode,
    sinceSeq: number,
    replayed: boolean,
    logAfter: number,
  ): Promise<TurnAnswer> {
    if (mode === "none") return { turn_id: turn.id, replayed };
    if (mode === "stream") {
      return {
        turn_id: turn.id,
        replayed,
        stream: this.#openLog(turn.id, logAfter, this.#runner?.turnId === turn.id),
      };
    }
    await this.waitFor(turn.id);
    return { turn_id: turn.id, replayed, result: this.result(turn.id, sinceSeq) };
  }

  result(turnId: string, sinceSeq: number): TurnResult {
    const r = turnResult(this.history, this.turns, this.approvals, turnId, sinceSeq);
    return r.status === "awaiting_approval" ? { ...r, pending_approvals: this.approvals.pending().map(openView) } : r;
  }

  async submitToolResults(
    agent: AgentConfig,
    supplied: SuppliedResult[],
    mode: Mode,
    onlyPending = false,
  ): Promise<Result<TurnAnswer>> {
    const generation = this.#generation;
    // The resumed turn keeps its pinned tool set; this only fills the cache a fresh instance lacks.
    await this.tools.refresh(agent, this.env);
    if (this.stale(generation)) return deleted();
    const latest = this.turns.latest();
    const pending = onlyPending ? pendingResults(this.history, supplied) : { ok: true as const, results: supplied };
    if (!pending.ok) return pending;
    const { results } = pending;
    if (results.length === 0) return failure("late_result", "none of the supplied results answers a pending tool call");
    const checked = checkSupplied(this, results, latest?.id ?? null);
    if (!checked.ok) return checked;
    const since = this.history.nextSeq();
    this.tx(() => {
      for (const r of results) this.history.storeResult(r.tool_use_id, "resolved", r.content, r.is_error);
    });
    return this.resumeIfReady(agent, latest, mode, since);
  }

  /** Answers approvals, with a useChat body's tool outputs beside them (approval-answers.ts). */
  answerApprovals(
    agent: AgentConfig,
    answers: ApprovalAnswer[],
    mode: Mode,
    opts: AnswerOptions,
  ): Promise<Result<TurnAnswer>> {
    return answerApprovals(this, agent, answers, mode, opts);
  }

  /**
   * A paused turn continues once nothing is awaited (no open approval, every
   * client result in): the answers are delivered by the resumed runner
   * (approved calls run there). A turn still running (a sibling server call)
   * is answered like a resumed one. Otherwise the pause's status follows what
   * is still awaited, and the answer is the turn's current state.
   */
  async resumeIfReady(
    agent: AgentConfig,
    before: TurnRow | null,
    mode: AnswerMode,
    since: number,
  ): Promise<Result<TurnAnswer>> {
    // Read again: the caller's copy may predate an await during which another request resumed the turn.
    const latest = before ? this.turns.get(before.id) : null;
    const paused = isPaused(latest?.status);
    if (latest && paused && !this.#runner && this.approvals.readyToResume()) {
      const approvalsPending = this.approvals.onOpenCalls().length > 0;
      // Read before they close: the resumed segment tells the clients' results (the paused stream never had them).
      const answered = this.history.openCalls();
      const { refitted, unloaded } = this.tx(() => {
        this.turns.resume(latest.id, this.streamLog.head());
        const refitted = this.tools.refit(agent);
        // With approvals the resumed runner writes the results after running the approved calls.
        if (approvalsPending) return { refitted, unloaded: [] };
        const closed = this.tools.closeOpenCalls(agent, { turnId: latest.id, reason: "no result was recorded" });
        return { refitted, unloaded: closed.unloaded };
      });
      if (refitted.length) {
        this.eventLog.record("tools_unloaded", latest.id, { names: refitted, reason: "tools_limit" });
      }
      if (unloaded.length) {
        this.eventLog.record("tools_unloaded", latest.id, { names: unloaded, reason: "row_limit" });
      }
      this.hooks.resumed(latest.id);
      this.#start(agent, latest.id, latest, answered);
      const resumed = this.turns.get(latest.id) as TurnRow;
      return { ok: true, ...(await this.#answer(resumed, mode, since, false, resumed.segment_start)) };
    }
    // The turn still runs (a sibling server call of this step is not done): answered as a resumed turn is, a
    // stream following it live from here, JSON once it ends or pauses again. (A turn still paused for other
    // results answers its state, as JSON.)
    if (latest && this.#runner?.turnId === latest.id) {
      return { ok: true, ...(await this.#answer(latest, mode, since, false, this.streamLog.head())) };
    }
    if (latest && paused && this.approvals.pending().length === 0 && latest.status === "awaiting_approval") {
      this.turns.setStatus(latest.id, "awaiting_tool_results");
      // The pause changed: a run whose turn this is concludes now (it cannot answer client calls), and runs
      // queued behind the approval may start.
      this.hooks.settled(latest.id, "awaiting_tool_results");
      this.hooks.arm();
    }
    const current = latest ? this.result(latest.id, since) : null;
    return {
      ok: true,
      turn_id: latest?.id ?? "",
      replayed: false,
      ...(current ? { result: current } : {}),
    };
  }

  async cancel(): Promise<Result<{ status: TurnStatus; turn_id: string }>> {
    const latest = this.turns.latest();
    if (
      !latest ||
      (latest.status !== "running" &&
        latest.status !== "awaiting_tool_results" &&
        latest.status !== "awaiting_approval")
    ) {
      return failure("no_active_turn", "there is no running turn to cancel");
    }
    const runner = this.#runner;
    if (runner && runner.turnId === latest.id) {
      runner.cancel("the turn was cancelled");
      await this.waitFor(latest.id);
    } else {
      const reason = "the turn was cancelled";
      const { synthesized, declined } = this.tx(() => {
        const declined = declineOpen(this.approvals, this.history, reason, "cancel");
        const r = { ...this.history.closeOpenCalls({ turnId: latest.id, reason }), declined };
        this.turns.finish(latest.id, "cancelled", "cancelled", null);
        return r;
      });
      recordDeclined(this.eventLog, declined, latest.id, reason, "cancel");
      if (synthesized.length)
        this.eventLog.record("tool_result_synthesized", latest.id, { tool_use_ids: synthesized, reason });
      this.eventLog.record("turn_finished", latest.id, { status: "cancelled", finish_reason: "cancelled" });
      // A run whose turn this was concludes now; a run that waited behind the paused turn may start.
      this.hooks.settled(latest.id, "cancelled");
      this.hooks.arm();
      // The paused turn's stream ends as a running turn's cancel ends it (the calls closed, then abort and
      // finish), so a client resuming it does not see the turn still waiting. Last, and never thrown: the turn is
      // cancelled whether or not its stream could say so.
      const end = { status: "cancelled", reason: "cancelled", finish: "other", error: null } as const;
      try {
        endStream(this.streamLog, latest, { declined, synthesized, reason }, end);
      } catch (e) {
        log("error", "cancel_stream_end_failed", { turn_id: latest.id, error: String(e) });
      }
    }
    return { ok: true, status: this.turns.get(latest.id)?.status ?? "cancelled", turn_id: latest.id };
  }

  /**
   * `POST /clear`: forgets the conversation (history, approvals, stream log, loaded tools, turns, the mark of a
   * provider's compaction dropped as too large) in one transaction, ending a paused turn as cancelled and
   * declining its open approvals (`by: "clear"`, each with its `approval_declined` event, as a cancel does);
   * refused while a turn runs.
   */
  clear(): Result<{ cleared: true }> {
    if (this.#runner) return failure("turn_in_progress", "cannot clear while a turn is running; cancel it first");
    const reason = "the session was cleared";
    const { paused, declined } = this.tx(() => {
      const latest = this.turns.latest();
      const paused = isPaused(latest?.status);
      if (paused && latest) this.turns.finish(latest.id, "cancelled", "cleared", null);
      // Declined without a result for the call: the history that holds the call goes a line below.
      const declined = this.approvals.closeAll(reason, "clear");
      this.approvals.clear();
      this.history.clear();
      this.streamLog.clear();
      this.tools.clear();
      this.turns.clear();
      this.compactor.clear();
      return { paused: paused && latest ? latest.id : null, declined };
    });
    this.#conversation++;
    this.compactor.stopOnDemand();
    recordDeclined(this.eventLog, declined, null, reason, "clear");
    if (paused) this.eventLog.record("turn_finished", paused, { status: "cancelled", finish_reason: "cleared" });
    this.eventLog.record("session_cleared", null, { at: nowIso() });
    // A run whose paused turn this was fails now ("the run's turn was cleared"), not at some later alarm.
    if (paused) this.hooks.settled(paused, "cancelled");
    return { ok: true, cleared: true };
  }

  /** `POST /compact`: compacts now, outside any turn (refused while one runs). */
  async compact(agent: AgentConfig): Promise<Result<CompactionInfo>> {
    const generation = this.#generation;
    await this.tools.refresh(agent, this.env);
    if (this.stale(generation)) return deleted();
    this.healOrphan();
    if (this.turns.latest()?.status === "running") {
      return failure("turn_in_progress", "a turn is running; it compacts by itself when it needs to");
    }
    // As the provider counts it (`ContextBudget.ratio`), as a turn's compaction weighs it.
    const tokensBefore = Math.ceil(this.budget.viewTokens() * this.budget.ratio(agent.model));
    const conversation = this.#conversation;
    const out = await this.compactor.compact(agent, {
      turnId: null,
      tokensBefore,
      signal: new AbortController().signal,
      current: () => !this.stale(generation) && this.#conversation === conversation,
    });
    if (this.stale(generation)) return deleted();
    if (!out.ok) {
      this.eventLog.record("compaction_failed", null, { reason: out.reason, tokens: tokensBefore });
      return failure("not_compacted", out.reason);
    }
    return { ok: true, ...out.info };
  }

  /** The newest turn's stream from `after` (or its start while it runs) and that turn's id; null when none. */
  openStream(after: number | null): { turn_id: string; stream: ReadableStream<Uint8Array> } | null {
    const latest = this.turns.latest();
    if (!latest) return null;
    const live = this.#runner?.turnId === latest.id;
    // No Last-Event-ID: a client that has nothing of the turn (a reload, useChat's resume) gets all of it, every
    // segment of a turn resumed after a pause included, and `ai` assembles it as one message.
    if (after === null) {
      return live ? { turn_id: latest.id, stream: this.#openLog(latest.id, latest.log_start, true) } : null;
    }
    if (!live && !this.streamLog.has(latest.id, after)) return null;
    return { turn_id: latest.id, stream: this.#openLog(latest.id, after, live) };
  }

  /**
   * A turn's stream from `after`: a replay shows what the log says as it is now, so a client call answered since
   * it was offered is not offered again (a useChat that resumes without Last-Event-ID would run it twice).
   */
  #openLog(turnId: string, after: number, live: boolean): ReadableStream<Uint8Array> {
    return this.streamLog.open(turnId, after, live, answeredOnReplay(this.history));
  }

  /**
   * The open calls with no result yet. `awaited`: the turn that made the call is running or paused, and goes on
   * once it has its result. A turn that failed with calls open (its stream cut after them, say) does not: the next
   * `/retry` or message closes them, with the result a client stored meanwhile, else a synthetic one.
   */
  pendingCalls(): PendingCall[] {
    const latest = this.turns.latest();
    const live = latest && ACTIVE.includes(latest.status) ? latest.id : undefined;
    return this.history
      .openCalls()
      .filter((c) => c.state === "pending")
      .map((c) => ({ id: c.id, name: c.name, execution: c.execution, awaited: c.turn_id === live }));
  }

  loadedTools(): string[] {
    return this.tools.loaded.list();
  }
}
