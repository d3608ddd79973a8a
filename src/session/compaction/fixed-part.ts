/**
 * What no compaction can shrink: a step request's fixed part (`fixedPart`: its system prompt and the tools
 * declared with every request), and the failure of a turn whose fixed part alone is more input than a request can
 * carry, or leaves too little of it for the user's newest request and a summary (`fixedPartOverflow`), where
 * compacting the conversation would only cost summary requests and fail again.
 */
import type { AgentConfig } from "../../agents/types";
import type { ErrorInfo } from "../../model/errors";
import type { StepRequest } from "../../providers/types";
import type { ToolRegistry } from "../../tools/registry";
import { type ContextBudget, MIN_SUMMARY_TOKENS } from "./context-budget";

/**
 * `req` without its conversation: the system prompt (the deferred listing and the references note included) and
 * the tools sent whatever the history (the agent's non-deferred tools, the built-ins, a turn's structured_output).
 * A deferred tool, loaded or not, is left out: a compaction can unload it (README "Long sessions", tools across
 * compaction).
 */
function fixedPart(req: StepRequest, reg: ToolRegistry): StepRequest {
  return { ...req, messages: [], tools: req.tools.filter((t) => reg.get(t.name)?.deferred !== true) };
}

/**
 * The turn's failure, not retryable, when `req`'s fixed part leaves less of the most input a request can carry
 * (`maxInput`) than the user's newest request (`request`: its estimated tokens as a compaction keeps it,
 * `Compactor.requestTokens`) and a summary's least (MIN_SUMMARY_TOKENS) take: over it on its own, or beside that
 * request, where the request and a summary alone would fit. No compaction can then make a request fit: every step
 * would pay one, and a /retry of the request fails alike. Else null (a request too large on its own is the latest
 * step's to fail, retryable: the next message's turn summarises it). All three are read uncalibrated
 * (`ContextBudget.plainEstimateOf`, `request` as it is): the calibration ratio is the history's, and a ratio
 * taught by tool results of ids read a prose system prompt and message at two to three times what the provider
 * counts, so the turn failed for good where a compaction made it fit. A fixed part denser than the estimate is
 * then not caught here: its turn compacts and fails retryable. Names what to change; `cause`: the provider's own
 * refusal, quoted.
 */
export function fixedPartOverflow(
  budget: ContextBudget,
  agent: AgentConfig,
  reg: ToolRegistry,
  req: StepRequest,
  request: number,
  cause?: string,
): ErrorInfo | null {
  const tokens = budget.plainEstimateOf(fixedPart(req, reg));
  const most = budget.maxInput(agent);
  const output = most < budget.window(agent) ? ", a smaller model.max_tokens" : "";
  const quoted = cause ? ` (${cause})` : "";
  if (tokens > most) {
    return {
      code: "context_overflow",
      message:
        `the system prompt and the tools declared with every request take about ${tokens} tokens on their own, more ` +
        `than a request to this model can carry, ${budget.inputRoom(agent)}; compacting the conversation cannot ` +
        `make room, so every turn of this agent fails alike: shorten the system prompt, ` +
        `declare fewer tools with every request (mark some "defer": true)${output} or use a larger context window ` +
        `(model.context_window)${quoted}`,
      retryable: false,
    };
  }
  const least = request + MIN_SUMMARY_TOKENS;
  if (least > most || most - tokens >= least) return null;
  return {
    code: "context_overflow",
    message:
      `the system prompt and the tools declared with every request take about ${tokens} tokens, leaving ` +
      `${most - tokens} of what a request to this model can carry, ${budget.inputRoom(agent)}: less than the ` +
      `user's newest request (about ${request} tokens) and a summary of the conversation before it need, so no ` +
      `compaction can make the request fit: shorten the system prompt, declare fewer tools with every request ` +
      `(mark some "defer": true)${output}, use a larger context window (model.context_window) or send a shorter ` +
      `message${quoted}`,
    retryable: false,
  };
}
