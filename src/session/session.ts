import { DurableObject } from "cloudflare:workers";
import type { AgentConfig } from "../agents/types";
import type { Env } from "../env";
import { fail } from "../http/errors";
import { SessionRuns } from "../runs/executor";
import type { RunSpec, RunView } from "../runs/types";
import { migrate } from "../storage/do-schema";
import { nowIso, one, pageOf, run } from "../storage/sql";
import { type ApprovalAnswer, openView } from "./approvals";
import { SessionEngine } from "./engine";
import type { SuppliedResult } from "./history/store";
import { recoverInterruptedTurns } from "./recovery";
import type {
  EventsPage,
  MessagesPage,
  Mode,
  Result,
  SendInput,
  SessionInfo,
  SessionState,
  TurnAnswer,
} from "./rpc-types";
import { Scheduler } from "./scheduler";

/**
 * One chat session. A thin RPC surface: every method checks readiness and the
 * session's existence, then delegates to the engine. Methods return result
 * unions; the worker maps them to HTTP.
 */
export class Session extends DurableObject<Env> {
  #engine: SessionEngine;
  #scheduler: Scheduler;
  #runs: SessionRuns;
  #initError: unknown = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#engine = new SessionEngine(ctx.storage, env, () => this.#info()?.id ?? "?");
    this.#scheduler = new Scheduler(ctx.storage, () => this.#engine.running !== null);
    this.#runs = new SessionRuns(
      this.#engine,
      this.#scheduler,
      env,
      () => this.#info()?.id ?? "?",
      () => this.#info()?.agent ?? null,
    );
    this.#engine.hooks = {
      arm: () => this.#scheduler.arm(),
      settled: (turnId) => this.#runs.onSettled(turnId),
      resumed: (turnId) => this.#runs.onResumed(turnId),
    };
    // Startup failures are caught here and re-thrown per call, so one bad
    // migration cannot leave the object unable to even report the error.
    ctx
      .blockConcurrencyWhile(async () => {
        try {
          migrate(ctx.storage);
          recoverInterruptedTurns(this.#engine);
        } catch (e) {
          this.#initError = e;
        }
      })
      .catch((e) => {
        this.#initError = e;
      });
  }

  #ready(): void {
    if (this.#initError) throw this.#initError;
  }

  #info(): SessionInfo | null {
    const row = one<{ value: string }>(this.ctx.storage.sql, "SELECT value FROM meta WHERE key = 'session'");
    return row ? (JSON.parse(row.value) as SessionInfo) : null;
  }

  #missing() {
    return fail(404, "not_found", "session not found");
  }

  async init(info: SessionInfo): Promise<Result<{ created: boolean }>> {
    this.#ready();
    if (this.#info()) return { ok: true, created: false };
    run(this.ctx.storage.sql, "INSERT INTO meta (key, value) VALUES ('session', ?)", JSON.stringify(info));
    return { ok: true, created: true };
  }

  async state(): Promise<Result<SessionState>> {
    this.#ready();
    const info = this.#info();
    if (!info) return this.#missing();
    const e = this.#engine;
    const latest = e.turns.latest();
    const status: SessionState["status"] =
      latest?.status === "running"
        ? "running"
        : latest?.status === "awaiting_tool_results" || latest?.status === "awaiting_approval"
          ? latest.status
          : latest?.status === "failed" || latest?.status === "interrupted"
            ? "failed"
            : "idle";
    return {
      ok: true,
      id: info.id,
      agent: info.agent,
      status,
      created_at: info.created_at,
      metadata: info.metadata,
      turns: e.turns.count(),
      messages: e.history.count(),
      last_turn: latest
        ? {
            id: latest.id,
            status: latest.status,
            finish_reason: latest.finish_reason,
            error: latest.error ? JSON.parse(latest.error) : null,
          }
        : null,
      loaded_tools: e.loadedTools(),
      pending_tool_calls: e.pendingCalls(),
      pending_approvals: e.approvals.pending().map(openView),
    };
  }

  async messages(after: number, limit: number): Promise<Result<MessagesPage>> {
    this.#ready();
    if (!this.#info()) return this.#missing();
    const { items, next } = pageOf(this.#engine.history.page(after, limit + 1), limit, (m) => m.seq);
    return { ok: true, messages: items, next };
  }

  async events(after: number, limit: number): Promise<Result<EventsPage>> {
    this.#ready();
    if (!this.#info()) return this.#missing();
    const { items, next } = pageOf(this.#engine.events.list(after, limit + 1), limit, (e) => e.seq);
    return { ok: true, events: items, next };
  }

  async sendMessage(agent: AgentConfig, input: SendInput, mode: Mode): Promise<Result<TurnAnswer>> {
    this.#ready();
    if (!this.#info()) return this.#missing();
    return this.#engine.sendMessage(agent, input, mode);
  }

  async submitToolResults(
    agent: AgentConfig,
    results: SuppliedResult[],
    mode: Mode,
    onlyPending = false,
  ): Promise<Result<TurnAnswer>> {
    this.#ready();
    if (!this.#info()) return this.#missing();
    return this.#engine.submitToolResults(agent, results, mode, onlyPending);
  }

  async answerApprovals(
    agent: AgentConfig,
    answers: ApprovalAnswer[],
    mode: Mode,
    by: string,
    fromChat = false,
  ): Promise<Result<TurnAnswer>> {
    this.#ready();
    if (!this.#info()) return this.#missing();
    return this.#engine.answerApprovals(agent, answers, mode, by, fromChat);
  }

  async retry(agent: AgentConfig, mode: Mode): Promise<Result<TurnAnswer>> {
    this.#ready();
    if (!this.#info()) return this.#missing();
    return this.#engine.retry(agent, mode);
  }

  async cancel(): Promise<Result<{ status: string; turn_id: string }>> {
    this.#ready();
    if (!this.#info()) return this.#missing();
    return this.#engine.cancel();
  }

  async openStream(after: number | null): Promise<Result<{ stream: ReadableStream<Uint8Array> | null }>> {
    this.#ready();
    if (!this.#info()) return this.#missing();
    return { ok: true, stream: this.#engine.openStream(after) };
  }

  async clear(): Promise<Result<{ cleared: true }>> {
    this.#ready();
    if (!this.#info()) return this.#missing();
    const e = this.#engine;
    if (e.running) return fail(409, "turn_in_progress", "cannot clear while a turn is running; cancel it first");
    e.tx(() => {
      const latest = e.turns.latest();
      if (latest?.status === "awaiting_tool_results" || latest?.status === "awaiting_approval") {
        e.turns.finish(latest.id, "cancelled", "cleared", null);
      }
      e.approvals.clear();
      e.history.clear();
      e.log.clear();
      e.tools.clear();
      e.turns.clear();
    });
    e.events.record("session_cleared", null, { at: nowIso() });
    return { ok: true, cleared: true };
  }

  async destroy(): Promise<Result<{ deleted: true }>> {
    this.#ready();
    const runner = this.#engine.running;
    if (runner) {
      runner.cancel("the session was deleted");
      await this.#engine.waitFor(runner.turnId);
    }
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    // The object may be addressed again; it must come back as a fresh, empty session.
    migrate(this.ctx.storage);
    this.#engine.history.invalidate();
    return { ok: true, deleted: true };
  }

  /**
   * Queues a webhook-triggered run; the session is created on first use (the
   * worker has already written its index row). Idempotent per run id.
   */
  async enqueueRun(info: SessionInfo, spec: RunSpec): Promise<Result<{ run: RunView }>> {
    this.#ready();
    const current = this.#info();
    if (!current)
      run(this.ctx.storage.sql, "INSERT INTO meta (key, value) VALUES ('session', ?)", JSON.stringify(info));
    else if (current.agent !== spec.agent) {
      return fail(409, "agent_mismatch", `session "${current.id}" belongs to agent "${current.agent}"`);
    }
    return { ok: true, run: this.#runs.enqueue(spec) };
  }

  /** A run's state; `run: null` when this session does not know the run. */
  async runView(runId: string): Promise<Result<{ run: RunView | null }>> {
    this.#ready();
    if (!this.#info()) return this.#missing();
    return { ok: true, run: this.#runs.view(runId) };
  }

  /**
   * The one alarm: the heartbeat while a turn runs (a new instance that finds
   * no runner has already recovered in the constructor; interrupted runs are
   * resumed or failed here), queued runs and callback retries. It is re-armed
   * for whatever is due next.
   */
  override async alarm(): Promise<void> {
    this.#ready();
    try {
      await this.#runs.alarm();
    } finally {
      this.#scheduler.arm();
    }
  }
}
