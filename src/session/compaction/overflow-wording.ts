/**
 * What a provider's context-length error names, read from its wording (`ContextBudget.learn`): the model's window
 * (`windowNamed`) and the input tokens the provider counted in the refused request (`countNamed`), for each server
 * whose wording says them.
 */

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
 * The overflow wordings that name the input tokens the provider counted in the refused request, each capturing
 * them: Anthropic "prompt is too long: N tokens > W maximum" and "exceed context limit: N + M > W"; OpenAI "your
 * messages resulted in N tokens" (Responses: "your input resulted in N tokens"); vLLM "you requested T tokens (N in
 * the messages, M in the completion)" and "your request has N input tokens"; llama.cpp "request (N tokens) exceeds
 * the available context size". A bare "you requested T tokens" counts the output limit too, and is not read.
 */
const COUNT_WORDING = [
  /prompt is too long: (\d+) tokens/i,
  /exceed context limit: (\d+) \+ \d+ > \d+/i,
  /(?:messages|input) resulted in (\d+) tokens/i,
  /\((\d+) in the messages/i,
  /request has (\d+) input tokens/i,
  /request \((\d+) tokens?\) exceeds/i,
];

/** The first number `wordings` capture in `message`, or null. */
function named(message: string, wordings: readonly RegExp[]): number | null {
  for (const wording of wordings) {
    const n = Number(wording.exec(message)?.[1]);
    if (Number.isFinite(n) && n > 0) return n;
  }
  return null;
}

/** The model's window an overflow error `message` names (WINDOW_WORDING), or null. */
export function windowNamed(message: string): number | null {
  return named(message, WINDOW_WORDING);
}

/** The input tokens an overflow error `message` says the provider counted (COUNT_WORDING), or null. */
export function countNamed(message: string): number | null {
  return named(message, COUNT_WORDING);
}
