/**
 * Our own compaction (`compactBySummary`, the work of `Compactor.compact` once it runs alone): where to cut the view
 * (a safe boundary keeping at most half the room the limit leaves), the summary of what the cut leaves out
 * (summarise.ts), the tools kept and dropped (tool-choice.ts), and the record written in one transaction with the
 * loaded-set change, unless the conversation went or a later record was stored meanwhile; then `context_compacted`.
 * Nothing is written before the summary is complete.
 */
import type { AgentConfig } from "../../agents/types";
import type { Env } from "../../env";
import type { Message } from "../../model/message";
import type { EventLog } from "../../observability/event-log";
import { MAX_VIEW_BYTES } from "../../storage/limits";
import { type SessionStores, sessionTx } from "../session-tx";
import { chooseCut, turnsBefore, userParts } from "./boundary";
import type { CompactionInfo, CompactionOutcome } from "./compaction-info";
import { ContextBudget } from "./context-budget";
import { clearDroppedNative } from "./dropped-native";
import { textTokens } from "./estimate";
import { messageTokens } from "./message-tokens";
import { nativeUnavailable } from "./native-plan";
import { CARRIED_NOTE, insertCompaction, latestCompaction, summaryText } from "./records";
import { summarise } from "./summarise";
import type { RequestPrefix } from "./summary-request";
import { toolBudget, toolChoice } from "./tool-choice";

/** What a compaction works with: the session's stores, its storage, event log and env, and its context budget. */
export interface CompactionDeps extends SessionStores {
  storage: DurableObjectStorage;
  eventLog: EventLog;
  env: Env;
  /** The session's context budget: the limits a compaction keeps to, and what it tells of the view it moved. */
  budget: ContextBudget;
}

/** How a compaction is asked for: by a turn (its request, its prefix) or on demand. */
export interface CompactOptions {
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
 * Summarises the view before a safe boundary and stores the record (`Compactor.compact`, once no other compaction
 * runs). `opts.turnId`: the running turn, cut inside only at a step boundary of its request (`chooseCut`).
 */
export async function compactBySummary(
  deps: CompactionDeps,
  agent: AgentConfig,
  opts: CompactOptions,
): Promise<CompactionOutcome> {
  const { history, tools, budget } = deps;
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
  const previous = latestCompaction(deps.storage.sql);
  const boundarySeq = kept[0]?.seq ?? (view[view.length - 1]?.seq ?? history.viewStart()) + 1;

  const registry = deps.tools.registry(agent);
  const summary = await summarise({
    agent,
    env: deps.env,
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
    deps,
    agent,
    toolBudget(agent, budget),
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
  const stale = sessionTx(deps, () => {
    if (opts.current && !opts.current()) return "the session was cleared or deleted while the summary streamed";
    // Never move the view back (a record written meanwhile with a later boundary wins).
    const latest = latestCompaction(deps.storage.sql);
    if (latest && latest.boundary_seq >= boundarySeq) return "a later compaction was stored meanwhile";
    insertCompaction(deps.storage.sql, {
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
    if (budget.droppedNative !== null) clearDroppedNative(deps.storage.sql);
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
  deps.eventLog.record("context_compacted", opts.turnId, {
    ...info,
    ...nativeUnavailable(agent, budget),
  });
  return { ok: true, info };
}

/** Estimated tokens a preamble spends carrying the request of `m` (`preambleOf`: the note and the user's own parts). */
export function carriedTokens(m: Message): number {
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
