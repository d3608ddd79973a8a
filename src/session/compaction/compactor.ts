/**
 * Context compaction for one session (`Compactor`): where to cut and which tools stay, our own summary records,
 * written when a step's request is over its context budget (context-budget.ts) or on POST /compact (the summary
 * itself: summarise.ts), and the provider's recorded (each fitted to its row: `fitNative`). One compaction runs at
 * a time; nothing is stored until a summary is complete.
 */
import type { AgentConfig } from "../../agents/types";
import type { Env } from "../../env";
import type { CompactionPart, Message } from "../../model/message";
import type { EventLog } from "../../observability/event-log";
import { attributesOf, inSpan } from "../../observability/tracing";
import { jsonBytes } from "../../storage/fit";
import { MAX_VIEW_BYTES, SUMMARY_BUDGET_BYTES } from "../../storage/limits";
import { type SessionStores, sessionTx } from "../session-tx";
import { chooseCut, requestIndex, turnsBefore, userParts } from "./boundary";
import { ContextBudget } from "./context-budget";
import { clearDroppedNative, readDroppedNative, writeDroppedNative } from "./dropped-native";
import { textTokens } from "./estimate";
import { clearLearned } from "./learned-model";
import { messageTokens } from "./message-tokens";
import { nativeUnavailable } from "./native-plan";
import { CARRIED_NOTE, insertCompaction, latestCompaction, summaryText } from "./records";
import { summarise } from "./summarise";
import type { RequestPrefix } from "./summary-request";
import { toolChoice } from "./tool-choice";

interface CompactionDeps extends SessionStores {
  storage: DurableObjectStorage;
  eventLog: EventLog;
  env: Env;
  /** The session's context budget: the limits a compaction keeps to, and what it tells of the view it moved. */
  budget: ContextBudget;
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
   * Keep only what no cut summarises (the user's request and the latest step): for a compaction that follows one
   * whose request was still over the limit (run-budgeted-step.ts), so that none follows it.
   */
  least?: boolean;
  /**
   * False once the conversation summarised is gone (cleared or deleted while the summary streamed): checked in
   * the write's transaction, so a summary of an erased conversation is never stored. Absent: always current.
   */
  current?: () => boolean;
}

/**
 * The most tokens a compaction keeps, and a summary request carries, whatever the window: a stored byte weighs at
 * least a quarter token (`textTokens`), so either holds at most half of MAX_VIEW_BYTES, and a view compacted for
 * its size is well below it after (README "Long sessions").
 */
const BYTE_BOUND_TOKENS = MAX_VIEW_BYTES / 8;

/**
 * Compacts a session's view when a request is over its context budget, or on demand (README "Long sessions"):
 * summarises the view up to a safe boundary with the agent's own model and stores a compaction record, or records
 * the compaction the provider did. Nothing is written until the summary is complete: a cut summary stream or a
 * crash leaves the session exactly as it was.
 */
export class Compactor {
  /**
   * One compaction at a time (a turn's and an on-demand one could otherwise interleave): the one in flight, whose
   * it is (a turn's, or null for POST /compact), how to stop it, and when it is done.
   */
  #running: { turnId: string | null; stop: AbortController; done: Promise<unknown> } | null = null;
  /**
   * Native compactions the provider answered with in this instance, recorded or dropped (a step compares it to
   * know whether its usage report is comparable: the report describes the compacted context).
   */
  #natives = 0;

  get natives(): number {
    return this.#natives;
  }

  /**
   * The provider's compaction of `bytes` was dropped as too large to store (`fitNative`): until our own summary
   * compacts, requests no longer ask the provider to compact, and our threshold applies
   * (`nativePlan`). Stored: the caller runs it in the transaction that writes the dropped block, so a
   * restarted object does not ask again either.
   */
  droppedNative(bytes: number): void {
    writeDroppedNative(this.#deps.storage.sql, bytes);
    this.#deps.budget.droppedNative = bytes;
    this.#natives++;
  }

  /**
   * The object starts: reads whether the provider's last compaction was dropped (`droppedNative`), and what the
   * provider taught of the model (`ContextBudget.load`).
   */
  load(): void {
    this.#deps.budget.droppedNative = readDroppedNative(this.#deps.storage.sql);
    this.#deps.budget.load();
  }

  /**
   * `clear` (in its transaction): the conversation the provider compacted is gone, so it may compact again; what
   * its requests taught (the last usage report, a learned window, stored or not) goes with it
   * (`ContextBudget.forget`).
   */
  clear(): void {
    clearDroppedNative(this.#deps.storage.sql);
    clearLearned(this.#deps.storage.sql);
    this.#deps.budget.forget();
  }

  readonly #deps: CompactionDeps;
  constructor(deps: CompactionDeps) {
    this.#deps = deps;
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
            ? {
                "switchboard.compacted": true,
                ...attributesOf({ ...outcome.info, ...nativeUnavailable(agent, this.#deps.budget) }),
              }
            : { "switchboard.compacted": false, ...attributesOf({ reason: outcome.reason }) },
        );
        // A smaller context (the event and span said why ours ran): the provider may compact again when it grows
        // back past the trigger.
        if (outcome.ok) this.#deps.budget.droppedNative = null;
        return outcome;
      });
    } finally {
      this.#running = null;
      finished();
    }
  }

  /**
   * Estimated tokens (`textTokens`) of the user's newest request as a compaction keeps it (the note and the user's
   * own parts, `carriedTokens`): the last message in the view with parts of the user's own, else the request the
   * view's preamble carries; 0 when there is neither.
   */
  requestTokens(): number {
    const { history } = this.#deps;
    const view = history.messages();
    const request = view[requestIndex(view, view.length - 1)] ?? history.carried();
    return request ? carriedTokens(request) : 0;
  }

  /** Stops an on-demand compaction in flight (the session is being deleted or cleared): it stores nothing. */
  stopOnDemand(): void {
    if (this.#running?.turnId === null) this.#running.stop.abort();
  }

  async #compact(agent: AgentConfig, opts: CompactOptions): Promise<CompactionOutcome> {
    const { history, tools, budget } = this.#deps;
    const cfg = ContextBudget.config(agent);
    const view = history.messages();
    const runningAt = opts.turnId === null ? -1 : view.findIndex((m) => m.turn_id === opts.turnId);
    const limit = runningAt === -1 ? view.length : runningAt;
    const sizes = view.map(messageTokens);
    const before = history.carried();
    // Every size here is our estimate (`textTokens`), of which the provider counts `ratio` tokens for each: the
    // turns kept and each summary request are sized by the calibrated estimate (README "Long sessions"), so a
    // history of ids and numbers is cut to half the room as the provider counts it, not to all of it. The room is
    // the limit less what every request carries beside the conversation (`ContextBudget.room`): half of it kept and
    // at most a quarter summarised leave the steps after the compaction a quarter or more.
    const ratio = budget.ratio(agent.model);
    const room = budget.room(agent);
    const maxKeptTokens = opts.least ? 0 : Math.min(Math.floor((room * 0.5) / ratio), BYTE_BOUND_TOKENS);
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
      limit: Math.min(Math.floor(budget.limit(agent) / ratio), BYTE_BOUND_TOKENS),
      most: Math.floor((room * 0.25) / ratio),
      window: budget.window(agent),
      // A client tool's results are the client's answers (the user's own words): rendered whole.
      isClient: (name) => registry.get(name)?.source === "client",
      // Told of `$tool` references, the model may pass an earlier result by its id: the summary keeps the ids.
      passable: registry.takesReferences() ? (id) => history.referencedValue(id).ok : undefined,
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
    const removed = sizes.slice(0, boundary).reduce((n, t) => n + t, 0) + (pre ? messageTokens(pre) : 0);
    const added =
      textTokens(summaryText(summary.text)) +
      textTokens(JSON.stringify(snapshot.declarations)) +
      (carried ? carriedTokens(carried) : 0);
    // As the provider counts it (calibrated), as tokensBefore is.
    const tokensAfter = Math.max(0, opts.tokensBefore - Math.ceil(removed * ratio) + Math.ceil(added * ratio));
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
      if (budget.droppedNative !== null) clearDroppedNative(this.#deps.storage.sql);
      return null;
    });
    if (stale) return { ok: false, reason: stale };
    // The view now starts at the boundary: reloaded from storage on next use.
    history.viewMoved();
    budget.compacted();
    const info: CompactionInfo = {
      boundary_seq: boundarySeq,
      tokens_before: opts.tokensBefore,
      tokens_after: tokensAfter,
      tools_kept: choice.kept,
      tools_dropped: choice.dropped,
      native: false,
      summary_requests: summary.requests,
    };
    this.#deps.eventLog.record("context_compacted", opts.turnId, {
      ...info,
      ...nativeUnavailable(agent, this.#deps.budget),
    });
    return { ok: true, info };
  }

  /**
   * Records a compaction the provider did (its `compaction` part, just written to the assistant
   * message `messageSeq`): the view starts at that message from now on, and the loaded tools are
   * decided as for ours. Synchronous SQL only: the caller runs it in the transaction that wrote the
   * part, so the part and its record are never apart. Null when a later record already exists.
   */
  recordNative(agent: AgentConfig, turnId: string, messageSeq: number, part: CompactionPart): CompactionInfo | null {
    const { history, tools, budget } = this.#deps;
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
    // As the provider counts it (`ContextBudget.ratio`), as tokens_before is.
    const tokensAfter = Math.ceil(
      (textTokens(part.content ?? "") +
        textTokens(part.encrypted ?? "") +
        kept.reduce((n, m) => n + messageTokens(m), 0) +
        textTokens(JSON.stringify(snapshot.declarations))) *
        budget.ratio(agent.model),
    );
    insertCompaction(this.#deps.storage.sql, {
      boundary_seq: messageSeq,
      summary: part.content ?? "",
      tokens_before: budget.lastEstimate,
      tokens_after: tokensAfter,
      tools: snapshot,
      native: true,
      turn_id: turnId,
      carried_seq: null,
    });
    if (choice.dropped.length) tools.loaded.remove(choice.dropped);
    history.viewMoved();
    // The provider's next usage report describes the compacted context, not these bytes.
    budget.compacted();
    this.#natives++;
    const info: CompactionInfo = {
      boundary_seq: messageSeq,
      tokens_before: budget.lastEstimate,
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
    return ContextBudget.config(agent).tool_budget_tokens ?? Math.floor(this.#deps.budget.window(agent) * 0.1);
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
