// How the mock splits text and JSON into stream deltas.

/** Word-sized chunks ("Hello", " world", "!") whose concatenation is exactly `text`. */
export function wordChunks(text: string): string[] {
  return text.match(/\s*\S+|\s+/g) ?? [];
}

/** Split serialized JSON into fragments of at most `size` code points (never splitting a surrogate pair). */
export function jsonChunks(json: string, size = 10): string[] {
  const points = Array.from(json);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(""));
  return out;
}

/**
 * Rough token count for usage numbers and the emulated window (at least 1), as a tokenizer roughly reads text:
 * ASCII at 4 characters per token, a 2-byte UTF-8 script (Cyrillic, Greek, accents) at 2, a CJK character (any
 * other BMP character) one token and an emoji (outside the BMP) two.
 */
export function estimateTokens(text: string): number {
  if (!/[\u0080-\uffff]/.test(text)) return Math.max(1, Math.ceil(text.length / 4));
  let quarters = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    quarters += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 4 : 8;
  }
  return Math.max(1, Math.ceil(quarters / 4));
}

const TO_ANTHROPIC: Record<string, string> = { stop: "end_turn", tool_calls: "tool_use", length: "max_tokens" };
const TO_OPENAI: Record<string, string> = {
  end_turn: "stop",
  stop_sequence: "stop",
  tool_use: "tool_calls",
  max_tokens: "length",
  refusal: "content_filter",
};

/** Stop reason in Anthropic vocabulary, accepting either vocabulary as input. */
export function anthropicStopReason(given: string | undefined, hasToolCalls: boolean): string {
  if (given === undefined) return hasToolCalls ? "tool_use" : "end_turn";
  return TO_ANTHROPIC[given] ?? given;
}

/** finish_reason in OpenAI vocabulary, accepting either vocabulary as input. */
export function openaiFinishReason(given: string | undefined, hasToolCalls: boolean): string {
  if (given === undefined) return hasToolCalls ? "tool_calls" : "stop";
  return TO_OPENAI[given] ?? given;
}
