// How a mock model counts the input tokens of a request (its usage reports, its emulated window, its compaction
// trigger): by `estimateTokens` (about 4 ASCII characters a token, the estimate Switchboard itself makes), or, once
// POST /_mock/tokenizer gives the model "o200k", as a real tokenizer reads the request, so ids, numbers and base64
// count far denser than that estimate (a UUID list ~2.5x) and prose lighter (~0.7x).
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { estimateTokens } from "./chunks.ts";

export type Tokenizer = "o200k";

/** Counts the input tokens of a request text (a JSON body, or a part of one). */
export type TokenCount = (text: string) => number;

/** Tokens per JSON object a model reads (a message's or a block's framing), beside the text of its values. */
const OBJECT_TOKENS = 3;

/**
 * o200k tokens of what the model reads in a JSON request text: every string value, plus OBJECT_TOKENS per object
 * (keys are the wire's, not the prompt's); a text that is not JSON is encoded whole.
 */
function o200kTokens(text: string): number {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return Math.max(1, encode(text).length);
  }
  let n = 0;
  const walk = (v: unknown): void => {
    if (typeof v === "string") n += encode(v).length;
    else if (Array.isArray(v)) for (const item of v) walk(item);
    else if (v !== null && typeof v === "object") {
      n += OBJECT_TOKENS;
      for (const item of Object.values(v)) walk(item);
    }
  };
  walk(value);
  return Math.max(1, n);
}

/** The count a model uses: its tokenizer's, or `estimateTokens` when it was given none. */
export function tokenCount(tokenizer: Tokenizer | undefined): TokenCount {
  return tokenizer === "o200k" ? o200kTokens : estimateTokens;
}
