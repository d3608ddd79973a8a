/**
 * Input-token estimate of a provider request without a tokenizer: the
 * provider's reported input tokens of the previous request, plus the bytes
 * added since at ~4 bytes per token. With no report yet, bytes / 4.
 */
import type { Usage } from "../../model/stream";

/** Bytes of serialised request per input token, where no provider report says otherwise. */
export const BYTES_PER_TOKEN = 4;

export interface Observation {
  bytes: number;
  tokens: number;
}

export function estimateTokens(bytes: number, last: Observation | null): number {
  const plain = Math.ceil(bytes / BYTES_PER_TOKEN);
  if (!last) return plain;
  const est = last.tokens + Math.ceil((bytes - last.bytes) / BYTES_PER_TOKEN);
  // A report from a very different request (e.g. before a compaction) must not pull the estimate far down.
  return Math.max(est, Math.floor(plain / 2));
}

/** All input tokens of a reported usage (Anthropic reports cached prefix tokens separately). */
export function inputTokens(usage: Partial<Usage> | Record<string, number>): number | null {
  const u = usage as Partial<Usage>;
  if (typeof u.input_tokens !== "number") return null;
  return u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
}
