/**
 * What no compaction can shrink: a step request's fixed part (`fixedPart`: its system prompt and the tools
 * declared with every request), and the failure of a turn whose fixed part alone is more input than a request can
 * carry (`fixedPartOverflow`), where compacting the conversation would only cost summary requests and fail again.
 */
import type { AgentConfig } from "../../agents/types";
import type { ErrorInfo } from "../../model/errors";
import type { StepRequest } from "../../providers/types";
import type { ToolRegistry } from "../../tools/registry";
import type { ContextBudget } from "./context-budget";

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
 * The turn's failure when `req`'s fixed part alone (estimated, `ContextBudget.estimateOf`) is over the most input
 * a request can carry (`maxInput`), else null: not retryable, as every request of the agent carries that part, and
 * naming what to change. `cause`: the provider's own refusal, quoted.
 */
export function fixedPartOverflow(
  budget: ContextBudget,
  agent: AgentConfig,
  reg: ToolRegistry,
  req: StepRequest,
  cause?: string,
): ErrorInfo | null {
  const tokens = budget.estimateOf(fixedPart(req, reg));
  const most = budget.maxInput(agent);
  if (tokens <= most) return null;
  const output = most < budget.window(agent) ? ", a smaller model.max_tokens" : "";
  return {
    code: "context_overflow",
    message:
      `the system prompt and the tools declared with every request take about ${tokens} tokens on their own, more ` +
      `than a request to this model can carry, ${budget.inputRoom(agent)}; compacting the conversation cannot ` +
      `make room, so every turn of this agent fails alike: shorten the system prompt, ` +
      `declare fewer tools with every request (mark some "defer": true)${output} or use a larger context window ` +
      `(model.context_window)${cause ? ` (${cause})` : ""}`,
    retryable: false,
  };
}
