/**
 * The thinking an Anthropic request asks for (`anthropicThinking`): none, a budget (`{type: "enabled",
 * budget_tokens}`) or adaptive thinking (`{type: "adaptive"}`, with `output_config.effort` when the agent sets one),
 * chosen by the agent's `capabilities.thinking` and, for `true`, by the model's name (`adaptiveByDefault`). A budget
 * is left out of a request that goes on with a tool loop whose first step holds no thinking: the API refuses such a
 * request with one (README "Long sessions"). Pure.
 */
import type { ModelCapabilities, ModelConfig, ThinkingMode } from "./types";

const THINKING_BUDGET = 4096;
/** The API refuses a smaller thinking budget. */
const MIN_THINKING_BUDGET = 1024;

/**
 * Models that take only adaptive thinking, `enabled` refused with a 400 (Claude Opus 4.7 and later Opus 4 models,
 * Mythos, Fable), and the later families (5 and up), which all take it. Matched anywhere in the name, so a
 * platform's prefix or suffix (`anthropic.claude-opus-4-7`, `claude-opus-4-7@20260416`) still matches; a date
 * suffix of an older model (`claude-opus-4-20250514`) does not.
 */
const ADAPTIVE_MODELS = /claude-(?:opus-4-[7-9](?!\d)|(?:opus|sonnet|haiku)-(?:[5-9]|[1-9]\d)(?!\d)|mythos|fable)/;

/** Whether `name` is a model that takes only adaptive thinking or is newer than those (`ADAPTIVE_MODELS`). */
export function adaptiveByDefault(name: string): boolean {
  return ADAPTIVE_MODELS.test(name);
}

/** The thinking mode an Anthropic model named `name` runs with under `capabilities.thinking`, null for none. */
export function thinkingMode(name: string, thinking: ModelCapabilities["thinking"]): ThinkingMode | null {
  if (thinking === false) return null;
  if (thinking === true) return adaptiveByDefault(name) ? "adaptive" : "enabled";
  return thinking;
}

/** The part of a projected message the check reads. */
interface WireMessage {
  role: "user" | "assistant";
  content: ReadonlyArray<{ type: string; content?: unknown }>;
}

/**
 * The request fields of `model`'s thinking (`thinking`, and `output_config` for an effort), none when it has none.
 * A budget must stay below `maxTokens`: a model configured too small runs without thinking.
 */
export function anthropicThinking(
  model: ModelConfig,
  maxTokens: number,
  messages: readonly WireMessage[],
): Record<string, unknown> {
  const mode = thinkingMode(model.name, model.capabilities.thinking);
  if (mode === "adaptive") {
    // Opus 4.7 and later send no thinking text unless asked ("omitted"); earlier models summarise by default.
    const fields: Record<string, unknown> = { thinking: { type: "adaptive", display: "summarized" } };
    if (model.effort) fields.output_config = { effort: model.effort };
    return fields;
  }
  const budget = Math.min(THINKING_BUDGET, maxTokens - 1);
  if (mode === null || budget < MIN_THINKING_BUDGET || !loopOpensWithThinking(messages)) return {};
  return { thinking: { type: "enabled", budget_tokens: budget } };
}

/**
 * With a budget, the API requires the tool loop a request goes on with (the assistant messages after the last user
 * message holding more than tool results, or from the latest compaction block, before which the API reads nothing)
 * to open with thinking or redacted thinking: "a final `assistant` message must start with a thinking block". A
 * loop's first step may hold none: a compaction inside the turn summarised it (a model that thinks only in a loop's
 * first response, as Claude 4.5 and earlier do without interleaved thinking, leaves none in the steps kept), it was
 * written by another provider (unsigned thinking is not sent), or thinking was turned on since. The API takes such a
 * request without thinking, so that step runs without it. Adaptive thinking has no such rule: the model itself may
 * answer any step without thinking. True when the request goes on with no tool loop (its last message is not tool
 * results alone).
 */
function loopOpensWithThinking(messages: readonly WireMessage[]): boolean {
  const last = messages[messages.length - 1];
  if (last?.role !== "user" || !onlyResults(last)) return true;
  let start = messages.length - 1;
  while (start > 0 && !(messages[start - 1]?.role === "user" && !onlyResults(messages[start - 1] as WireMessage))) {
    start--;
  }
  for (let i = messages.length - 1; i > start; i--) {
    // A compaction block that failed (content null) is a no-op the API reads past.
    if (messages[i]?.content.some((b) => b.type === "compaction" && b.content !== null)) {
      start = i;
      break;
    }
  }
  const first = messages[start];
  if (first?.role !== "assistant") return true;
  const lead = first.content.find((b) => b.type !== "compaction");
  return lead?.type === "thinking" || lead?.type === "redacted_thinking";
}

function onlyResults(message: WireMessage): boolean {
  return message.content.every((b) => b.type === "tool_result");
}
