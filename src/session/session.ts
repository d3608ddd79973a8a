/**
 * The session Durable Object: `Session`, one per `tenant:id`, the RPC surface the worker calls (turn calls also
 * over `fetch`, see turn-wire.ts). It owns the engine, runs, scheduler, sweeper and agent copy, recovers
 * interrupted turns at wake-up without throwing from its constructor, and drives runs and retention from its
 * single alarm; DELETE, idle expiry and the rebuild of a broken object are session-delete.ts's.
 */
import { DurableObject } from "cloudflare:workers";
import type { AgentConfig, AgentRead } from "../agents/types";
import { isUnavailable, unlessUnavailable, withD1Marked } from "../d1/unavailable";
import type { Env } from "../env";
import { flag } from "../env-values";
import type { Failure, Result } from "../model/errors";
import { failure } from "../model/errors";
import { log } from "../observability/log";
import { setSpans } from "../observability/tracing";
import { retentionOf } from "../retention/config";
import { countedD1, countedStorage, type DebugCounts, type Probe, probeFor } from "../storage/debug-counters";
import { setCellChecks } from "../storage/sql";
import { type AgentArg, AgentCache, turnMark } from "./agent-cache";
import type { AnswerOptions } from "./approval-answers";
import type { ApprovalAnswer } from "./approval-store";
import type { CompactionInfo } from "./compaction/compactor";
import { compactionMarkers } from "./compaction/records";
import { type SeedTurn, seedTurns } from "./debug-seed";
import { deleted } from "./deleted";
import type { SuppliedResult } from "./history/history-store";
import { Jobs } from "./jobs";
import { recoverInterruptedTurns } from "./recovery";
import type {
  EventsPage,
  MessagesPage,
  Mode,
  Reply,
  SendInput,
  SessionInfo,
  SessionState,
  TokenStamp,
  TurnAnswer,
  TurnCall,
  TurnReply,
} from "./rpc-types";
import { Deliveries } from "./runs/deliveries";
import { SessionRuns } from "./runs/session-runs";
import type { RunSpec, RunView } from "./runs/types";
import { Scheduler } from "./scheduler";
import { SessionDelete } from "./session-delete";
import { SessionEngine } from "./session-engine";
import { missing, SessionRecord } from "./session-record";
import { sessionState } from "./state-view";
import { Sweeper } from "./sweeper";
import { answerResponse, readCall } from "./turn-wire";

/**
 * One chat session. A thin RPC surface: a call on an existing session passes
 * one guard (`SessionRecord.existing`: the state loaded, the session exists, else 404) and
 * delegates to the engine; `init` and `enqueueRun` (which create the session),
 * `clear`, `destroy` (session-delete.ts) and the alarm have rules of their own, written there. Methods return result
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
  /** The alarm's jobs: runs, their deliveries, approvals' expiry (jobs.ts). */
  #jobs: Jobs;
  #sweeper: Sweeper;
  #agents: AgentCache;
  #storage: DurableObjectStorage;
  #env: Env;
  /** Debug counters (SWITCHBOARD_DEBUG_CHECKS or a D1 delay), else null. */
  #probe: Probe | null;
  #record: SessionRecord;
  /** DELETE, idle expiry and the rebuild of a broken object: the end of the session's storage. */
  #delete: SessionDelete;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Debug mode refuses what production SQLite refuses: any value or row over 2 MB.
    setCellChecks(flag(env.SWITCHBOARD_DEBUG_CHECKS));
    setSpans(!flag(env.SWITCHBOARD_DEBUG_NO_SPANS));
    this.#probe = probeFor(env);
    this.#storage = this.#probe ? countedStorage(ctx.storage, this.#probe) : ctx.storage;
    // A D1 call D1 failed throws D1Unavailable: a call of the worker's that needed D1 answers database_unavailable.
    const marked = withD1Marked(env);
    this.#env = this.#probe ? { ...marked, DB: countedD1(marked.DB, this.#probe) } : marked;
    this.#record = new SessionRecord(this.#storage, ctx.storage);
    this.#engine = new SessionEngine(this.#storage, this.#env, () => this.#record.info()?.id ?? "?");
    this.#scheduler = new Scheduler(
      this.#storage,
      () => this.#engine.running !== null,
      () => this.#runs.blocked(),
      () => this.#runs.recheckDue(),
    );
    const sessionId = () => this.#record.info()?.id ?? "?";
    // The alarm's work stops once the session was deleted while it awaited (Jobs.gone).
    const gone = () => this.#jobs.gone;
    this.#runs = new SessionRuns(
      this.#engine,
      this.#scheduler,
      sessionId,
      (name, admission) => this.#agents.current(name, admission, this.#goneSince()),
      gone,
    );
    const deliveries = new Deliveries({
      store: this.#runs.store,
      view: (id) => this.#runs.view(id),
      engine: this.#engine,
      scheduler: this.#scheduler,
      env: this.#env,
      sessionId,
      signer: (name) => this.#agents.signing(name, this.#goneSince()),
      gone,
    });
    this.#jobs = new Jobs({
      engine: this.#engine,
      scheduler: this.#scheduler,
      runs: this.#runs,
      deliveries,
      agent: async () => {
        const name = this.#record.info()?.agent;
        return name ? this.#agents.current(name, false, this.#goneSince()) : null;
      },
    });
    this.#sweeper = new Sweeper(this.#storage, this.#scheduler, retentionOf(env), () => this.#engine.running !== null);
    this.#agents = new AgentCache(
      () => this.#storage.sql,
      () => this.#env.DB,
      () => turnMark(this.#engine.turns.latest()),
    );
    this.#delete = new SessionDelete({
      ctx,
      db: () => this.#env.DB,
      counted: (fn) => this.#counted(fn),
      record: this.#record,
      engine: this.#engine,
      scheduler: this.#scheduler,
      sweeper: this.#sweeper,
      agents: this.#agents,
    });
    this.#engine.hooks = {
      arm: () => this.#scheduler.arm(),
      settled: (turnId) => {
        this.#runs.onSettled(turnId);
        this.#scheduleSweep();
      },
      resumed: (turnId) => this.#runs.onResumed(turnId),
    };
    // Startup failures are caught here, never thrown out of the constructor.
    // A failed migration is re-thrown by the calls that need the state; `clear`
    // wipes and rebuilds the schema instead, `destroy` wipes it. Recovery repairs what it can and
    // marks the rest failed (recovery.ts), so it cannot brick the object. An
    // object addressed by an unknown name has no tables and gets none here.
    ctx
      .blockConcurrencyWhile(async () => {
        try {
          if (!this.#record.load()) return;
          this.#engine.compactor.load();
        } catch (e) {
          this.#record.failed(e);
          return;
        }
        try {
          recoverInterruptedTurns(this.#engine);
        } catch (e) {
          log("error", "session_recovery_failed", { error: String(e), stack: (e as Error)?.stack });
        }
      })
      .catch((e) => this.#record.failed(e));
  }

  /**
   * The agent config for a turn of this session (see agent-cache.ts). Its D1 re-read is an await: a DELETE that
   * runs meanwhile drops the tables the call reads next, so the call then answers as the engine does for a session
   * deleted under it (`deleted`, 404). A re-read D1 fails refuses the call, `database_unavailable`, nothing changed.
   */
  #agent(
    info: SessionInfo,
    arg: AgentArg,
    admission = false,
  ): Promise<Result<{ agent: AgentConfig; commit?: () => void }>> {
    return unlessUnavailable(() => this.#agents.resolve(info.agent, arg, admission, this.#goneSince()));
  }

  /** Asks, after an await, whether the session was deleted (or is being) since now: its tables may be gone. */
  #goneSince(): () => boolean {
    const generation = this.#engine.generation;
    return () => this.#engine.stale(generation);
  }

  /**
   * Runs a call that may touch D1; in debug mode its answer carries the storage work done meanwhile (`Reply`, see
   * debug-counters.ts), a refusal's too: one may have read D1 (the agent re-read) before it was refused. The probe
   * is the object's: work of another call or of the alarm that runs in the same span is in the figure too.
   */
  async #counted<R extends object>(fn: () => Promise<R>): Promise<Reply<R>> {
    const mark: DebugCounts | undefined = this.#probe?.mark();
    const answer = await fn();
    return mark && this.#probe ? { ...answer, debug: this.#probe.since(mark) } : answer;
  }

  /** Runs a turn RPC, its storage work counted (`#counted`). */
  async #turn(
    arg: AgentArg,
    fn: (agent: AgentConfig) => Promise<Result<TurnAnswer>>,
    admission = false,
  ): Promise<TurnReply> {
    return this.#record.existing((info) => this.#counted(() => this.#admitted(info, arg, fn, admission)));
  }

  async #admitted(
    info: SessionInfo,
    arg: AgentArg,
    fn: (agent: AgentConfig) => Promise<Result<TurnAnswer>>,
    admission: boolean,
  ): Promise<Result<TurnAnswer>> {
    const agent = await this.#agent(info, arg, admission);
    if (!agent.ok) return agent;
    const paused = agent.commit ? this.#engine.turns.latest()?.id : undefined;
    const answer = await fn(agent.agent);
    // A newer config read while a turn was paused is the session's copy once this call ended that pause.
    if (agent.commit && answer.ok && this.#engine.turns.latest()?.id !== paused) agent.commit();
    return answer;
  }

  /**
   * Creates the session. `agent` (its config and the agent-config epoch it was
   * read at) primes the session's agent cache, so the first turn needs no D1 read.
   * `created: false` when the object already holds a session (a webhook run created it first, say); `info` is
   * then the stored one, which stays as it was.
   */
  async init(info: SessionInfo, agent?: AgentRead): Promise<Result<{ created: boolean; info: SessionInfo }>> {
    // A create during a DELETE comes after it: the worker's index row, just written, must not be one the DELETE
    // already removed while the object it names is about to be wiped.
    await this.#delete.afterDelete();
    this.#record.ready();
    const existing = this.#record.info();
    if (existing) return { ok: true, created: false, info: existing };
    const created = this.#record.create(info);
    if (agent) this.#agents.prime(info.agent, agent.config, agent.epoch);
    // A session that is never used still expires (when idle expiry is configured).
    this.#scheduleSweep();
    this.#scheduler.arm();
    return { ok: true, created: true, info: created };
  }

  /**
   * The session as it was created (tenant, id, agent, created_at, metadata, incarnation), without reading any of
   * its history: the worker compares a repeated create with it (routes/sessions.ts) and mints tokens for its
   * incarnation (routes/tokens.ts).
   */
  async describe(): Promise<Result<{ info: SessionInfo }>> {
    return this.#record.existing((info) => ({ ok: true, info }));
  }

  /**
   * The session's state. With `arg` (the worker's agent epoch) its context block also carries the
   * agent's context window and compaction threshold (null when the agent is gone); its D1 re-read of a changed
   * agent is counted (`#counted`).
   */
  async state(arg?: AgentArg, stamp?: TokenStamp): Promise<Reply<Result<SessionState>>> {
    return this.#record.existing((info) => this.#counted(() => this.#state(info, arg)), stamp);
  }

  async #state(info: SessionInfo, arg?: AgentArg): Promise<Result<SessionState>> {
    const generation = this.#engine.generation;
    const resolved = arg ? await this.#agent(info, arg) : null;
    // A changed agent D1 could not re-read: refused, not shown as a session whose agent is gone.
    if (resolved && isUnavailable(resolved)) return resolved;
    // A DELETE during the agent's D1 read dropped the tables read below.
    if (this.#engine.stale(generation)) return deleted();
    return { ok: true, ...sessionState(this.#engine, info, resolved?.ok ? resolved.agent : null) };
  }

  async messages(after: number, limit: number, stamp?: TokenStamp): Promise<Result<MessagesPage>> {
    return this.#record.existing(() => {
      const { items, next } = this.#engine.history.page(after, limit);
      const upto = next === null ? Number.MAX_SAFE_INTEGER : (items[items.length - 1]?.seq ?? after);
      return {
        ok: true,
        messages: items,
        next,
        compactions: compactionMarkers(this.#storage.sql, after, upto),
        turns: this.#engine.turns.endedIn(after, upto),
      };
    }, stamp);
  }

  /** `POST /compact`; its D1 re-read of a changed agent is counted (`#counted`). */
  async compact(arg: AgentArg): Promise<Reply<Result<CompactionInfo>>> {
    return this.#record.existing((info) =>
      this.#counted(async () => {
        const agent = await this.#agent(info, arg);
        if (!agent.ok) return agent;
        return this.#engine.compact(agent.agent);
      }),
    );
  }

  /** Debug/tests only: the storage work this object has counted since it started; null unless counting is on. */
  async debugCounts(): Promise<DebugCounts | null> {
    return this.#probe?.mark() ?? null;
  }

  /** Debug/bench only: finished text turns written straight into history (debug-seed.ts); 404 unless enabled. */
  async debugSeed(turns: SeedTurn[]): Promise<Result<{ turns: number; messages: number }>> {
    return this.#record.existing(() =>
      flag(this.#env.SWITCHBOARD_DEBUG_SEED) ? seedTurns(this.#engine, turns) : missing(),
    );
  }

  async events(after: number, limit: number, stamp?: TokenStamp): Promise<Result<EventsPage>> {
    return this.#record.existing(() => {
      const { items, next } = this.#engine.eventLog.page(after, limit);
      return { ok: true, events: items, next };
    }, stamp);
  }

  /** The worker's turn calls (turn-wire.ts): the same methods as below, a streamed answer as the response body. */
  override async fetch(request: Request): Promise<Response> {
    const c = await readCall<TurnCall>(request);
    // The methods below check the rest (`existing`); a stale token is refused before anything is read for it.
    if (this.#record.foreign(c.stamp)) return answerResponse(missing());
    switch (c.call) {
      case "sendMessage":
        return answerResponse(await this.sendMessage(c.agent, c.input, c.mode));
      case "submitToolResults":
        return answerResponse(await this.submitToolResults(c.agent, c.results, c.mode, c.onlyPending));
      case "answerApprovals":
        return answerResponse(
          await this.answerApprovals(c.agent, c.answers, c.mode, {
            by: c.by,
            fromChat: c.fromChat,
            run: c.run,
            outputs: c.outputs,
            mayDecide: c.mayDecide,
          }),
        );
      case "retry":
        return answerResponse(await this.retry(c.agent, c.mode));
      default:
        throw new Error(`unknown turn call: ${JSON.stringify((c as { call?: unknown }).call)}`);
    }
  }

  async sendMessage(agent: AgentArg, input: SendInput, mode: Mode): Promise<TurnReply> {
    return this.#turn(agent, (a) => this.#engine.sendMessage(a, input, mode), true);
  }

  async submitToolResults(
    agent: AgentArg,
    results: SuppliedResult[],
    mode: Mode,
    onlyPending = false,
  ): Promise<TurnReply> {
    return this.#turn(agent, (a) => this.#engine.submitToolResults(a, results, mode, onlyPending));
  }

  async answerApprovals(
    agent: AgentArg,
    answers: ApprovalAnswer[],
    mode: Mode,
    opts: Omit<AnswerOptions, "onlyTurn"> & { run?: string },
  ): Promise<TurnReply> {
    const { run, ...rest } = opts;
    return this.#turn(agent, (a) => {
      // A run's approvals are those of the turn it waits in: its signature answers nothing else in the session.
      // Read once the session is known to exist: an object with no tables has no runs table to read.
      const onlyTurn = run === undefined ? undefined : (this.#runs.store.get(run)?.turn_id ?? null);
      return this.#engine.answerApprovals(a, answers, mode, { ...rest, onlyTurn });
    });
  }

  async retry(agent: AgentArg, mode: Mode): Promise<TurnReply> {
    return this.#turn(agent, (a) => this.#engine.retry(a, mode), true);
  }

  async cancel(stamp?: TokenStamp): Promise<Result<{ status: string; turn_id: string }>> {
    return this.#record.existing(() => this.#engine.cancel(), stamp);
  }

  async openStream(
    after: number | null,
    stamp?: TokenStamp,
  ): Promise<Result<{ stream: ReadableStream<Uint8Array> | null; turn_id: string | null }>> {
    return this.#record.existing(() => {
      const open = this.#engine.openStream(after);
      return { ok: true, stream: open?.stream ?? null, turn_id: open?.turn_id ?? null };
    }, stamp);
  }

  async clear(): Promise<Result<{ cleared: true }>> {
    if (this.#record.broken) return this.#delete.rebuild();
    if (!this.#record.info()) return missing();
    const cleared = this.#engine.clear();
    if (!cleared.ok) return cleared;
    this.#sweeper.forget();
    // A run that waited behind a paused turn may start now.
    this.#scheduler.arm();
    return { ok: true, cleared: true };
  }

  /**
   * DELETE (session-delete.ts): the session's D1 rows first, then the running turn is cancelled and its storage
   * wiped; a create or a run that comes meanwhile waits for it to end. Its D1 batch is counted (`#counted`).
   */
  async destroy(tenant: string, id: string): Promise<Reply<Result<{ deleted: true }>>> {
    return this.#delete.destroy(tenant, id);
  }

  /** Never throws into its caller (a turn's end): a missed schedule is made up by the next turn or alarm. */
  #scheduleSweep(): void {
    try {
      if (this.#record.info()) this.#sweeper.schedule();
    } catch (e) {
      log("error", "sweep_schedule_failed", { error: String(e) });
    }
  }

  /**
   * Queues a webhook-triggered run; the session is created on first use (the
   * worker has already written its index row). Idempotent per run id.
   * `agent` (the config and epoch the worker read to verify the webhook) is
   * kept as the session's copy unless that copy is newer. A refusal while this object holds the session (another
   * agent's session, a full queue) carries that session's info (`held`), for the worker to make its index row
   * describe it; only a deleted session's refusal has none.
   */
  async enqueueRun(
    info: SessionInfo,
    spec: RunSpec,
    agent?: AgentRead,
  ): Promise<Result<{ run: RunView }> | (Failure & { held: SessionInfo })> {
    // As `init`: a run handed over during a DELETE comes after it (and is refused by the tombstone if admitted
    // before it, or queued as before if the DELETE failed).
    await this.#delete.afterDelete();
    this.#record.ready();
    const current = this.#record.info();
    if (!current) {
      // Admitted before this session was deleted (`info.created_at` is the run's): it stays deleted.
      const deletedAt = await this.#record.deletedAt();
      if (deletedAt !== undefined && Date.parse(info.created_at) <= deletedAt) return deleted();
      this.#record.create(info);
    } else if (current.agent !== spec.agent) {
      return {
        ...failure("agent_mismatch", `session "${current.id}" belongs to agent "${current.agent}"`),
        held: current,
      };
    }
    // The config the worker just read: the run starts with it, no D1 read in the object.
    if (agent) this.#agents.offer(spec.agent, agent.config, agent.epoch);
    const queued = this.#runs.enqueue(spec);
    // Refused (a full queue) with the session held: the worker keeps its index row, written from this.
    return queued.ok ? queued : { ...queued, held: this.#record.info() ?? info };
  }

  /** Of `ids`, the runs this session still has open (RunStore.stillOpen); the D1 retention cron keeps their records. */
  async openRuns(ids: string[]): Promise<string[]> {
    this.#record.ready();
    // An object with no tables (deleted, or never created) has no open run.
    if (!this.#record.hasTables) return [];
    return this.#runs.store.stillOpen(ids);
  }

  /**
   * The D1 retention cron's poke when the idle-expiry setting is new (retention/cron.ts `walkIdleSessions`): the
   * sweep job is scheduled for whatever expires next under this object's retention, idle expiry included (an
   * existing job only moves earlier), and the alarm armed for it. A session dormant since before the setting
   * was on has no job left, and nothing else would wake it. An object with no session (never created, deleted
   * with its tombstone, or whose state did not load) is left as it is: no tables are created.
   */
  async ensureSweep(): Promise<void> {
    if (this.#record.broken || !this.#record.info()) return;
    this.#sweeper.schedule();
    this.#scheduler.arm();
  }

  /** A run's state; `run: null` when this session does not know the run. */
  async runView(runId: string): Promise<Result<{ run: RunView | null }>> {
    return this.#record.existing(() => ({ ok: true, run: this.#runs.view(runId) }));
  }

  /**
   * The one alarm: the heartbeat while a turn runs (a new instance that finds
   * no runner has already recovered in the constructor; interrupted runs are
   * resumed or failed here), the due jobs (jobs.ts: queued runs, callback and
   * notice deliveries, approvals' expiry), then the retention sweep
   * (src/session/sweeper.ts). It is re-armed for whatever is due next.
   */
  override async alarm(): Promise<void> {
    this.#scheduler.forget();
    // Runs may conclude here (a callback delivered): the turns they held back become sweepable.
    this.#sweeper.forget();
    this.#record.ready();
    if (!this.#record.hasTables) return;
    try {
      await this.#jobs.alarm();
      // A DELETE may have wiped the object while the jobs awaited (a callback delivery, say).
      if (!this.#record.hasTables) return;
      this.#scheduleSweep();
      // The sweep yields between batches; a DELETE delivered then wipes the tables it would go on deleting from.
      const generation = this.#engine.generation;
      const swept = await this.#sweeper.alarm(
        Date.now(),
        () => !this.#record.hasTables || this.#engine.stale(generation),
      );
      if (swept && (swept.stream_log || swept.events || swept.turns || swept.runs)) {
        log("info", "retention_swept", { session: this.#record.info()?.id, ...swept });
      }
      if (swept?.expired) await this.#delete.expire();
    } finally {
      // A session that expired itself has no tables left, and nothing to arm.
      if (this.#record.hasTables) this.#scheduler.arm();
    }
  }
}
