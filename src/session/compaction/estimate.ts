/**
 * Input-token estimate of a provider request without a tokenizer: `textTokens` sizes text per code point
 * class (the one estimate every compaction size uses), `sizeTokens` approximates it from stored sizes alone,
 * `calibration` is what the provider counts per token of it, and `estimateTokens` adds to it the provider's
 * reported input tokens of the previous request.
 */
import type { Usage } from "../../model/stream";
import { headChars } from "../../storage/fit";

/**
 * Estimated tokens of one UTF-16 code unit, in quarter tokens. Tokenizers read ASCII at ~4 characters per
 * token, but far fewer characters per token elsewhere: a CJK character is ~1 token (3 UTF-8 bytes, so bytes / 4
 * would count it as 3/4) and an emoji often 2 or more (4 bytes, counted as 1). Counted conservatively, so that a
 * compaction sized by it fits: 2-byte scripts (Latin accents, Cyrillic, Greek, Arabic, Hebrew) half a token,
 * other BMP characters one, and a character outside the BMP (a surrogate pair: emoji) two, one per unit.
 * No unit weighs more than a token, so a text of n units is at most n tokens.
 */
function unitQuarters(code: number): number {
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  return 4;
}

const NON_ASCII = /[\u0080-\uffff]/;
const ASCII_RUNS = /[^\u0080-\uffff]+/g;

/** Estimated tokens of `text` (at least 0): ASCII at 4 characters per token, other scripts per character. */
export function textTokens(text: string): number {
  // The usual request body is ASCII throughout (CJK is sent unescaped): one scan, no per-character loop.
  if (!NON_ASCII.test(text)) return Math.ceil(text.length / 4);
  // Mostly ASCII with a few other characters (a quote mark, an accent): the ASCII runs are counted by what
  // removing them takes away, in native code; only the rest is read unit by unit (about 5x faster on 1 MB).
  const rest = text.replace(ASCII_RUNS, "");
  let quarters = text.length - rest.length;
  for (let i = 0; i < rest.length; i++) quarters += unitQuarters(rest.charCodeAt(i));
  return Math.ceil(quarters / 4);
}

/** The longest head of `text` whose `textTokens` is at most `tokens` (never ending inside a surrogate pair). */
export function headTokens(text: string, tokens: number): string {
  const budget = Math.max(0, tokens) * 4;
  if (!NON_ASCII.test(text)) return headChars(text, budget);
  let quarters = 0;
  for (let i = 0; i < text.length; i++) {
    quarters += unitQuarters(text.charCodeAt(i));
    if (quarters > budget) return headChars(text, i);
  }
  return text;
}

/**
 * Estimated tokens (`textTokens`) of stored text known only by its UTF-8 bytes and characters (code points), as
 * SQL reports them without the text being read into memory: each byte past a character's first adds 1.5 quarter
 * tokens. Exact for ASCII (a quarter each) and for CJK and other 3-byte characters (one token each); an eighth of a
 * token high per 2-byte character (accented Latin, Cyrillic: half a token each), and under for an emoji (5.5
 * quarters of its 8).
 */
export function sizeTokens(size: { bytes: number; chars: number }): number {
  return Math.ceil((size.chars + 1.5 * (size.bytes - size.chars)) / 4);
}

export interface Observation {
  /** `textTokens` of the request. */
  estimated: number;
  /** The input tokens the provider reported for it. */
  tokens: number;
}

/**
 * The most `calibration` takes: no text we know of counts denser than ~3 tokens per estimated token (base64 2.7
 * with o200k), so a count past this is of something else than the request we estimated (a scripted or garbled
 * error), and taken at this much, not as a ratio that would size every compaction to nothing.
 */
export const MAX_CALIBRATION = 4;

/**
 * What the provider counted per token of our estimate, from a request of `estimated` tokens (`textTokens`) it
 * counted as `tokens`: at least 1, at most MAX_CALIBRATION. Prose counts fewer than we estimate (o200k: ~0.7),
 * code about as many, and ids, numbers and base64 far more (a UUID list ~2.5, base64 ~2.7): such a history, sized by
 * the estimate alone, is 2-3 times what a compaction meant to keep.
 */
export function calibration(estimated: number, tokens: number): number {
  return estimated > 0 && tokens > estimated ? Math.min(tokens / estimated, MAX_CALIBRATION) : 1;
}

/**
 * The input tokens of a request whose `textTokens` is `estimated`, given the provider's report on an earlier one
 * and the model's `ratio` (`calibration`): the report plus the text added since, that text calibrated; with no
 * report (the first request, or the first after a compaction), the whole estimate calibrated.
 */
export function estimateTokens(estimated: number, last: Observation | null, ratio = 1): number {
  const calibrated = Math.ceil(estimated * ratio);
  if (!last) return calibrated;
  const est = last.tokens + Math.ceil((estimated - last.estimated) * ratio);
  // A report from a very different request (e.g. before a compaction) must not pull the estimate far down.
  return Math.max(est, Math.floor(calibrated / 2));
}

/** All input tokens of a reported usage (Anthropic reports cached prefix tokens separately). */
export function inputTokens(usage: Partial<Usage> | Record<string, number>): number | null {
  const u = usage as Partial<Usage>;
  if (typeof u.input_tokens !== "number") return null;
  return u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
}
