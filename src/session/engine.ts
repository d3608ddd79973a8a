import type { AgentConfig } from "../agents/types";
import { MAX_STEPS_LIMIT } from "../agents/types";
import type { Env } from "../env";
import { fail } from "../http/errors";
import { EventLog } from "../observability/events";
import { inSpan } from "../observability/tracing";
import type { JsonObject, Part } from "./history/parts";
import { HistoryStore, type SuppliedResult } from "./history/store";
import type { Mode, Result, SendInput, TurnAnswer, TurnResult } from "./rpc-types";
import { StreamLog } from "./stream/log";
import type { TurnStatus } from "./stream/turn-events";
import { SessionTools } from "./tools-state";
import { checkSupplied, turnResult } from "./turn/answers";
import { TurnRunner } from "./turn/runner";
import { type TurnKind, type TurnRow, TurnStore } from "./turn/turns";

/**
 * The session's state machine for turns: admission (one turn at a time,
 * idempotency, repair of open calls in the same transaction as the new user
 * message), runners, waiters and stream subscriptions. The DO class is a thin
 * RPC surface over this.
 */
export class SessionEngine {
  readonly history: HistoryStore;
  readonly turns: TurnStore;
  readonly events: EventLog;
  readonly log: StreamLog;
  readonly tools: SessionTools;
  #runner: TurnRunner | null = null;
  #waiters = new Map<string, Array<() => void>>();
  /** Set by the DO: `arm` re-arms the shared alarm (heartbeat + due jobs); `settled` lets runs see a turn stop. */
  hooks: { arm(): void; settled(turnId: string, status: TurnStatus): void } = { arm: () => {}, settled: () => {} };

  constructor(
    readonly storage: DurableObjectStorage,
    readonly env: Env,
    name: () => string,
  ) {
    this.history = new HistoryStore(storage.sql);
    this.turns = new TurnStore(storage.sql);
    this.events = new EventLog(storage.sql, name, env.SWITCHBOARD_LOG_EVENTS !== "false");
    this.log = new StreamLog(storage.sql);
    this.tools = new SessionTools(storage.sql, this.history);
  }

  get running(): TurnRunner | null {
    return this.#runner;
  }

  tx<T>(fn: () => T): T {
    try {
      return this.storage.transactionSync(fn);
    } catch (e) {
      this.history.invalidate();
      throw e;
    }
  }

  async sendMessage(agent: AgentConfig, input: SendInput, mode: Mode): Promise<Result<TurnAnswer>> {
    // MCP tool lists need network I/O: fetched before the checks below, which then run without an await.
    await this.tools.refresh(agent, this.env);
    if (input.idempotency_key) {
      const prior = this.turns.byIdempotencyKey(input.idempotency_key);
      if (prior) {
        if (prior.body_hash !== (input.body_hash ?? null)) {
          return fail(409, "idempotency_conflict", "this Idempotency-Key was used with a different request body");
        }
        return { ok: true, ...(await this.#answer(prior, mode, prior.first_message_seq ?? 0, true, prior.log_start)) };
      }
    }
    const latest = this.turns.latest();
    if (latest?.status === "running") return fail(409, "turn_in_progress", "a turn is already running in this session");
    const checked = checkSupplied(this.history, this.events, input.tool_results, latest?.id ?? null);
    if (!checked.ok) return checked;
    const supplied = new Map(input.tool_results.map((r) => [r.tool_use_id, r]));
    const turn = this.#begin(agent, "message", input, latest, {
      supplied,
      extra: input.content,
      reason: "no result was provided before the next user message",
    });
    return { ok: true, ...(await this.#answer(turn, mode, turn.first_message_seq ?? 0, false, turn.log_start)) };
  }

  async retry(agent: AgentConfig, mode: Mode): Promise<Result<TurnAnswer>> {
    await this.tools.refresh(agent, this.env);
    const latest = this.turns.latest();
    if (latest?.status === "running") return fail(409, "turn_in_progress", "a turn is already running in this session");
    const open = this.history.openCalls().length > 0;
    const last = this.history.last();
    if (!latest || latest.status === "completed" || (!open && last?.role !== "user")) {
      return fail(409, "nothing_to_retry", "the last turn did not fail or get interrupted; send a new message instead");
    }
    // A retried turn keeps the structured-output contract of the turn it re-runs.
    const schema = latest.json_schema ? (JSON.parse(latest.json_schema) as JsonObject) : undefined;
    const turn = this.#begin(agent, "retry", schema ? { json_schema: schema } : {}, latest, {
      reason: "the call was superseded by a retry",
    });
    return { ok: true, ...(await this.#answer(turn, mode, turn.first_message_seq ?? 0, false, turn.log_start)) };
  }

  /** Admits a turn: one transaction closes open calls, writes the user message and the turn row. */
  #begin(
    agent: AgentConfig,
    kind: TurnKind,
    input: { max_steps?: number; idempotency_key?: string; body_hash?: string; json_schema?: JsonObject },
    previous: TurnRow | null,
    close: { supplied?: ReadonlyMap<string, SuppliedResult>; extra?: Part[]; reason: string },
  ): TurnRow {
    const id = `turn_${crypto.randomUUID().replaceAll("-", "")}`;
    const maxSteps = Math.min(input.max_steps ?? agent.max_steps, MAX_STEPS_LIMIT);
    // Only what admission needs happens before the provider request; sweeps run when a turn settles.
    const { turn, synthesized, rederived } = this.tx(() => {
      if (previous?.status === "awaiting_tool_results") {
        this.turns.finish(previous.id, "completed", "superseded", null);
      }
      const { notices, rederived } = this.tools.admit(agent);
      const { message, synthesized } = this.history.closeOpenCalls({
        turnId: id,
        reason: close.reason,
        ...(close.supplied ? { supplied: close.supplied } : {}),
        declarations: this.tools.takeDeclarations(agent),
        extra: [...notices, ...(close.extra ?? [])],
        ...(close.extra?.length ? { origin: "client" as const } : {}),
      });
      // The turn row is written once, already pointing at its first message.
      const turn = this.turns.create({
        id,
        kind,
        max_steps: maxSteps,
        log_start: this.log.head(),
        idempotency_key: input.idempotency_key ?? null,
        body_hash: input.body_hash ?? null,
        json_schema: input.json_schema ? JSON.stringify(input.json_schema) : null,
        first_message_seq: message?.seq ?? null,
      });
      return { turn, synthesized, rederived };
    });
    if (rederived.length) this.events.record("tools_loaded", id, { names: rederived, via: "history" });
    this.events.record("turn_started", id, { kind, max_steps: maxSteps });
    if (synthesized.length > 0) {
      this.events.record("tool_result_synthesized", id, { tool_use_ids: synthesized, reason: close.reason });
    }
    this.#start(agent, id);
    return this.turns.get(id) ?? turn;
  }

  #start(agent: AgentConfig, turnId: string): void {
    const runner = new TurnRunner(
      {
        storage: this.storage,
        history: this.history,
        turns: this.turns,
        events: this.events,
        log: this.log,
        tools: this.tools,
        env: this.env,
        agent,
        onSettled: (id, status) => this.#settled(id, status),
      },
      turnId,
    );
    this.#runner = runner;
    this.hooks.arm();
    // Detached from the request on purpose: a client that disconnects does not stop the turn.
    inSpan("switchboard.turn", { "switchboard.turn_id": turnId, "switchboard.model": agent.model.name }, () =>
      runner.run(),
    ).catch((e) => console.error("runner escaped", e));
  }

  #settled(turnId: string, status: TurnStatus): void {
    if (this.#runner?.turnId === turnId) this.#runner = null;
    // Retention sweeps wait until the turn's stream is out (they were on the admission path).
    this.events.sweep();
    this.log.sweep();
    // Not deleteAlarm: queued runs and callback retries share the alarm.
    this.hooks.settled(turnId, status);
    this.hooks.arm();
    const ws = this.#waiters.get(turnId) ?? [];
    this.#waiters.delete(turnId);
    for (const w of ws) w();
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

  async #answer(turn: TurnRow, mode: Mode, sinceSeq: number, replayed: boolean, logAfter: number): Promise<TurnAnswer> {
    if (mode === "stream") {
      return { turn_id: turn.id, replayed, stream: this.log.open(turn.id, logAfter, this.#runner?.turnId === turn.id) };
    }
    await this.waitFor(turn.id);
    return { turn_id: turn.id, replayed, result: this.result(turn.id, sinceSeq) };
  }

  result(turnId: string, sinceSeq: number): TurnResult {
    return turnResult(this.history, this.turns, turnId, sinceSeq);
  }

  async submitToolResults(
    agent: AgentConfig,
    supplied: SuppliedResult[],
    mode: Mode,
    onlyPending = false,
  ): Promise<Result<TurnAnswer>> {
    // The resumed turn keeps its pinned tool set; this only fills the cache a fresh instance lacks.
    await this.tools.refresh(agent, this.env);
    const latest = this.turns.latest();
    // A useChat body repeats every tool output of the conversation; only the still-pending ones are new.
    const results = onlyPending
      ? supplied.filter((r) => {
          const call = this.history.call(r.tool_use_id);
          return call?.state === "pending" && call.answered_seq === null;
        })
      : supplied;
    if (results.length === 0)
      return fail(409, "late_result", "none of the supplied results answers a pending tool call");
    const checked = checkSupplied(this.history, this.events, results, latest?.id ?? null);
    if (!checked.ok) return checked;
    const since = (this.history.last()?.seq ?? 0) + 1;
    this.tx(() => {
      for (const r of results) this.history.storeResult(r.tool_use_id, "resolved", r.content, r.is_error);
    });
    if (latest?.status === "awaiting_tool_results" && this.history.openCallsSettled()) {
      this.tx(() => {
        this.turns.resume(latest.id, this.log.head());
        this.history.closeOpenCalls({
          turnId: latest.id,
          reason: "no result was recorded",
          declarations: this.tools.takeDeclarations(agent),
        });
      });
      this.#start(agent, latest.id);
      const resumed = this.turns.get(latest.id) as TurnRow;
      return { ok: true, ...(await this.#answer(resumed, mode, since, false, resumed.segment_start)) };
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
    if (!latest || (latest.status !== "running" && latest.status !== "awaiting_tool_results")) {
      return fail(409, "no_active_turn", "there is no running turn to cancel");
    }
    const runner = this.#runner;
    if (runner && runner.turnId === latest.id) {
      runner.cancel("the turn was cancelled");
      await this.waitFor(latest.id);
    } else {
      const reason = "the turn was cancelled";
      const { synthesized } = this.tx(() => {
        const r = this.history.closeOpenCalls({ turnId: latest.id, reason });
        this.turns.finish(latest.id, "cancelled", "cancelled", null);
        return r;
      });
      if (synthesized.length)
        this.events.record("tool_result_synthesized", latest.id, { tool_use_ids: synthesized, reason });
      this.events.record("turn_finished", latest.id, { status: "cancelled", finish_reason: "cancelled" });
    }
    return { ok: true, status: this.turns.get(latest.id)?.status ?? "cancelled", turn_id: latest.id };
  }

  openStream(after: number | null): ReadableStream<Uint8Array> | null {
    const latest = this.turns.latest();
    if (!latest) return null;
    const live = this.#runner?.turnId === latest.id;
    if (after === null) return live ? this.log.open(latest.id, latest.segment_start, true) : null;
    if (!live && this.log.rows(latest.id, after).length === 0) return null;
    return this.log.open(latest.id, after, live);
  }

  pendingCalls(): Array<{ id: string; name: string; execution: string }> {
    return this.history
      .openCalls()
      .filter((c) => c.state === "pending")
      .map((c) => ({ id: c.id, name: c.name, execution: c.execution }));
  }

  loadedTools(): string[] {
    return this.tools.loaded.list();
  }
}
