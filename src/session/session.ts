import { DurableObject } from "cloudflare:workers";
import type { AgentConfig } from "../agents/types";
import type { Env } from "../env";
import { fail } from "../http/errors";
import { SessionRuns } from "../runs/executor";
import type { RunSpec, RunView } from "../runs/types";
import { countedD1, countedStorage, type DebugCounts, type Probe, probeFor } from "../storage/debug-counters";
import { hasSchema, migrate } from "../storage/do-schema";
import { nowIso, one, pageOf, run } from "../storage/sql";
import { type AgentArg, AgentCache } from "./agent-cache";
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
 *
 * The worker routes by name (`tenant:id`) without asking D1 whether the
 * session exists: this object knows (its `meta.session` row, written at
 * creation) and answers 404 otherwise. An object addressed by an unknown name
 * creates no tables: its schema is set up only by `init` / `enqueueRun`.
 */
export class Session extends DurableObject<Env> {
  #engine: SessionEngine;
  #scheduler: Scheduler;
  #runs: SessionRuns;
  #agents: AgentCache;
  #storage: DurableObjectStorage;
  #env: Env;
  /** Debug counters (SWITCHBOARD_DEBUG_CHECKS or a D1 delay), else null. */
  #probe: Probe | null;
  #schema = false;
  #infoMemo: SessionInfo | null = null;
  #initError: unknown = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#probe = probeFor(env);
    this.#storage = this.#probe ? countedStorage(ctx.storage, this.#probe) : ctx.storage;
    this.#env = this.#probe ? { ...env, DB: countedD1(env.DB, this.#probe) } : env;
    this.#engine = new SessionEngine(this.#storage, this.#env, () => this.#info()?.id ?? "?");
    this.#scheduler = new Scheduler(this.#storage, () => this.#engine.running !== null);
    this.#runs = new SessionRuns(this.#engine, this.#scheduler, this.#env, () => this.#info()?.id ?? "?");
    this.#agents = new AgentCache(
      () => this.#storage.sql,
      () => this.#env.DB,
    );
    this.#engine.hooks = { arm: () => this.#scheduler.arm(), settled: (turnId) => this.#runs.onSettled(turnId) };
    // Startup failures are caught here and re-thrown per call, so one bad
    // migration cannot leave the object unable to even report the error.
    ctx
      .blockConcurrencyWhile(async () => {
        try {
          if (hasSchema(ctx.storage.sql)) {
            migrate(ctx.storage);
            this.#schema = true;
            recoverInterruptedTurns(this.#engine);
          }
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
    if (!this.#schema) return null;
    if (!this.#infoMemo) {
      const row = one<{ value: string }>(this.#storage.sql, "SELECT value FROM meta WHERE key = 'session'");
      this.#infoMemo = row ? (JSON.parse(row.value) as SessionInfo) : null;
    }
    return this.#infoMemo;
  }

  /** Creates the tables on first use (init, enqueueRun) and records the session. */
  #create(info: SessionInfo): void {
    if (!this.#schema) {
      migrate(this.ctx.storage);
      this.#schema = true;
    }
    run(this.#storage.sql, "INSERT INTO meta (key, value) VALUES ('session', ?)", JSON.stringify(info));
    this.#infoMemo = info;
  }

  /** The agent config for a turn of this session (see agent-cache.ts). */
  #agent(info: SessionInfo, arg: AgentArg): Promise<Result<{ agent: AgentConfig }>> {
    return this.#agents.resolve(info.agent, arg);
  }

  /** Runs a turn RPC; in debug mode its answer carries the storage work it did (see debug-counters.ts). */
  async #turn(arg: AgentArg, fn: (agent: AgentConfig) => Promise<Result<TurnAnswer>>): Promise<Result<TurnAnswer>> {
    this.#ready();
    const info = this.#info();
    if (!info) return this.#missing();
    const mark: DebugCounts | undefined = this.#probe?.mark();
    const agent = await this.#agent(info, arg);
    if (!agent.ok) return agent;
    const answer = await fn(agent.agent);
    if (answer.ok && mark && this.#probe) answer.debug = this.#probe.since(mark);
    return answer;
  }

  #missing() {
    return fail(404, "not_found", "session not found");
  }

  /**
   * Creates the session. `agent` (its config and the agent-config epoch it was
   * read at) primes the session's agent cache, so the first turn needs no D1 read.
   */
  async init(
    info: SessionInfo,
    agent?: { config: AgentConfig | null; epoch: number },
  ): Promise<Result<{ created: boolean }>> {
    this.#ready();
    if (this.#info()) return { ok: true, created: false };
    this.#create(info);
    if (agent) this.#agents.prime(info.agent, agent.config, agent.epoch);
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
        : latest?.status === "awaiting_tool_results"
          ? "awaiting_tool_results"
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

  async sendMessage(agent: AgentArg, input: SendInput, mode: Mode): Promise<Result<TurnAnswer>> {
    return this.#turn(agent, (a) => this.#engine.sendMessage(a, input, mode));
  }

  async submitToolResults(
    agent: AgentArg,
    results: SuppliedResult[],
    mode: Mode,
    onlyPending = false,
  ): Promise<Result<TurnAnswer>> {
    return this.#turn(agent, (a) => this.#engine.submitToolResults(a, results, mode, onlyPending));
  }

  async retry(agent: AgentArg, mode: Mode): Promise<Result<TurnAnswer>> {
    return this.#turn(agent, (a) => this.#engine.retry(a, mode));
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
      if (latest?.status === "awaiting_tool_results") e.turns.finish(latest.id, "cancelled", "cleared", null);
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
    if (!this.#info()) return this.#missing();
    const runner = this.#engine.running;
    if (runner) {
      runner.cancel("the session was deleted");
      await this.#engine.waitFor(runner.turnId);
    }
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    // The object may be addressed again; it must come back as a fresh, empty session
    // (its tables are created again by the next init or enqueueRun).
    this.#schema = false;
    this.#infoMemo = null;
    this.#agents.invalidate();
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
    if (!current) this.#create(info);
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
    if (!this.#schema) return;
    try {
      await this.#runs.alarm();
    } finally {
      this.#scheduler.arm();
    }
  }
}
