/**
 * Context compaction for one session (`Compactor`): estimates request sizes, decides when to compact (past the
 * token limit, or past MAX_VIEW_BYTES of view whatever the window) and whether the provider compacts natively,
 * writes our own summary records (the summary itself: summarise.ts) and records the provider's (each fitted to its
 * row: `fitNative`). One compaction runs at a time; nothing is stored until a summary is complete.
 */
import type { AgentConfig } from "../../agents/types";
import { DEFAULT_COMPACTION } from "../../agents/types";
import type { Env } from "../../env";
import type { CompactionPart, Message } from "../../model/message";
import type { EventLog } from "../../observability/events";
import { attributesOf, inSpan } from "../../observability/tracing";
import { MIN_COMPACTION_TRIGGER } from "../../providers/anthropic-body";
import { promptSize } from "../../providers/body-text";
import { getAdapter } from "../../providers/index";
import { contextWindow, type ModelConfig, type StepRequest } from "../../providers/types";
import { jsonBytes } from "../../storage/fit";
import { MAX_VIEW_BYTES, SUMMARY_BUDGET_BYTES } from "../../storage/limits";
import { type SessionStores, sessionTx } from "../session-tx";
import { chooseCut, turnsBefore, userParts } from "./boundary";
import { clearDroppedNative, readDroppedNative, writeDroppedNative } from "./dropped-native";
import { estimateTokens, inputTokens, type Observation, sizeTokens, textTokens } from "./estimate";
import { CARRIED_NOTE, countCompactions, insertCompaction, latestCompaction, summaryText } from "./records";
import { summarise } from "./summarise";
import type { RequestPrefix } from "./summary-request";
import { toolChoice } from "./tool-choice";

export interface CompactionDeps extends SessionStores {
  storage: DurableObjectStorage;
  eventLog: EventLog;
  env: Env;
}

/** What `context_compacted` and the `data-compaction` part carry. */
export interface CompactionInfo {
  boundary_seq: number;
  tokens_before: number;
  tokens_after: number;
  tools_kept: string[];
  tools_dropped: string[];
  native: boolean;
  summary_requests: number;
}

type CompactionOutcome = { ok: true; info: CompactionInfo } | { ok: false; reason: string };

interface CompactOptions {
  /**
   * The running turn: its messages are summarised only when no turn boundary keeps few enough tokens, then up to
   * one of its step boundaries; a cut that summarises the request it answers carries that request verbatim
   * (`chooseCut`).
   */
  turnId: string | null;
  tokensBefore: number;
  signal: AbortSignal;
  /** The triggering request's prefix (prompt-cache reuse); absent (on demand) = no tools, our own system. */
  prefix?: RequestPrefix;
  /**
   * False once the conversation summarised is gone (cleared or deleted while the summary streamed): checked in
   * the write's transaction, so a summary of an erased conversation is never stored. Absent: always current.
   */
  current?: () => boolean;
}

/** Server-side compaction for the agent's model: the trigger to send, or why we summarise ourselves. */
type NativePlan = { native: true; trigger: number } | { native: false; reason: string | null };

/**
 * The most tokens a compaction keeps, and a summary request carries, whatever the window: a stored byte weighs at
 * least a quarter token (`textTokens`), so either holds at most half of MAX_VIEW_BYTES, and a view compacted for
 * its size is well below it after (README "Long sessions").
 */
const BYTE_BOUND_TOKENS = MAX_VIEW_BYTES / 8;

/**
 * The overflow wordings (providers/retry.ts isOverflowError) that name the model's window, each capturing it:
 * Anthropic "prompt is too long: N tokens > 200000 maximum" and, for older models, "exceed context limit: N + M >
 * 200000"; OpenAI and vLLM "maximum context length is 8192"; Kimi "exceeded model token limit: 262144 (requested:
 * …)"; Qwen "Range of input length should be [1, 129024]"; llama.cpp "exceeds the available context size (4096
 * tokens)". Ollama's "exceeded max context length by N tokens" names the excess, and MiniMax's number is an error
 * code: neither is a window.
 */
const WINDOW_WORDING = [
  /(\d+) maximum/i,
  /exceed context limit: \d+ \+ \d+ > (\d+)/i,
  /maximum context length is (\d+)/i,
  /exceeded model token limit: (\d+)/i,
  /range of input length should be \[\d+, *(\d+)\]/i,
  /exceeds the available context size \((\d+) tokens?\)/i,
];

/**
 * What a learned window or a usage report is true of: the model as the agent names and sizes it (provider, name,
 * configured window). Its base URL is the Worker's (ANTHROPIC_BASE_URL, OPENAI_BASE_URL), the same for as long as
 * this object lives (another value is another deployment, whose new instance remembers nothing), so the provider
 * stands for it.
 */
function modelKey(model: ModelConfig): string {
  return JSON.stringify([model.provider, model.name, contextWindow(model)]);
}

/**
 * `messageTokens` by parts array. A stored message's parts are never changed in place (appending to one assigns
 * a new array, and a reload from SQL makes new ones), so the entry lives exactly as long as the parts it sizes:
 * GET /v1/sessions/{id} (polled for state) and each compaction size only what is new since the last look.
 */
const sizedParts = new WeakMap<readonly unknown[], number>();

/** Estimated tokens of a message's parts (what the boundary choice weighs). */
function messageTokens(m: Message): number {
  let tokens = sizedParts.get(m.parts);
  if (tokens === undefined) {
    tokens = textTokens(JSON.stringify(m.parts));
    sizedParts.set(m.parts, tokens);
  }
  return tokens;
}

/**
 * Keeps a session's provider requests inside the model's context window
 * (README "Long sessions"): estimates each request, and when it is above the
 * threshold (or the provider said it is too long) summarises the view up to a
 * safe boundary with the agent's own model and stores a compaction record.
 * Nothing is written until the summary is complete: a cut summary stream or a
 * crash leaves the session exactly as it was.
 */
export class Compactor {
  /**
   * The last request's `textTokens` and the input tokens the provider reported for it, and the model it went to
   * (`modelKey`): another model's tokenizer counts differently, so its report is not read.
   */
  #last: { model: string; seen: Observation } | null = null;
  /**
   * A window the provider reported in a context-length error, and the model it is true of (`modelKey`): an agent
   * moved to another model, or to another configured window, is sized by its own configuration again.
   */
  #learned: { model: string; window: number } | null = null;
  /**
   * One compaction at a time (a turn's and an on-demand one could otherwise interleave): the one in flight, whose
   * it is (a turn's, or null for POST /compact), how to stop it, and when it is done.
   */
  #running: { turnId: string | null; stop: AbortController; done: Promise<unknown> } | null = null;
  /** The latest request estimate (what a native compaction reports as tokens_before). */
  #lastEstimate = 0;
  /**
   * Native compactions the provider answered with in this instance, recorded or dropped (a step compares it to
   * know whether its usage report is comparable: the report describes the compacted context).
   */
  #natives = 0;
  /**
   * The size of the provider's compaction last dropped as too large to store (`fitNative`), until one of ours
   * compacts or the session is cleared: asked again, the provider would compact the same history into a block as
   * large on every step. Stored with it (dropped-native.ts), read when the object starts (`load`).
   */
  #droppedNative: number | null = null;

  get natives(): number {
    return this.#natives;
  }

  /**
   * The provider's compaction of `bytes` was dropped as too large to store: until our own summary compacts,
   * requests no longer ask the provider to compact, and our threshold applies (`nativePlan`). Stored: the caller
   * runs it in the transaction that writes the dropped block, so a restarted object does not ask again either.
   */
  droppedNative(bytes: number): void {
    writeDroppedNative(this.#deps.storage.sql, bytes);
    this.#droppedNative = bytes;
    this.#natives++;
  }

  /** The object starts: reads whether the provider's last compaction was dropped (`droppedNative`). */
  load(): void {
    this.#droppedNative = readDroppedNative(this.#deps.storage.sql);
  }

  /**
   * `clear` (in its transaction): the conversation the provider compacted is gone, so it may compact again; what
   * its requests taught (the last usage report, a learned window) goes with it.
   */
  clear(): void {
    clearDroppedNative(this.#deps.storage.sql);
    this.#droppedNative = null;
    this.#last = null;
    this.#learned = null;
  }

  /** The session's storage was wiped: nothing it held is remembered, nor what its requests taught. */
  forget(): void {
    this.#droppedNative = null;
    this.#last = null;
    this.#learned = null;
  }

  /** A request's size (`Compactor.size`), with its estimate kept as the latest. */
  measure(req: StepRequest): number {
    const size = Compactor.size(req);
    this.estimate(req.model, size);
    return size;
  }

  readonly #deps: CompactionDeps;
  constructor(deps: CompactionDeps) {
    this.#deps = deps;
  }

  static config(agent: AgentConfig) {
    return agent.compaction ?? DEFAULT_COMPACTION;
  }

  /**
   * Estimated tokens (`textTokens`) of a request as the adapter sends it, less the deferred tools the model does
   * not see yet.
   */
  static size(req: StepRequest): number {
    // The same text the adapter sends (built once per request, src/providers/body-text.ts).
    return promptSize(req, getAdapter(req.model.provider).buildBody, textTokens);
  }

  /** The input tokens of a request of this `size` to `model`, given the provider's last report on that model. */
  estimate(model: ModelConfig, size: number): number {
    const last = this.#last?.model === modelKey(model) ? this.#last.seen : null;
    this.#lastEstimate = estimateTokens(size, last);
    return this.#lastEstimate;
  }

  /**
   * Whether the provider compacts for this agent (README "Long sessions", native compaction):
   * the model declares `native_compaction`, the wire has it (Anthropic Messages `compact_20260112`;
   * OpenAI Responses `compact_threshold` with provider `openai-responses` — Chat Completions has
   * none), the most input a request can carry (`maxInput`: the window less its output limit) is more than the
   * provider's minimum trigger, and the provider's last compaction was not dropped as too large to store
   * (`droppedNative`; until one of ours compacts). The trigger is the threshold share of the window or, when the
   * output limit leaves less input than that, of `maxInput`, and at least the minimum: below `maxInput`, so a request
   * past it can still be sent for the provider to compact. `reason` says why a declared capability is not used (null
   * when none was declared).
   */
  nativePlan(agent: AgentConfig): NativePlan {
    const cfg = Compactor.config(agent);
    if (agent.model.capabilities.native_compaction !== true || !cfg.enabled) return { native: false, reason: null };
    if (this.#droppedNative !== null) {
      return {
        native: false,
        reason: `the provider's last compaction (${this.#droppedNative} bytes) was too large to store; our own summary compacts instead`,
      };
    }
    if (agent.model.provider === "openai") {
      return {
        native: false,
        reason:
          'OpenAI server-side compaction (compact_threshold) exists only on the Responses API; provider "openai" speaks Chat Completions (use "openai-responses")',
      };
    }
    const window = this.window(agent);
    const most = this.maxInput(agent);
    // The Responses API documents no minimum threshold; the Messages API refuses a trigger below 50,000.
    const minimum = agent.model.provider === "anthropic" ? MIN_COMPACTION_TRIGGER : 1;
    const share = Math.floor(window * cfg.threshold);
    const trigger = Math.max(minimum, share < most ? share : Math.floor(most * cfg.threshold));
    if (trigger >= most) {
      const input =
        most < window
          ? `the window (${window} tokens) less the output limit (${window - most} tokens)`
          : `the window (${window} tokens)`;
      return {
        native: false,
        reason: `${input} is too small for the provider's minimum compaction trigger (${minimum})`,
      };
    }
    return { native: true, trigger };
  }

  /** Records the provider's reported usage for a request of `size` to `model`. */
  observe(model: ModelConfig, size: number, usage: Record<string, number>): void {
    const tokens = inputTokens(usage);
    if (tokens !== null && tokens > 0) this.#last = { model: modelKey(model), seen: { estimated: size, tokens } };
  }

  /**
   * The window budgets are computed from: the configured one, or a smaller one the provider reported for this
   * very model (`learn`). GET /v1/sessions/{id} shows it as `context_window`.
   */
  window(agent: AgentConfig): number {
    const configured = contextWindow(agent.model);
    const learned = this.#learned;
    return learned !== null && learned.window < configured && learned.model === modelKey(agent.model)
      ? learned.window
      : configured;
  }

  /**
   * Learns `model`'s real window from a context-length error that names it (WINDOW_WORDING); other wordings teach
   * nothing.
   */
  learn(model: ModelConfig, message: string): void {
    for (const wording of WINDOW_WORDING) {
      const n = Number(wording.exec(message)?.[1]);
      if (Number.isFinite(n) && n > 0) {
        this.#learned = { model: modelKey(model), window: n };
        return;
      }
    }
  }

  /**
   * True when the view must be compacted before a request of this estimate is sent: the request is above `limit`
   * (`native`: above `maxInput`, the provider compacting at its trigger itself), or the view's messages take
   * more than MAX_VIEW_BYTES as stored, whatever the window (the object holds them in its 128 MB).
   */
  over(agent: AgentConfig, tokens: number, native = false): boolean {
    if (!Compactor.config(agent).enabled) return false;
    return (
      tokens > (native ? this.maxInput(agent) : this.limit(agent)) ||
      this.#deps.history.viewSize().bytes > MAX_VIEW_BYTES
    );
  }

  /**
   * The input tokens a request may carry before our own summary compacts (README "Long sessions"): the threshold
   * share of the window, and no more than `maxInput`.
   */
  limit(agent: AgentConfig): number {
    return Math.min(Math.floor(this.window(agent) * Compactor.config(agent).threshold), this.maxInput(agent));
  }

  /**
   * The most input tokens a request can carry: the window less the output limit the request carries (its
   * `max_tokens`: Anthropic and vLLM refuse input + max_tokens > window). An output limit of the whole window or
   * more leaves no input at all, a config no server answers: there the whole window.
   */
  maxInput(agent: AgentConfig): number {
    const window = this.window(agent);
    const output = getAdapter(agent.model.provider).outputTokens(agent.model);
    return output < window ? window - output : window;
  }

  /** Estimated tokens of the view as stored (its messages, each sized once, and the preamble); reads the view. */
  viewTokens(): number {
    const { history } = this.#deps;
    const pre = history.preamble();
    return history.messages().reduce((n, m) => n + messageTokens(m), 0) + (pre ? messageTokens(pre) : 0);
  }

  /**
   * Context use of the view, for GET /v1/sessions/{id} (no agent config at hand: the stored parts only). A view
   * not in memory (an object just started) is estimated from its stored sizes (`sizeTokens`), so a poll parses none
   * of the history; the first step reads it, and from then on the figure is `viewTokens`.
   */
  usage(): { estimated_tokens: number; view_start_seq: number; compactions: number } {
    const { history } = this.#deps;
    const pre = history.preamble();
    const tokens = history.cachedMessages()
      ? this.viewTokens()
      : sizeTokens(history.viewSize()) + (pre ? messageTokens(pre) : 0);
    return {
      estimated_tokens: tokens,
      view_start_seq: history.viewStart(),
      compactions: countCompactions(this.#deps.storage.sql),
    };
  }

  /**
   * Summarises the view before a safe boundary and stores the record.
   * `turnId`: the running turn, cut inside only at a step boundary of its request (`chooseCut`).
   */
  async compact(agent: AgentConfig, given: CompactOptions): Promise<CompactionOutcome> {
    if (this.#running) {
      // A turn needs the room now: an on-demand compaction gives way (stopped, it stores nothing).
      if (given.turnId === null || this.#running.turnId !== null) {
        return { ok: false, reason: "a compaction is already running" };
      }
      this.#running.stop.abort();
      await this.#running.done.catch(() => {});
      if (this.#running) return { ok: false, reason: "a compaction is already running" };
    }
    const stop = new AbortController();
    const opts = { ...given, signal: AbortSignal.any([given.signal, stop.signal]) };
    let finished: () => void = () => {};
    this.#running = { turnId: opts.turnId, stop, done: new Promise<void>((r) => (finished = r)) };
    const attributes = { "switchboard.turn_id": opts.turnId ?? undefined, "switchboard.tokens": opts.tokensBefore };
    try {
      // The span covers the summary request(s) and the write; it carries context_compacted's data, or the reason.
      return await inSpan("switchboard.compaction", attributes, async (span) => {
        const outcome = await this.#compact(agent, opts);
        span.setAttributes(
          outcome.ok
            ? { "switchboard.compacted": true, ...attributesOf({ ...outcome.info, ...this.#unavailable(agent) }) }
            : { "switchboard.compacted": false, ...attributesOf({ reason: outcome.reason }) },
        );
        // A smaller context (the event and span said why ours ran): the provider may compact again when it grows
        // back past the trigger.
        if (outcome.ok) this.#droppedNative = null;
        return outcome;
      });
    } finally {
      this.#running = null;
      finished();
    }
  }

  /** Stops an on-demand compaction in flight (the session is being deleted or cleared): it stores nothing. */
  stopOnDemand(): void {
    if (this.#running?.turnId === null) this.#running.stop.abort();
  }

  async #compact(agent: AgentConfig, opts: CompactOptions): Promise<CompactionOutcome> {
    const { history, tools } = this.#deps;
    const cfg = Compactor.config(agent);
    const view = history.messages();
    const runningAt = opts.turnId === null ? -1 : view.findIndex((m) => m.turn_id === opts.turnId);
    const limit = runningAt === -1 ? view.length : runningAt;
    const sizes = view.map(messageTokens);
    const before = history.carried();
    const maxKeptTokens = Math.min(Math.floor(this.limit(agent) * 0.5), BYTE_BOUND_TOKENS);
    const cut = chooseCut(view, sizes, {
      limit,
      keepRecentTurns: cfg.keep_recent_turns,
      maxKeptTokens,
      running: opts.turnId !== null,
      carriedTokens: before ? carriedTokens(before) : null,
    });
    if (cut === null) return { ok: false, reason: noBoundary(view.length, opts.turnId) };
    // On demand nothing needs the room: the turns keep_recent_turns keeps stay whole when they fit (a turn that
    // must shrink its request summarises them instead).
    const turns = opts.turnId === null ? turnsBefore(view, limit, before !== null) : null;
    if (turns !== null && turns <= cfg.keep_recent_turns && sizes.reduce((n, t) => n + t, 0) <= maxKeptTokens) {
      return {
        ok: false,
        reason: `nothing to summarise: the history holds ${turns} turn${turns === 1 ? "" : "s"}, and keep_recent_turns keeps the ${cfg.keep_recent_turns} most recent verbatim`,
      };
    }
    const boundary = cut.at;
    // A cut that summarises the request the running turn answers carries it: its message in the view, or the one
    // carried now.
    const carried = cut.request === undefined ? null : (view[cut.request] ?? before);
    const summarised = view.slice(0, boundary);
    const kept = view.slice(boundary);
    const previous = latestCompaction(this.#deps.storage.sql);
    const boundarySeq = kept[0]?.seq ?? (view[view.length - 1]?.seq ?? history.viewStart()) + 1;

    const registry = this.#deps.tools.registry(agent);
    const summary = await summarise({
      agent,
      env: this.#deps.env,
      prior: previous?.summary ?? "",
      messages: summarised,
      limit: Math.min(this.limit(agent), BYTE_BOUND_TOKENS),
      window: this.window(agent),
      // A client tool's results are the client's answers (the user's own words): rendered whole.
      isClient: (name) => registry.get(name)?.source === "client",
      prefix: opts.prefix,
      signal: opts.signal,
      turnId: opts.turnId,
    });
    if (!summary.ok) return summary;

    // Tools: decided from the state now (a turn admitted while the summary streamed may have loaded one: its
    // messages are kept too); written with the record in one transaction.
    const pre = history.preamble();
    const keptNow = history.messages().filter((m) => m.seq >= boundarySeq);
    const { choice, snapshot } = toolChoice(
      this.#deps,
      agent,
      this.#toolBudget(agent),
      pre ? [pre, ...summarised] : summarised,
      keptNow,
      summary.text,
    );
    const removed = sizes.slice(0, boundary).reduce((n, t) => n + t, 0);
    const tokensAfter = Math.max(
      0,
      opts.tokensBefore -
        removed -
        (pre ? messageTokens(pre) : 0) +
        textTokens(summaryText(summary.text)) +
        textTokens(JSON.stringify(snapshot.declarations)) +
        (carried ? carriedTokens(carried) : 0),
    );
    // On demand, a summary no smaller than what it replaces is not stored: the context would only grow.
    if (opts.turnId === null && tokensAfter >= opts.tokensBefore) {
      return {
        ok: false,
        reason: `the summary would not make the context smaller (${opts.tokensBefore} estimated tokens before, ${tokensAfter} after)`,
      };
    }
    const stale = this.#transaction(() => {
      if (opts.current && !opts.current()) return "the session was cleared or deleted while the summary streamed";
      // Never move the view back (a record written meanwhile with a later boundary wins).
      const latest = latestCompaction(this.#deps.storage.sql);
      if (latest && latest.boundary_seq >= boundarySeq) return "a later compaction was stored meanwhile";
      insertCompaction(this.#deps.storage.sql, {
        boundary_seq: boundarySeq,
        summary: summary.text,
        tokens_before: opts.tokensBefore,
        tokens_after: tokensAfter,
        tools: snapshot,
        native: false,
        turn_id: opts.turnId,
        carried_seq: carried?.seq ?? null,
      });
      if (choice.dropped.length) tools.loaded.remove(choice.dropped);
      // The provider may compact again (`compact` forgets the size once the span has said why ours ran).
      if (this.#droppedNative !== null) clearDroppedNative(this.#deps.storage.sql);
      return null;
    });
    if (stale) return { ok: false, reason: stale };
    // The view now starts at the boundary: reloaded from storage on next use.
    history.viewMoved();
    this.#last = null;
    const info: CompactionInfo = {
      boundary_seq: boundarySeq,
      tokens_before: opts.tokensBefore,
      tokens_after: tokensAfter,
      tools_kept: choice.kept,
      tools_dropped: choice.dropped,
      native: false,
      summary_requests: summary.requests,
    };
    this.#deps.eventLog.record("context_compacted", opts.turnId, { ...info, ...this.#unavailable(agent) });
    return { ok: true, info };
  }

  /** Why the provider's own compaction could not be used where the agent asked for it (the event's and span's). */
  #unavailable(agent: AgentConfig): { native_unavailable?: string } {
    const plan = this.nativePlan(agent);
    return !plan.native && plan.reason !== null ? { native_unavailable: plan.reason } : {};
  }

  /**
   * Records a compaction the provider did (its `compaction` part, just written to the assistant
   * message `messageSeq`): the view starts at that message from now on, and the loaded tools are
   * decided as for ours. Synchronous SQL only: the caller runs it in the transaction that wrote the
   * part, so the part and its record are never apart. Null when a later record already exists.
   */
  recordNative(agent: AgentConfig, turnId: string, messageSeq: number, part: CompactionPart): CompactionInfo | null {
    const { history, tools } = this.#deps;
    const latest = latestCompaction(this.#deps.storage.sql);
    if (latest && latest.boundary_seq >= messageSeq) return null;
    const view = history.view();
    const at = view.findIndex((m) => m.seq === messageSeq);
    const summarised = at === -1 ? view : view.slice(0, at);
    const kept = at === -1 ? [] : view.slice(at);
    const { choice, snapshot } = toolChoice(
      this.#deps,
      agent,
      this.#toolBudget(agent),
      summarised,
      kept,
      part.content ?? "",
    );
    const tokensAfter =
      textTokens(part.content ?? "") +
      textTokens(part.encrypted ?? "") +
      kept.reduce((n, m) => n + messageTokens(m), 0) +
      textTokens(JSON.stringify(snapshot.declarations));
    insertCompaction(this.#deps.storage.sql, {
      boundary_seq: messageSeq,
      summary: part.content ?? "",
      tokens_before: this.#lastEstimate,
      tokens_after: tokensAfter,
      tools: snapshot,
      native: true,
      turn_id: turnId,
      carried_seq: null,
    });
    if (choice.dropped.length) tools.loaded.remove(choice.dropped);
    history.viewMoved();
    // The provider's next usage report describes the compacted context, not these bytes.
    this.#last = null;
    this.#natives++;
    const info: CompactionInfo = {
      boundary_seq: messageSeq,
      tokens_before: this.#lastEstimate,
      tokens_after: tokensAfter,
      tools_kept: choice.kept,
      tools_dropped: choice.dropped,
      native: true,
      summary_requests: 0,
    };
    this.#deps.eventLog.record("context_compacted", turnId, { ...info });
    // The provider did the work inside its request's span; this one marks the compaction with the event's figures.
    inSpan(
      "switchboard.compaction",
      { "switchboard.turn_id": turnId, "switchboard.compacted": true, ...attributesOf({ ...info }) },
      () => undefined,
    );
    return info;
  }

  /** The tokens the declarations a compaction keeps may take: the agent's `tool_budget_tokens`, or a tenth of the window. */
  #toolBudget(agent: AgentConfig): number {
    return Compactor.config(agent).tool_budget_tokens ?? Math.floor(this.window(agent) * 0.1);
  }

  #transaction<T>(fn: () => T): T {
    return sessionTx(this.#deps, fn);
  }
}

/**
 * A provider's compaction part as it is stored (in its assistant message's row, its content in its record's row
 * too): whole when it fits SUMMARY_BUDGET_BYTES. It goes back to the provider exactly as issued (its content is
 * sealed by its opaque state), so a larger one is never cut: it becomes a failed compaction (content null, a no-op
 * to the provider), and the history it would have replaced stays in the view. Pure.
 */
export function fitNative(part: CompactionPart): CompactionPart {
  if (jsonBytes(part) <= SUMMARY_BUDGET_BYTES) return part;
  return { type: "compaction", provider: part.provider, content: null };
}

/** Estimated tokens a preamble spends carrying the request of `m` (`preambleOf`: the note and the user's own parts). */
function carriedTokens(m: Message): number {
  return textTokens(CARRIED_NOTE) + textTokens(JSON.stringify(userParts(m)));
}

/** Why no boundary was found, in the words of the case at hand: an on-demand compaction has no running turn. */
function noBoundary(messages: number, turnId: string | null): string {
  if (messages === 0)
    return "there is no history to compact: no messages since the session began, was cleared or was compacted";
  if (turnId !== null) {
    return "nothing to compact at: no turn boundary before the running turn, and no finished step of the request it answers";
  }
  return "no turn boundary to compact at: history holds no finished turn, or a tool call before every boundary is unanswered";
}
