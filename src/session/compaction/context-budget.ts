/**
 * The context budget of one session (`ContextBudget`): how big the next provider request is (its `textTokens`,
 * read against the provider's last usage report on that model and calibrated by what the provider counts per token
 * of that estimate, `ratio`) and how big it may be (the window, or a smaller one an overflow error named; the limit
 * our own summary compacts past; the most input a request can carry), which `nativePlan` reads to say whether the
 * provider compacts natively (native-plan.ts), and the view's context use for GET /v1/sessions/{id}. Held in
 * memory; it reads the view and the count of compactions, and writes only what the provider taught of the model
 * (learned-model.ts), so a restarted object knows it too; an overflow error's figures are read by overflow-wording.ts.
 */
import type { AgentConfig } from "../../agents/types";
import { DEFAULT_COMPACTION } from "../../agents/types";
import { getAdapter, promptSize } from "../../providers/index";
import { contextWindow, type ModelConfig, type StepRequest } from "../../providers/types";
import { MAX_VIEW_BYTES } from "../../storage/limits";
import type { HistoryStore } from "../history/history-store";
import { calibration, estimateTokens, inputTokens, type Observation, sizeTokens, textTokens } from "./estimate";
import { type Learned, modelKey, readLearned, writeLearned } from "./learned-model";
import { messageTokens } from "./message-tokens";
import { countNamed, windowNamed } from "./overflow-wording";
import { countCompactions } from "./records";

/**
 * The least room a summary is given in the requests after it (~1,000 characters; summarise.ts), however little the
 * conversation has beside what every request carries: where the user's newest request and this much do not fit
 * under the limit beside it, no compaction is made to (`crowded`), and where they do not fit in the most input a
 * request can carry, the turn fails (fixed-part.ts).
 */
export const MIN_SUMMARY_TOKENS = 250;

/**
 * How far the calibration ratio must move, as a share of the one in force, to be taken (and stored): a report
 * barely off the ratio changes no size and writes nothing, so a session of plain text, whose ratio stays 1, never
 * writes it.
 */
const RATIO_STEP = 0.1;

/**
 * Keeps count of a session's provider requests against the model's context window (README "Long sessions"):
 * estimates each request, says when the view must be compacted before it is sent (`over`) and how far
 * (`limit`); whether the provider does it is `nativePlan`'s (native-plan.ts). The compaction itself is `Compactor`'s.
 */
export class ContextBudget {
  /**
   * The last request's `textTokens` and the input tokens the provider reported for it, and the model it went to
   * (`modelKey`): another model's tokenizer counts differently, so its report is not read.
   */
  #last: { model: string; seen: Observation } | null = null;
  /**
   * What the provider taught of one model (`modelKey`): a window it reported in a context-length error, and the
   * calibration ratio of our estimate (`ratio`). An agent moved to another model, or to another configured window,
   * is sized by its own configuration and the plain estimate again (what that model teaches replaces this). Stored
   * as it is learned (learned-model.ts) and read when the object starts (`load`); `clear` deletes it.
   */
  #learned: Learned | null = null;
  /** The latest request estimate (what a native compaction reports as tokens_before). */
  #lastEstimate = 0;
  /**
   * What the latest request compacted for carried beside its conversation and the user's newest request in it
   * (`measurePrefix`), and the model it went to (`modelKey`): the room a compaction keeps to (`room`).
   */
  #prefix: { model: string; tokens: number; request: number } | null = null;
  /**
   * The size of the provider's compaction last dropped as too large to store (`Compactor.droppedNative`), until
   * one of ours compacts or the session is cleared: asked again, the provider would compact the same history into
   * a block as large on every step. Stored with it (dropped-native.ts), read when the object starts
   * (`Compactor.load`).
   */
  #droppedNative: number | null = null;

  readonly #sql: SqlStorage;
  readonly #history: HistoryStore;
  constructor(sql: SqlStorage, history: HistoryStore) {
    this.#sql = sql;
    this.#history = history;
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

  /** The latest request estimate (`estimate`). */
  get lastEstimate(): number {
    return this.#lastEstimate;
  }

  /** The size of the provider's compaction last dropped as too large to store, or null (`nativePlan` reads it). */
  get droppedNative(): number | null {
    return this.#droppedNative;
  }

  set droppedNative(bytes: number | null) {
    this.#droppedNative = bytes;
  }

  /**
   * A compaction moved the view: the provider's last usage report describes a context no longer sent, so the
   * estimate no longer reads it (the calibration ratio, true of the model, stays).
   */
  compacted(): void {
    this.#last = null;
  }

  /** The object starts: reads what the provider taught of the model before (`learn`). */
  load(): void {
    this.#learned = readLearned(this.#sql);
  }

  /**
   * The conversation is gone (cleared, or the storage wiped): the provider may compact again, and what its
   * requests taught (the last usage report, a learned window, the calibration ratio) goes with it. In memory only:
   * `Compactor.clear` deletes the stored record in its transaction (a wipe took it with the rest).
   */
  forget(): void {
    this.#droppedNative = null;
    this.#last = null;
    this.#learned = null;
    this.#prefix = null;
  }

  /** A request's size (`ContextBudget.size`), with its estimate kept as the latest. */
  measure(req: StepRequest): number {
    const size = ContextBudget.size(req);
    this.estimate(req.model, size);
    return size;
  }

  /**
   * The input tokens of a request of this `size` to `model`, given the provider's last report on that model and
   * its calibration ratio (`ratio`).
   */
  estimate(model: ModelConfig, size: number): number {
    this.#lastEstimate = this.#tokens(model, size);
    return this.#lastEstimate;
  }

  /**
   * The input tokens of `req` (`ContextBudget.size`), without taking them as the latest estimate: for a part of a
   * request (what it carries beside its conversation, `measurePrefix`), not one about to be sent. The lesser of two
   * readings: against the last report as a request is (a part of the reported request is at most what the report
   * says), and in proportion (its own size times the calibration ratio), since the last report may be an overflow
   * error's count for the whole request, of which the part is a share.
   */
  estimateOf(req: StepRequest): number {
    const size = ContextBudget.size(req);
    return Math.min(this.#tokens(req.model, size), estimateTokens(size, null, this.ratio(req.model)));
  }

  /**
   * `estimateOf` uncalibrated (a ratio of 1): the plain estimate of `req`, or less read against the last report.
   * What a turn's failure for good is read by (fixed-part.ts): the calibration ratio is what the history taught,
   * and a system prompt or a message of prose counts 0.7 to 1 of the estimate where a history of UUIDs counts ~2.5,
   * so read by that ratio the prose is counted two to three times over.
   */
  plainEstimateOf(req: StepRequest): number {
    const size = ContextBudget.size(req);
    return Math.min(this.#tokens(req.model, size, 1), size);
  }

  #tokens(model: ModelConfig, size: number, ratio = this.ratio(model)): number {
    const last = this.#last?.model === modelKey(model) ? this.#last.seen : null;
    return estimateTokens(size, last, ratio);
  }

  /**
   * What `model`'s provider counts per token of our estimate (`calibration`, at least 1): the latest its usage
   * reports or an overflow error showed, moved only by RATIO_STEP or more. Every size a compaction keeps to is
   * divided by it (the turns kept, the pieces of a summary request), so a history of ids and numbers is cut to
   * what the provider counts, not to a third of it.
   */
  ratio(model: ModelConfig): number {
    const learned = this.#learned;
    return learned !== null && learned.model === modelKey(model) ? learned.ratio : 1;
  }

  /** Records the provider's reported usage for a request of `size` to `model`, and what it says of the ratio. */
  observe(model: ModelConfig, size: number, usage: Record<string, number>): void {
    const tokens = inputTokens(usage);
    if (tokens === null || tokens <= 0) return;
    const key = modelKey(model);
    this.#last = { model: key, seen: { estimated: size, tokens } };
    this.#teach(key, null, calibration(size, tokens));
  }

  /**
   * The window budgets are computed from: the configured one, or a smaller one the provider reported for this
   * very model (`learn`). GET /v1/sessions/{id} shows it as `context_window`.
   */
  window(agent: AgentConfig): number {
    const configured = contextWindow(agent.model);
    const learned = this.#learned;
    return learned !== null &&
      learned.window !== null &&
      learned.window < configured &&
      learned.model === modelKey(agent.model)
      ? learned.window
      : configured;
  }

  /**
   * Learns from a context-length error to `model` for a request of `size`: the real window, when the error names
   * it (`windowNamed`), and the input tokens the provider counted (`countNamed`), which stand as that request's
   * usage report (the estimate reads them, and the ratio: `observe`); stored. Other wordings teach nothing.
   */
  learn(model: ModelConfig, message: string, size: number): void {
    const key = modelKey(model);
    const tokens = countNamed(message);
    if (tokens !== null) this.#last = { model: key, seen: { estimated: size, tokens } };
    this.#teach(key, windowNamed(message), tokens === null ? null : calibration(size, tokens));
  }

  /**
   * Takes what a report or an error taught of the model `key`: a window (null: none named) and a calibration ratio
   * (null: none measured), the ratio only when it moved by RATIO_STEP or more; stores the record when either
   * changed. A record of another model is replaced.
   */
  #teach(key: string, window: number | null, ratio: number | null): void {
    const known = this.#learned?.model === key ? this.#learned : null;
    const current = known?.ratio ?? 1;
    const moved = ratio !== null && Math.abs(ratio - current) >= current * RATIO_STEP;
    if (window === null && !moved) return;
    this.#learned = {
      model: key,
      window: window ?? known?.window ?? null,
      ratio: moved ? Math.ceil(ratio * 100) / 100 : current,
    };
    writeLearned(this.#sql, this.#learned);
  }

  /**
   * True when the view must be compacted before a request of this estimate is sent: the request is above `limit`
   * (`native`: above `maxInput`, the provider compacting at its trigger itself), or the view's messages take
   * more than MAX_VIEW_BYTES as stored, whatever the window (the object holds them in its 128 MB).
   */
  over(agent: AgentConfig, tokens: number, native = false): boolean {
    if (!ContextBudget.config(agent).enabled) return false;
    return (
      tokens > (native ? this.maxInput(agent) : this.limit(agent)) || this.#history.viewSize().bytes > MAX_VIEW_BYTES
    );
  }

  /**
   * The input tokens a request may carry before our own summary compacts (README "Long sessions"): the threshold
   * share of the window, and no more than `maxInput`.
   */
  limit(agent: AgentConfig): number {
    return Math.min(Math.floor(this.window(agent) * ContextBudget.config(agent).threshold), this.maxInput(agent));
  }

  /**
   * Takes what `req` carries beside its conversation (its system prompt and tools[], loaded tools included: a
   * compaction keeps those it can), estimated as `estimateOf` does, and the user's newest request in it (`request`:
   * its estimated tokens as a compaction keeps it, `Compactor.requestTokens`), as what the requests a compaction
   * makes room for carry (`room`, `crowded`). Measured for a request over the limit, not for every step.
   */
  measurePrefix(req: StepRequest, request: number): void {
    this.#prefix = {
      model: modelKey(req.model),
      tokens: this.estimateOf({ ...req, messages: [] }),
      request: Math.ceil(request * this.ratio(req.model)),
    };
  }

  /** `measurePrefix`'s record when it is of `agent`'s model, else null (none yet: an on-demand compaction). */
  #prefixOf(agent: AgentConfig): { tokens: number; request: number } | null {
    return this.#prefix?.model === modelKey(agent.model) ? this.#prefix : null;
  }

  /**
   * Whether `limit`, less what the latest request over it carried beside its conversation (`measurePrefix`), is
   * too little for the user's newest request and a summary's least (MIN_SUMMARY_TOKENS): no compaction could bring
   * a request under it, so requests are sent past it and compacted only when they could not be sent at all
   * (run-budgeted-step.ts), to `room` under the most input a request can carry.
   */
  crowded(agent: AgentConfig): boolean {
    const prefix = this.#prefixOf(agent);
    if (prefix === null) return false;
    const least = prefix.request + Math.ceil(MIN_SUMMARY_TOKENS * this.ratio(agent.model));
    return this.limit(agent) - prefix.tokens < least;
  }

  /**
   * The tokens a request's conversation may take before our own summary compacts (README "Long sessions"): `limit`
   * (`maxInput` when `crowded`) less what the latest request over it carried beside its conversation
   * (`measurePrefix`; nothing when none to this model was: an on-demand compaction before any). A compaction keeps
   * half of it and its summary takes at most a quarter, so the steps after it have room: sized from the whole limit,
   * a system prompt of half of it left none, and every step compacted.
   */
  room(agent: AgentConfig): number {
    const prefix = this.#prefixOf(agent)?.tokens ?? 0;
    return Math.max(0, (this.crowded(agent) ? this.maxInput(agent) : this.limit(agent)) - prefix);
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

  /**
   * `maxInput` in words: "the window (N tokens)", or "the window (N tokens) less the output limit (M tokens)" when
   * the output limit takes part of it.
   */
  inputRoom(agent: AgentConfig): string {
    const window = this.window(agent);
    const most = this.maxInput(agent);
    return most < window
      ? `the window (${window} tokens) less the output limit (${window - most} tokens)`
      : `the window (${window} tokens)`;
  }

  /** Estimated tokens of the view as stored (its messages, each sized once, and the preamble); reads the view. */
  viewTokens(): number {
    const history = this.#history;
    const pre = history.preamble();
    return history.messages().reduce((n, m) => n + messageTokens(m), 0) + (pre ? messageTokens(pre) : 0);
  }

  /**
   * Context use of the view, for GET /v1/sessions/{id} (the stored parts only), calibrated by `model`'s ratio when
   * the agent's model is at hand. A view not in memory (an object just started) is estimated from its stored sizes
   * (`sizeTokens`), so a poll parses none of the history; the first step reads it, and from then on the figure is
   * `viewTokens`.
   */
  usage(model?: ModelConfig): { estimated_tokens: number; view_start_seq: number; compactions: number } {
    const history = this.#history;
    const pre = history.preamble();
    const tokens = history.cachedMessages()
      ? this.viewTokens()
      : sizeTokens(history.viewSize()) + (pre ? messageTokens(pre) : 0);
    return {
      estimated_tokens: model ? Math.ceil(tokens * this.ratio(model)) : tokens,
      view_start_seq: history.viewStart(),
      compactions: countCompactions(this.#sql),
    };
  }
}
