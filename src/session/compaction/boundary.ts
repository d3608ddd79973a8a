/**
 * Where a compaction may cut history (README "Long sessions"). A boundary is
 * an index into the provider view: messages before it are summarised,
 * messages from it on are kept verbatim. It is safe when
 * - it is a turn boundary: the first message of a turn (a user message whose
 *   turn differs from the message before it), or the end of a history with no
 *   turn running that ends with an assistant message; or, when that first
 *   message opens with the results of the calls the turn before left open (a
 *   paused turn superseded by a new message: admission writes the results and
 *   the user's text as one message), the assistant message holding those calls,
 *   so the kept side opens summary → calls → results and the text (a session
 *   that pauses every turn, e.g. on an `ask_user` client tool, still compacts).
 *   A first message of results alone (a retry's, or `tool_results` with no
 *   text) goes on with the paused turn: it is cut there only when that turn
 *   carries no request of the user's own (else that turn's own boundary keeps
 *   the request with it), so a session that retries every pause, or answers
 *   each with results alone, still compacts. A view that starts partway through a turn (the latest compaction cut
 *   inside it, `carried`) holds that turn's request in its preamble: the turn carries one;
 * - no tool_use before it is still unanswered at it, so invariant P holds on
 *   both sides (the kept side never starts with a tool_result);
 * - it is not inside the running turn (at most that turn's first message);
 * - it is not a message of notices only (a retry's, whose failed turn's message must stay).
 * When no turn boundary keeps few enough tokens (the running turn alone is too large, or there is nothing before
 * it), the cut may fall at a step boundary instead (`chooseCut`): right after a message that answers every call
 * open before it, inside the user's request the running turn answers, which the view then carries verbatim after
 * the summary. The latest step (whose results the model has yet to read) is always kept, and a step whose calls are
 * still open (a pause) is never split. Any cut that summarises the request the running turn answers carries it so.
 * Pure functions, property-tested (test/unit/session/compaction/boundary.test.ts).
 */
import type { Message, Part } from "../../model/message";

/**
 * Indices `1..limit` that are safe boundaries, ascending. `carried`: the view's preamble carries a request (the
 * view starts partway through the turn that answers it).
 */
export function safeBoundaries(messages: readonly Message[], limit: number, carried: boolean): number[] {
  const out: number[] = [];
  const open = new Set<string>();
  // Whether no call was open before the previous message (it opened every call open now).
  let openedByPrevious = false;
  // Index of the first message of the previous message's turn (the paused turn, at a turn that supersedes it).
  let turnStart = 0;
  const end = Math.min(limit, messages.length);
  for (let i = 0; i <= end; i++) {
    const m = messages[i];
    const startsTurn = m?.role === "user" && m.turn_id !== messages[i - 1]?.turn_id && !noticeOnly(m);
    if (i > 0 && open.size === 0) {
      // The end only after an answer: a last user message (a failed turn) stays for /retry to re-run.
      if (m === undefined) {
        if (messages[i - 1]?.role === "assistant") out.push(i);
      } else if (startsTurn && !hasResults(m)) {
        out.push(i);
      }
    } else if (m && startsTurn && i > 1 && openedByPrevious && closesAll(m, open)) {
      // Cut before the calls instead: the pair stays together on the kept side. A message of results alone (a
      // retry's, or tool_results with no text) re-runs or goes on with the paused turn, whose request then stays
      // (its turn's own boundary keeps it); with none of the user's own (that turn opened with results alone too,
      // as every turn does in a session that retries each pause) there is nothing to keep and no other boundary.
      if (hasUserContent(m) || !hasRequest(messages, turnStart, carried)) out.push(i - 1);
    }
    if (m === undefined) break;
    if (m.turn_id !== messages[i - 1]?.turn_id) turnStart = i;
    openedByPrevious = open.size === 0 && m.role === "assistant";
    for (const p of m.parts) {
      if (p.type === "tool_use") open.add(p.id);
      else if (p.type === "tool_result") open.delete(p.tool_use_id);
    }
  }
  return out;
}

/**
 * Only service notices: the first message of a retry turn admitted after a tool-set change. Cutting there would
 * summarise the failed turn's own message, the request the retry re-runs.
 */
function noticeOnly(m: Message): boolean {
  return m.parts.length > 0 && m.parts.every((p) => p.type === "notice");
}

/** Answers every call in `open` (the store always closes them all at once). */
function closesAll(m: Message, open: ReadonlySet<string>): boolean {
  const answered = new Set(m.parts.flatMap((p) => (p.type === "tool_result" ? [p.tool_use_id] : [])));
  return [...open].every((id) => answered.has(id));
}

/** What the user sent in a message: its parts but results and service parts (notices, declarations). */
export function userParts(m: Message): Part[] {
  return m.parts.filter((p) => p.type !== "tool_result" && p.type !== "notice" && p.type !== "tool_declarations");
}

/** Carries something the user sent besides results and service parts: the message starts a new request. */
function hasUserContent(m: Message): boolean {
  return userParts(m).length > 0;
}

/**
 * Whether the turn opening at `start` answers a request of the user's own: its first message's content or, for a
 * retry of a failed turn (no message of its own, or notices only), the content of the failed turn's first message
 * (its last one is the results of its calls when it failed after a tool step), back through failed retries; or,
 * back at the view's first message, the request the preamble carries (`carried`: the view starts partway through
 * the turn that answers it, its request summarised with the steps before).
 */
function hasRequest(messages: readonly Message[], start: number, carried: boolean): boolean {
  let at = start;
  while (at > 0 && !(messages[at]?.role === "user" && !noticeOnly(messages[at] as Message))) {
    at--;
    while (at > 0 && messages[at - 1]?.turn_id === messages[at]?.turn_id) at--;
  }
  const request = messages[at];
  return (request?.role === "user" && hasUserContent(request)) || (at === 0 && carried);
}

function hasResults(m: Message): boolean {
  return m.parts.some((p) => p.type === "tool_result");
}

/**
 * The turns before `limit` (the running turn's first message): one per safe boundary (each ends a turn), and
 * one more when messages follow the latest (a failed or paused turn no later boundary closes). `carried` as for
 * `safeBoundaries`.
 */
export function turnsBefore(messages: readonly Message[], limit: number, carried: boolean): number {
  const candidates = safeBoundaries(messages, limit, carried);
  const last = candidates[candidates.length - 1] ?? 0;
  return candidates.length + (last < Math.min(limit, messages.length) ? 1 : 0);
}

interface BoundaryOptions {
  /** Index of the running turn's first message (the latest allowed boundary); `messages.length` when none runs. */
  limit: number;
  /** Turns kept verbatim after the boundary when they fit. */
  keepRecentTurns: number;
  /** Estimated tokens the kept messages may take; fewer turns are kept when more would not fit. */
  maxKeptTokens: number;
  /**
   * Estimated tokens of the request the view's preamble carries (the latest compaction cut inside a turn, so the
   * view starts partway through the turn that answers it); null when it carries none.
   */
  carriedTokens: number | null;
}

/**
 * The turn boundary to compact at, or null when there is none (nothing before the
 * running turn to summarise). `sizes[i]` is the estimated tokens of message i.
 */
export function chooseBoundary(
  messages: readonly Message[],
  sizes: readonly number[],
  opts: BoundaryOptions,
): number | null {
  const candidates = safeBoundaries(messages, opts.limit, opts.carriedTokens !== null);
  if (candidates.length === 0) return null;
  const suffix = keptTokens(sizes);
  const last = candidates.length - 1;
  // The latest candidate keeps only the running turn (or nothing); each step back keeps one more turn.
  let k = Math.max(0, last - opts.keepRecentTurns);
  while (k < last && (suffix[candidates[k] as number] ?? 0) > opts.maxKeptTokens) k++;
  return candidates[k] ?? null;
}

/** Kept tokens from each index to the end (`sizes.length` + 1 entries, the last 0). */
function keptTokens(sizes: readonly number[]): number[] {
  const suffix = new Array<number>(sizes.length + 1).fill(0);
  for (let i = sizes.length - 1; i >= 0; i--) suffix[i] = (suffix[i + 1] ?? 0) + (sizes[i] ?? 0);
  return suffix;
}

/**
 * Index of the last message at or before `limit` holding a request of the user's own: the request the running turn
 * answers, whether the turn opened with it or goes on with it (a retry, results alone after a pause); -1 when the
 * view holds none (the latest compaction carries it, or summarised it).
 */
export function requestIndex(messages: readonly Message[], limit: number): number {
  for (let i = Math.min(limit, messages.length - 1); i >= 0; i--) {
    const m = messages[i] as Message;
    if (m.role === "user" && hasUserContent(m)) return i;
  }
  return -1;
}

/**
 * Step boundaries from `from` on, ascending: each index right after a message that answers every call open
 * before it, so the kept side opens with the next step (or is empty) and never with a tool_result; the calls of a
 * step that is still open (a pause) stay with their results.
 */
export function stepBoundaries(messages: readonly Message[], from: number): number[] {
  const out: number[] = [];
  const open = new Set<string>();
  messages.forEach((m, i) => {
    let answers = false;
    for (const p of m.parts) {
      if (p.type === "tool_use") open.add(p.id);
      else if (p.type === "tool_result") {
        open.delete(p.tool_use_id);
        answers = true;
      }
    }
    if (answers && open.size === 0 && i >= from) out.push(i + 1);
  });
  return out;
}

/**
 * Where a compaction cuts: `at` as for `chooseBoundary`; `request` only for a cut that summarises the request the
 * running turn answers (a step boundary inside it, or a turn boundary before it: before the paused calls a turn of
 * results alone goes on with): the index of the request's message, carried verbatim into the view, or -1 when the
 * view does not hold it (the latest compaction carries it, or none does).
 */
interface Cut {
  at: number;
  request?: number;
}

/**
 * The cut for a compaction: the turn boundary (`chooseBoundary`) when it keeps at most `maxKeptTokens`; otherwise,
 * while a turn runs (`running`), the earliest later step boundary of its request whose kept messages and request
 * fit, or the latest one short of the end (the latest step stays whole); else that turn boundary however large. Null
 * when there is neither. While a turn runs, a cut after the request it answers carries that request, counted in what
 * it keeps (`carriedTokens` when the view does not hold it).
 */
export function chooseCut(
  messages: readonly Message[],
  sizes: readonly number[],
  opts: BoundaryOptions & { running: boolean },
): Cut | null {
  const turn = chooseBoundary(messages, sizes, opts);
  if (!opts.running) return turn === null ? null : { at: turn };
  const suffix = keptTokens(sizes);
  const request = requestIndex(messages, opts.limit);
  const carried = request === -1 ? (opts.carriedTokens ?? 0) : (sizes[request] ?? 0);
  const cut = (at: number): Cut => (request < at ? { at, request } : { at });
  const fits = (at: number) => (suffix[at] ?? 0) + (request < at ? carried : 0) <= opts.maxKeptTokens;
  if (turn !== null && fits(turn)) return cut(turn);
  // Never after the latest step: its results are what the model is about to read.
  const steps = stepBoundaries(messages, Math.max(request, 0)).filter(
    (at) => at < messages.length && (turn === null || at > turn),
  );
  if (steps.length === 0) return turn === null ? null : cut(turn);
  return cut(steps.find(fits) ?? (steps[steps.length - 1] as number));
}
