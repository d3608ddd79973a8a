/**
 * The turn logic of the session Durable Object (`SessionEngine`): its stores, the delete tombstone, the one running
 * turn (its runner's start, its end, the waiters on it), a turn call's answer and stream subscriptions. Its
 * operations are each in a file of their own, taking the engine (engine-members.ts): send (send-message.ts,
 * admission in admit-turn.ts), retry, tool results, approvals, resumption, cancel, clear, compact. Refusals come
 * back as Result failures (`turn_in_progress`, `idempotency_conflict`, `not_found` after a DELETE), not as
 * exceptions.
 */
import type { AgentConfig } from "../agents/types";
import type { Env } from "../env";
import { positive } from "../env-values";
import type { Result } from "../model/errors";
import { ACTIVE, type TurnStatus } from "../model/turn";
import { EventLog } from "../observability/event-log";
import { log } from "../observability/log";
import { inSpan } from "../observability/tracing";
import { type AnswerOptions, answerApprovals } from "./approval-answers";
import { type ApprovalAnswer, ApprovalStore, openView } from "./approval-store";
import { cancelTurn } from "./cancel-turn";
import { clearSession } from "./clear-session";
import { compactOnDemand } from "./compact-on-demand";
import type { CompactionInfo } from "./compaction/compaction-info";
import { Compactor } from "./compaction/compactor";
import { ContextBudget } from "./compaction/context-budget";
import type { EngineMembers } from "./engine-members";
import type { ToolCallRow } from "./history/call-ledger";
import type { SuppliedResult } from "./history/close-open-calls";
import { HistoryStore } from "./history/history-store";
import { endStuckTurn } from "./recovery";
import { resumeIfReady } from "./resume-if-ready";
import { olderTurnAt } from "./resume-turn";
import { retryTurn } from "./retry-turn";
import type { AnswerMode, Mode, PendingCall, SendInput, TurnAnswer, TurnResult } from "./rpc-types";
import { sendMessage } from "./send-message";
import { SessionTools } from "./session-tools";
import { dropCaches, sessionTx } from "./session-tx";
import { StreamLog } from "./stream/stream-log";
import { STREAM_PING_MS } from "./stream/subscribers";
import { submitToolResults } from "./submit-tool-results";
import { answeredOnReplay, turnResult } from "./turn/answers";
import { TurnRunner } from "./turn/turn-runner";
import { type TurnRow, TurnStore } from "./turn/turn-store";

const STUCK_REASON = "the turn crashed while this call was open";

/**
 * The session's state machine for turns: admission (one turn at a time,
 * idempotency, repair of open calls in the same transaction as the new user
 * message), runners, waiters and stream subscriptions. The DO class is a thin
 * RPC surface over this; each operation delegates to its own file.
 */
export class SessionEngine implements EngineMembers {
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
  hooks: EngineMembers["hooks"] = {
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
   * A user message (or a run's input) starts a turn (send-message.ts). `mayStart`, checked after the last await:
   * false when another turn must go first (a run behind a pause that began meanwhile) → 409 turn_in_progress,
   * nothing written.
   */
  sendMessage(
    agent: AgentConfig,
    input: SendInput,
    mode: AnswerMode,
    mayStart?: () => boolean,
  ): Promise<Result<TurnAnswer>> {
    return sendMessage(this, this.#start.bind(this), agent, input, mode, mayStart);
  }

  /** `POST /retry` (retry-turn.ts). */
  retry(agent: AgentConfig, mode: AnswerMode): Promise<Result<TurnAnswer>> {
    return retryTurn(this, this.#start.bind(this), agent, mode);
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

  /** A turn call's answer: none, the turn's stream from `logAfter`, or (JSON) its result once it stops running. */
  async answer(
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

  /** Client tool results (submit-tool-results.ts). */
  submitToolResults(
    agent: AgentConfig,
    supplied: SuppliedResult[],
    mode: Mode,
    onlyPending = false,
  ): Promise<Result<TurnAnswer>> {
    return submitToolResults(this, agent, supplied, mode, onlyPending);
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

  /** A paused turn continues once nothing is awaited (resume-if-ready.ts). */
  resumeIfReady(
    agent: AgentConfig,
    before: TurnRow | null,
    mode: AnswerMode,
    since: number,
  ): Promise<Result<TurnAnswer>> {
    return resumeIfReady(this, this.#start.bind(this), agent, before, mode, since);
  }

  /** `POST /cancel` (cancel-turn.ts). */
  cancel(): Promise<Result<{ status: TurnStatus; turn_id: string }>> {
    return cancelTurn(this);
  }

  /** `POST /clear` (clear-session.ts): refused while a turn runs. */
  clear(): Result<{ cleared: true }> {
    return clearSession(this, () => this.#conversation++);
  }

  /** `POST /compact` (compact-on-demand.ts): compacts now, outside any turn (refused while one runs). */
  compact(agent: AgentConfig): Promise<Result<CompactionInfo>> {
    return compactOnDemand(this, () => this.#conversation, agent);
  }

  /**
   * The stream of the frames after `after`, of the turn they belong to, and that turn's id; null when none. Without
   * `after`, the newest turn from its start while it runs. An older turn the log still holds ends at its last frame;
   * the newest follows live while it runs.
   */
  openStream(after: number | null): { turn_id: string; stream: ReadableStream<Uint8Array> } | null {
    const latest = this.turns.latest();
    if (!latest) return null;
    const live = this.#runner?.turnId === latest.id;
    // No Last-Event-ID: a client that has nothing of the turn (a reload, useChat's resume) gets all of it, every
    // segment of a turn resumed after a pause included, and `ai` assembles it as one message.
    if (after === null) {
      return live ? { turn_id: latest.id, stream: this.#openLog(latest.id, latest.log_start, true) } : null;
    }
    // `after` 0 names no frame (ids start at 1): a client asking for the newest turn from its start.
    const older = after > 0 ? olderTurnAt(this.streamLog, this.turns, after, latest.id) : null;
    if (older) return { turn_id: older, stream: this.#openLog(older, after, false) };
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
