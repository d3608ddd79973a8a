/**
 * The session Durable Object: `Session`, one per `tenant:id`, the RPC surface the worker calls (turn calls also
 * over `fetch`, see turn-wire.ts). It owns the engine, runs, scheduler, sweeper and agent copy, recovers
 * interrupted turns at wake-up without throwing from its constructor (wake-up.ts), and drives runs and retention
 * from its single alarm (session-alarm.ts); the calls that start or resume a turn are turn-calls.ts's, those that
 * create the session session-create.ts's, and DELETE, idle expiry and the rebuild of a broken object are
 * session-delete.ts's.
 */
import { DurableObject } from "cloudflare:workers";
import type { AgentConfig, AgentRead } from "../agents/types";
import { isUnavailable, unlessUnavailable, withD1Marked } from "../d1/unavailable";
import type { Env } from "../env";
import { flag } from "../env-values";
import type { Failure, Result } from "../model/errors";
import { setSpans } from "../observability/tracing";
import { retentionOf } from "../retention/config";
import { countedD1, countedStorage, type DebugCounts, type Probe, probeFor } from "../storage/debug-counters";
import { setCellChecks } from "../storage/sql";
import { type AgentArg, AgentCache, turnMark } from "./agent-cache";
import type { AnswerOptions } from "./approval-answers";
import type { ApprovalAnswer } from "./approval-store";
import type { CompactionInfo } from "./compaction/compaction-info";
import { compactionMarkers } from "./compaction/records";
import { type SeedTurn, seedTurns } from "./debug-seed";
import { deleted } from "./deleted";
import type { SuppliedResult } from "./history/close-open-calls";
import { Jobs } from "./jobs";
import type {
  EventsPage,
  MessagesPage,
  Mode,
  Reply,
  SendInput,
  SessionInfo,
  SessionState,
  TokenStamp,
  TurnReply,
} from "./rpc-types";
import { Deliveries } from "./runs/deliveries";
import { SessionRuns } from "./runs/session-runs";
import type { RunSpec, RunView } from "./runs/types";
import { Scheduler } from "./scheduler";
import { SessionAlarm } from "./session-alarm";
import { SessionCreate } from "./session-create";
import { SessionDelete } from "./session-delete";
import { SessionEngine } from "./session-engine";
import { missing, SessionRecord } from "./session-record";
import { sessionState } from "./state-view";
import { Sweeper } from "./sweeper";
import { TurnCalls } from "./turn-calls";
import { wakeUp } from "./wake-up";

/**
 * One chat session. A thin RPC surface: a call on an existing session passes
 * one guard (`SessionRecord.existing`: the state loaded, the session exists, else 404) and
 * delegates to the engine; `init` and `enqueueRun` (which create the session, session-create.ts),
 * `clear`, `destroy` (session-delete.ts) and the alarm (session-alarm.ts) have rules of their own, written there.
 * Methods return result unions; the worker maps them to HTTP.
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
  /** `init` and `enqueueRun`, the calls that create the session (session-create.ts). */
  #create: SessionCreate;
  /** The one alarm: the jobs, then the retention sweep (session-alarm.ts). */
  #alarm: SessionAlarm;
  /** The calls that start or resume a turn (turn-calls.ts). */
  #turnCalls: TurnCalls;

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
    const gone = () => this.#jobs.gone; // the alarm's work stops once the session was deleted while it awaited
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
    this.#alarm = new SessionAlarm({
      record: this.#record,
      engine: this.#engine,
      scheduler: this.#scheduler,
      jobs: this.#jobs,
      sweeper: this.#sweeper,
      expire: () => this.#delete.expire(),
    });
    this.#delete = new SessionDelete({
      ctx,
      db: () => this.#env.DB,
      counted: (fn) => this.#counted(fn),
      record: this.#record,
      engine: this.#engine,
      scheduler: this.#scheduler,
      sweeper: this.#sweeper,
      agents: this.#agents,
      runs: this.#runs,
      alarm: this.#alarm,
    });
    this.#create = new SessionCreate({
      ctx,
      db: () => this.#env.DB,
      record: this.#record,
      afterDelete: () => this.#delete.afterDelete(),
      agents: this.#agents,
      runs: this.#runs,
      scheduler: this.#scheduler,
      alarm: this.#alarm,
    });
    this.#turnCalls = new TurnCalls({
      record: this.#record,
      engine: this.#engine,
      runs: this.#runs,
      agent: (info, arg, admission) => this.#agent(info, arg, admission),
      counted: (fn) => this.#counted(fn),
    });
    this.#engine.hooks = {
      arm: () => this.#scheduler.arm(),
      settled: (turnId) => {
        this.#runs.onSettled(turnId);
        this.#alarm.scheduleSweep();
      },
      resumed: (turnId) => this.#runs.onResumed(turnId),
    };
    // Never throws out of the constructor (wake-up.ts).
    wakeUp(ctx, this.#record, this.#engine);
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
    return unlessUnavailable(() => this.#agents.resolve(info.agent, arg, admission, this.#goneSince()), {
      session: `${info.tenant}:${info.id}`,
      for: "agent_reread",
    });
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

  /** Creates the session (session-create.ts); `created: false` when the object already holds one. */
  async init(info: SessionInfo, agent?: AgentRead): Promise<Result<{ created: boolean; info: SessionInfo }>> {
    return this.#create.init(info, agent);
  }

  /** A failed create's index row: deleted unless this object holds the session (session-create.ts `abandon`). */
  async abandonCreate(tenant: string, id: string): Promise<{ deleted: boolean }> {
    return this.#create.abandon(tenant, id);
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
    return this.#turnCalls.fetch(request);
  }

  /** The calls that start or resume a turn (turn-calls.ts). */
  async sendMessage(agent: AgentArg, input: SendInput, mode: Mode): Promise<TurnReply> {
    return this.#turnCalls.sendMessage(agent, input, mode);
  }

  async submitToolResults(
    agent: AgentArg,
    results: SuppliedResult[],
    mode: Mode,
    onlyPending = false,
  ): Promise<TurnReply> {
    return this.#turnCalls.submitToolResults(agent, results, mode, onlyPending);
  }

  async answerApprovals(
    agent: AgentArg,
    answers: ApprovalAnswer[],
    mode: Mode,
    opts: Omit<AnswerOptions, "onlyTurn"> & { run?: string },
  ): Promise<TurnReply> {
    return this.#turnCalls.answerApprovals(agent, answers, mode, opts);
  }

  async retry(agent: AgentArg, mode: Mode): Promise<TurnReply> {
    return this.#turnCalls.retry(agent, mode);
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

  /** Queues a webhook-triggered run, creating the session on first use (session-create.ts). */
  async enqueueRun(
    info: SessionInfo,
    spec: RunSpec,
    agent?: AgentRead,
  ): Promise<Result<{ run: RunView; created: boolean }> | (Failure & { held: SessionInfo })> {
    return this.#create.enqueueRun(info, spec, agent);
  }

  /** Of `ids`, the runs this session still has open (RunStore.stillOpen); the D1 retention cron keeps their records. */
  async openRuns(ids: string[]): Promise<string[]> {
    this.#record.ready();
    // An object with no tables (deleted, or never created) has no open run.
    if (!this.#record.hasTables) return [];
    return this.#runs.store.stillOpen(ids);
  }

  /** The D1 retention cron's poke when the idle-expiry setting is new (session-alarm.ts `ensureSweep`). */
  async ensureSweep(): Promise<void> {
    this.#alarm.ensureSweep();
  }

  /** A run's state; `run: null` when this session does not know the run. */
  async runView(runId: string): Promise<Result<{ run: RunView | null }>> {
    return this.#record.existing(() => ({ ok: true, run: this.#runs.view(runId) }));
  }

  /** The one alarm (session-alarm.ts): the due jobs, then the retention sweep; re-armed for what is due next. */
  override async alarm(): Promise<void> {
    return this.#alarm.run();
  }
}
