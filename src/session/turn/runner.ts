import type { AgentConfig } from "../../agents/types";
import { type Env, flag } from "../../env";
import type { EventLog } from "../../observability/events";
import { checkWireInvariant } from "../../providers/check-invariant";
import { DEFAULT_RETRY_POLICY, endpointFromEnv, getAdapter } from "../../providers/index";
import { ProviderFailure, type RetryPolicy, type StepRequest, type StopReason } from "../../providers/types";
import { runBuiltin } from "../../tools/builtins/run";
import { projectionFor, stepTools, systemPrompt } from "../../tools/disclosure";
import type { Part, ToolUsePart } from "../history/parts";
import type { Execution, HistoryStore } from "../history/store";
import type { StreamLog } from "../stream/log";
import type { TurnStatus, UiFinishReason } from "../stream/turn-events";
import type { SessionTools } from "../tools-state";
import { executeCalls } from "./execute";
import { TurnOutput } from "./output";
import type { TurnError, TurnStore } from "./turns";

export interface RunnerDeps {
  storage: DurableObjectStorage;
  history: HistoryStore;
  turns: TurnStore;
  events: EventLog;
  log: StreamLog;
  tools: SessionTools;
  env: Env;
  agent: AgentConfig;
  /** Called once when the turn ends or pauses; the session wakes waiters and clears its heartbeat. */
  onSettled(turnId: string, status: TurnStatus): void;
}

type StepResult =
  | { kind: "done"; stop: StopReason; messageSeq: number | null }
  | { kind: "failed"; error: TurnError }
  | { kind: "cancelled" };

const FINISH: Record<StopReason, UiFinishReason> = {
  end_turn: "stop",
  tool_use: "tool-calls",
  max_tokens: "length",
  stop_sequence: "stop",
  refusal: "content-filter",
  other: "other",
};

/**
 * Runs one segment of a turn: steps until the model stops calling tools, the
 * turn pauses for client tools, max_steps, cancel or error. Lives in the DO,
 * detached from any client connection. `run` never throws.
 */
export class TurnRunner {
  readonly #abort = new AbortController();
  #cancelReason: string | null = null;
  readonly out: TurnOutput;
  /** The deferred-tools listing is fixed for the turn, so the system prompt stays byte-stable across steps. */
  #listing: string | null = null;

  constructor(
    private readonly d: RunnerDeps,
    readonly turnId: string,
  ) {
    this.out = new TurnOutput(d.log, turnId);
  }

  cancel(reason: string): void {
    this.#cancelReason = reason;
    this.#abort.abort(new Error(reason));
  }

  get cancelled(): boolean {
    return this.#cancelReason !== null;
  }

  async run(): Promise<void> {
    const { turns } = this.d;
    this.out.emit({ type: "turn_start", turn_id: this.turnId, message_id: `msg_${this.turnId}` });
    try {
      for (;;) {
        if (this.cancelled) return this.#finishCancelled();
        const turn = turns.get(this.turnId);
        if (!turn) return;
        if (turn.steps >= turn.max_steps) return this.#finish("completed", "max_steps", "other", null);
        const step = turn.steps + 1;
        this.out.emit({ type: "step_start", step });
        const result = await this.#step(step);
        if (result.kind === "cancelled") return this.#finishCancelled();
        if (result.kind === "failed") return this.#finish("failed", "error", "error", result.error);
        turns.stepDone(this.turnId);
        const calls = result.messageSeq === null ? [] : this.d.history.toolUsesOf(result.messageSeq);
        if (calls.length === 0) {
          this.out.emit({ type: "step_finish", step });
          return this.#finish("completed", result.stop, FINISH[result.stop], null);
        }
        const waiting = await this.#runTools(calls);
        this.out.emit({ type: "step_finish", step });
        if (this.cancelled) return this.#finishCancelled();
        if (waiting) return this.#pause();
        this.#tx(() =>
          this.d.history.closeOpenCalls({
            turnId: this.turnId,
            reason: "no result was recorded",
            declarations: this.d.tools.takeDeclarations(this.d.agent),
          }),
        );
      }
    } catch (e) {
      // A bug must not leave the turn "running" forever: fail it visibly.
      console.error(JSON.stringify({ level: "error", msg: "turn_crashed", turn_id: this.turnId, error: String(e) }));
      return this.#finish("failed", "error", "error", { code: "internal_error", message: String(e) });
    }
  }

  #tx<T>(fn: () => T): T {
    try {
      return this.d.storage.transactionSync(fn);
    } catch (e) {
      this.d.history.invalidate();
      throw e;
    }
  }

  #request(): StepRequest {
    const { agent, history, tools } = this.d;
    const reg = tools.registry(agent);
    this.#listing ??= reg.searchEnabled ? tools.listing() : "";
    return {
      model: agent.model,
      system: systemPrompt(agent.system, [this.#listing]),
      messages: history.messages(),
      tools: stepTools(reg, tools.loaded.list(), projectionFor(agent.model)),
    };
  }

  #policy(): RetryPolicy {
    const idle = Number(this.d.env.SWITCHBOARD_IDLE_TIMEOUT_MS);
    return Number.isFinite(idle) && idle > 0 ? { ...DEFAULT_RETRY_POLICY, idleTimeoutMs: idle } : DEFAULT_RETRY_POLICY;
  }

  #executionOf = (name: string): Execution => {
    const tool = this.d.tools.registry(this.d.agent).get(name);
    if (!tool) return "unknown";
    return tool.source === "builtin" ? "builtin" : (tool.execution?.type ?? "unknown");
  };

  /** One provider request. Completed blocks are persisted as they complete; see DESIGN §3. */
  async #step(step: number): Promise<StepResult> {
    const { agent, history, events, env } = this.d;
    const adapter = getAdapter(agent.model.provider);
    const req = this.#request();
    if (flag(env.SWITCHBOARD_DEBUG_CHECKS)) {
      const violations = checkWireInvariant(agent.model.provider, adapter.buildBody(req));
      if (violations.length > 0) {
        events.record("invariant_violation", this.turnId, { step, violations });
        return { kind: "failed", error: { code: "invariant_violation", message: violations.join("; ") } };
      }
    }
    let messageSeq: number | null = null;
    let buffer: Part[] = [];
    let stop: StopReason = "end_turn";
    const flush = () => {
      if (buffer.length === 0) return;
      const parts = buffer;
      buffer = [];
      messageSeq = this.#tx(() => history.appendAssistantParts(this.turnId, messageSeq, parts, this.#executionOf));
    };
    try {
      for await (const ev of adapter.stream(
        req,
        endpointFromEnv(agent.model.provider, env),
        this.#policy(),
        this.#abort.signal,
      )) {
        this.out.emit({ type: "provider", event: ev });
        switch (ev.type) {
          case "block_stop":
            buffer.push(ev.part);
            // A finished tool_use is durable at once, so a cut stream cannot lose it.
            if (ev.part.type === "tool_use") flush();
            break;
          case "block_invalid":
            events.record("tool_use_stripped", this.turnId, { step, id: ev.id, name: ev.name, reason: ev.reason });
            break;
          case "usage":
            this.d.turns.addUsage(this.turnId, numericUsage(ev.usage));
            break;
          case "message_stop":
            stop = ev.stop_reason;
            break;
          case "retry":
            events.record("provider_retry", this.turnId, {
              step,
              attempt: ev.attempt,
              delay_ms: ev.delay_ms,
              status: ev.status,
              reason: ev.reason,
            });
            break;
          default:
            break;
        }
      }
      flush();
      return { kind: "done", stop, messageSeq };
    } catch (e) {
      this.out.emit({ type: "step_abandoned", reason: e instanceof Error ? e.message : String(e) });
      const dropped = buffer.filter((p) => p.type === "text").map((p) => (p.type === "text" ? p.text : ""));
      if (dropped.length > 0)
        events.record("partial_text_dropped", this.turnId, { step, text: dropped.join("").slice(0, 2000) });
      if (messageSeq !== null) {
        const ids = history.toolUsesOf(messageSeq).map((t) => t.id);
        events.record("partial_tool_use_persisted", this.turnId, { step, tool_use_ids: ids });
      }
      if (this.cancelled) return { kind: "cancelled" };
      const error: TurnError =
        e instanceof ProviderFailure
          ? { code: e.error.code, message: e.error.message, retryable: e.error.retryable }
          : { code: "internal_error", message: String(e), retryable: true };
      events.record("stream_error", this.turnId, { step, ...error });
      return { kind: "failed", error };
    }
  }

  /** Runs server-side calls concurrently; returns true when client-executed calls remain. */
  async #runTools(calls: ToolUsePart[]): Promise<boolean> {
    const { history, tools, agent, events } = this.d;
    const registry = tools.registry(agent);
    const loaded = new Set(tools.loaded.list());
    const loadedNow = (names: string[], via: string) => {
      if (names.length) events.record("tools_loaded", this.turnId, { names, via });
    };
    await executeCalls({
      calls,
      registry,
      loaded,
      runBuiltin: (call) => runBuiltin(call.name, call.input, { registry, loaded, index: () => tools.index(agent) }),
      signal: this.#abort.signal,
      allowPrivate: flag(this.d.env.SWITCHBOARD_ALLOW_PRIVATE_URLS),
      events,
      turnId: this.turnId,
      onResult: (call, outcome, load) => {
        if (this.cancelled) return;
        // The result and the loads it announces commit together: no tool is marked loaded without it.
        const added = this.#tx(() => {
          history.storeResult(call.id, "resolved", outcome.content, outcome.is_error);
          return tools.loaded.add(load, call.name);
        });
        loadedNow(added, call.name);
        this.out.emit({
          type: "tool_output",
          tool_use_id: call.id,
          content: outcome.content,
          is_error: outcome.is_error,
        });
      },
      onLoad: (call, load) =>
        loadedNow(
          this.#tx(() => tools.loaded.add(load, call.name)),
          call.name,
        ),
    });
    return !history.openCallsSettled();
  }

  #pause(): void {
    this.d.turns.setStatus(this.turnId, "awaiting_tool_results");
    const pending = this.d.history
      .openCalls()
      .filter((c) => c.state === "pending")
      .map((c) => ({ id: c.id, name: c.name }));
    this.out.emit({ type: "data", name: "awaiting-tool-results", data: { tool_calls: pending }, transient: true });
    this.out.emit({ type: "turn_finish", status: "awaiting_tool_results", finish_reason: "tool-calls" });
    this.out.close();
    this.d.onSettled(this.turnId, "awaiting_tool_results");
  }

  #finishCancelled(): void {
    const reason = this.#cancelReason ?? "the turn was cancelled";
    const { synthesized } = this.#tx(() => this.d.history.closeOpenCalls({ turnId: this.turnId, reason }));
    if (synthesized.length > 0) {
      this.d.events.record("tool_result_synthesized", this.turnId, { tool_use_ids: synthesized, reason });
    }
    this.#finish("cancelled", "cancelled", "other", null);
  }

  #finish(status: TurnStatus, reason: string, finish: UiFinishReason, error: TurnError | null): void {
    this.d.turns.finish(this.turnId, status, reason, error);
    this.out.flush();
    this.d.events.record("turn_finished", this.turnId, {
      status,
      finish_reason: reason,
      // Stream-log rows this segment wrote and the text they carried: the coalescing figure.
      stream_rows: this.out.rowsWritten,
      text_chars: this.out.deltaChars,
      ...(error ? { error } : {}),
    });
    if (error) this.out.emit({ type: "turn_error", code: error.code, message: error.message });
    this.out.emit({
      type: "data",
      name: "turn",
      data: { turn_id: this.turnId, status, finish_reason: reason },
      transient: true,
    });
    this.out.emit({ type: "turn_finish", status, finish_reason: finish });
    this.out.close();
    this.d.onSettled(this.turnId, status);
  }
}

function numericUsage(u: Record<string, number | undefined>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(u)) if (typeof v === "number") out[k] = v;
  return out;
}
