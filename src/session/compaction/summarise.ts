/**
 * `summarise`: our own summary of what a compaction summarises (the previous summary plus the messages before the
 * cut), written by the agent's own model in as many requests as the budget needs, each within the context
 * budget's limit (README "Long sessions"). The compactor decides when and where to cut and stores the result.
 */
import type { AgentConfig } from "../../agents/types";
import type { Env } from "../../env";
import type { Message } from "../../model/message";
import { cutText } from "../../storage/fit";
import { SUMMARY_BUDGET_BYTES } from "../../storage/limits";
import { MIN_SUMMARY_TOKENS } from "./context-budget";
import { textTokens } from "./estimate";
import { opaqueCompaction } from "./native-view";
import { type RequestPrefix, requestSummary } from "./summary-request";
import {
  capSummary,
  IDS_INSTRUCTION,
  SUMMARY_SYSTEM,
  summaryLines,
  summaryPrompt,
  transcriptLines,
  transcriptPieces,
} from "./transcript";

/** The least room a piece of transcript needs for a summary request to be worth sending (~1,000 characters). */
const MIN_PIECE_TOKENS = 334;

interface SummariseInput {
  agent: AgentConfig;
  env: Env;
  /** The latest summary ("" when none): carried into the new one, or summarised again when too long to carry. */
  prior: string;
  messages: readonly Message[];
  /** The input tokens one summary request may carry (the context budget's limit, bounded for memory). */
  limit: number;
  /**
   * The most tokens the summary may take in the requests after it (a share of the room the conversation has beside
   * what every request carries, `Compactor`), however much a summary request could carry.
   */
  most: number;
  /** The model's context window, in tokens. */
  window: number;
  /** Whether the named tool runs in the client: its results are the client's answers, rendered whole. */
  isClient: (name: string) => boolean;
  /**
   * Given when the model is told of `$tool` references: whether one to the call of this id passes its result. The
   * summary is asked to keep the ids of results the work may still need, and a result none passes is marked.
   */
  passable?: (id: string) => boolean;
  /** The triggering request's prefix (prompt-cache reuse); absent (on demand) = no tools, our own system. */
  prefix?: RequestPrefix;
  signal: AbortSignal;
  turnId: string | null;
}

/**
 * The summary of the prior summary plus `messages`, in as many requests as the budget needs, each within
 * `limit`. A summary is capped (`summaryCap`, and `most`, at least MIN_SUMMARY_TOKENS) so that the next compaction
 * can carry it beside a piece of transcript and the requests after it leave room for their steps; a prior one over
 * the cap (written under a larger window or threshold, or by the provider) is not
 * carried but summarised again, as the opening lines of the transcript.
 */
export async function summarise(
  input: SummariseInput,
): Promise<{ ok: true; text: string; requests: number } | { ok: false; reason: string }> {
  const { agent, prior, messages } = input;
  // Room for the summary carried and a piece in one request, in tokens: the limit less the prompt's own words and
  // our system, all counted a third over their `textTokens` (JSON escaping can grow ASCII text).
  const sent = (tokens: number) => Math.ceil((tokens * 4) / 3);
  const references = input.passable !== undefined;
  const free =
    input.limit - 300 - sent(textTokens(SUMMARY_SYSTEM)) - (references ? sent(textTokens(IDS_INSTRUCTION)) : 0);
  if (free < MIN_PIECE_TOKENS) return { ok: false, reason: "the context window is too small to summarise in" };
  const cap = Math.min(summaryCap(input.window, free), Math.max(MIN_SUMMARY_TOKENS, input.most));
  // Too long to carry: summarised again, as the transcript's opening lines.
  const resummarised = textTokens(prior) > cap;
  const carried = resummarised ? "" : prior;
  const lines = transcriptLines(messages, input.isClient, input.passable);
  const prefixTokens = input.prefix
    ? textTokens(input.prefix.system) + textTokens(JSON.stringify(input.prefix.tools))
    : 0;
  // The pieces when each request carries a summary of `reserve` sent tokens, with the prefix when it leaves a piece
  // at least half the room it has without it (else no tools at all rather than a different set: README "Long
  // sessions"). The prefix is kept for the provider's prompt cache, not for its meaning (the summariser's
  // instruction is in the request's own message): a prefix that shrank every piece to a sliver made one compaction
  // dozens of requests, each paying the prefix again; half the room bounds them at about twice as many as without.
  const cut = (reserve: number) => {
    const bare = free - reserve;
    const withPrefix = input.prefix !== undefined && bare - sent(prefixTokens) >= Math.max(MIN_PIECE_TOKENS, bare / 2);
    const room = bare - (withPrefix ? sent(prefixTokens) : 0);
    const size = Math.floor((room * 3) / 4);
    const all = resummarised ? [...summaryLines(prior), ...lines] : lines;
    return { prefix: withPrefix ? input.prefix : undefined, pieces: transcriptPieces(all, size) };
  };
  // One request carries the prior summary; after the first, each carries the summary so far (at most the cap).
  let plan = cut(sent(textTokens(carried)));
  if (plan.pieces.length > 1) plan = cut(sent(cap));
  const { prefix, pieces } = plan;
  let text = carried;
  let requests = 0;
  // A provider compaction no transcript line can show (its content is encrypted): the first request opens with
  // it, so the summary holds what it held; later pieces carry that summary on.
  let context = opaqueCompaction(messages, agent.model.provider);
  for (const piece of pieces) {
    requests++;
    const prompt = summaryPrompt(text, piece, references);
    const answer = await requestSummary(agent, input.env, prompt, prefix, {
      signal: input.signal,
      turnId: input.turnId,
      context,
    });
    context = undefined;
    if (!answer.ok) return answer;
    text = capSummary(answer.text, cap);
  }
  if (!text) return { ok: false, reason: "nothing to summarise" };
  // The record's row must hold it (a quarter of a multi-million-token window does not fit): cut, with a marker.
  return { ok: true, text: cutText(text, SUMMARY_BUDGET_BYTES), requests };
}

/**
 * The most tokens (`textTokens`) a summary may take, given `free`, the room of a summary request for the summary
 * it carries and a piece of transcript: a quarter of the window, half that room, and no more than leaves a piece
 * its least room, each counted a third over as a request carries it. So the next compaction under the same
 * budget can always carry it (under a smaller one, `summarise` summarises it again).
 */
function summaryCap(window: number, free: number): number {
  return Math.max(0, Math.floor((Math.min(window * 0.25, free / 2, free - MIN_PIECE_TOKENS) * 3) / 4));
}
