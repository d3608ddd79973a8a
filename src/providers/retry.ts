/**
 * Retrying a provider request until its response headers arrive: `fetchWithRetry` retries network errors,
 * connect timeouts and retryable statuses with capped jittered backoff or the provider's Retry-After, and throws
 * ProviderFailure once attempts run out, the wait asked for exceeds `retryAfterCapMs`, or the error is final.
 * Also the parsers it uses: Retry-After headers, provider error bodies, context-overflow detection.
 */
import type { RetryEvent } from "../model/stream";
import { asObj, asStr } from "./json";
import { abortedFailure } from "./sse";
import { type FetchLike, type ProviderError, ProviderFailure, type RetryPolicy } from "./types";

export type RetryNotice = Omit<RetryEvent, "type">;

interface RetryOptions {
  /** Attempts already spent on this step (by an earlier call), so the budget is shared. */
  attemptsUsed?: number;
  random?: () => number;
}

/** A provider asking for a longer pause than this is treated as "not now" rather than slept on. */
export function retryAfterCapMs(policy: RetryPolicy): number {
  return policy.maxDelayMs * 4;
}

/** Full jitter: spreads clients that failed together instead of retrying in lockstep. */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  return Math.floor(Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry) * random());
}

/** `retry-after-ms` (Anthropic/OpenAI extension) wins over `retry-after` (seconds or HTTP date). */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms);
  const raw = headers.get("retry-after")?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.ceil(Number.parseFloat(raw) * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

type AttemptResult =
  | { ok: true; response: Response }
  | { ok: false; retry: boolean; reason: string; status: number; failure: ProviderError; retryAfterMs?: number };

/**
 * One request with retries before any byte of the answer: network errors,
 * connect timeouts and retryable statuses are retried with capped, jittered
 * backoff; every retry is announced through `onRetry` before its sleep. The
 * returned response has an unread body, and nothing here ever re-sends once
 * that body is handed over.
 */
export async function fetchWithRetry(
  url: string,
  init: RequestInit,
  policy: RetryPolicy,
  signal: AbortSignal,
  fetchImpl: FetchLike,
  onRetry: (notice: RetryNotice) => void,
  options: RetryOptions = {},
): Promise<Response> {
  const random = options.random ?? Math.random;
  for (let attempt = (options.attemptsUsed ?? 0) + 1; ; attempt++) {
    const result = await attemptOnce(url, init, policy, signal, fetchImpl);
    if (result.ok) return result.response;
    if (!result.retry || attempt >= policy.maxAttempts) throw new ProviderFailure(result.failure);
    if (result.retryAfterMs !== undefined && result.retryAfterMs > retryAfterCapMs(policy)) {
      throw new ProviderFailure({
        ...result.failure,
        message: `${result.failure.message} (provider asked to retry after ${result.retryAfterMs} ms)`,
        retry_after_ms: result.retryAfterMs,
      });
    }
    const delay = result.retryAfterMs ?? backoffDelay(attempt - 1, policy, random);
    onRetry({ attempt, delay_ms: delay, status: result.status, reason: result.reason });
    await sleep(delay, signal);
  }
}

async function attemptOnce(
  url: string,
  init: RequestInit,
  policy: RetryPolicy,
  signal: AbortSignal,
  fetchImpl: FetchLike,
): Promise<AttemptResult> {
  if (signal.aborted) throw abortedFailure();
  const controller = new AbortController();
  let timedOut = false;
  let keepLinked = false;
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  // Covers the headers and, for error statuses, the error body too.
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error("connect timeout"));
  }, policy.connectTimeoutMs);
  const unreachable = (detail: string): AttemptResult => ({
    ok: false,
    retry: true,
    reason: timedOut ? "connect_timeout" : "network_error",
    status: 0,
    failure: { code: "provider_unreachable", message: `provider unreachable: ${detail}`, retryable: true },
  });
  try {
    let response: Response;
    try {
      response = await fetchImpl(url, { ...init, signal: controller.signal });
    } catch (err) {
      if (signal.aborted) throw abortedFailure();
      return unreachable(timedOut ? `no response within ${policy.connectTimeoutMs} ms` : errorText(err));
    }
    if (signal.aborted) throw abortedFailure();
    if (timedOut) {
      // Headers won the race against the timer only just: the body is already aborted.
      response.body?.cancel().catch(() => undefined);
      return unreachable(`no response within ${policy.connectTimeoutMs} ms`);
    }
    if (response.ok) {
      // The body outlives this attempt, so the caller's signal must still reach it.
      keepLinked = true;
      return { ok: true, response };
    }
    return await classifyErrorResponse(response, signal);
  } finally {
    clearTimeout(timer);
    if (!keepLinked) signal.removeEventListener("abort", onAbort);
  }
}

async function classifyErrorResponse(response: Response, signal: AbortSignal): Promise<AttemptResult> {
  const status = response.status;
  const text = await response.text().catch(() => "");
  if (signal.aborted) throw abortedFailure();
  const { message, type, code } = extractError(text);
  if (isContextOverflow(status, message, code)) {
    const failure: ProviderError = {
      code: "context_overflow",
      message: `provider returned HTTP ${status}: ${message}`,
      status,
      retryable: true,
    };
    return { ok: false, retry: false, reason: "context_overflow", status, failure };
  }
  const overloaded = status === 529 || status === 503 || type === "overloaded_error";
  const shouldRetry = response.headers.get("x-should-retry");
  const retry = shouldRetry === "true" ? true : shouldRetry === "false" ? false : isRetryableStatus(status);
  const detail = `provider returned HTTP ${status}${message ? `: ${message}` : ""}`;
  const failure: ProviderError = !retry
    ? { code: "provider_http_error", message: detail, status, retryable: false }
    : status === 429
      ? { code: "provider_rate_limited", message: detail, status, retryable: true }
      : overloaded
        ? { code: "provider_overloaded", message: detail, status, retryable: true }
        : { code: "provider_http_error", message: detail, status, retryable: true };
  const reason =
    status === 429 ? "rate_limited" : overloaded ? "overloaded" : status >= 500 ? "server_error" : `http_${status}`;
  const retryAfterMs = parseRetryAfter(response.headers);
  return retryAfterMs === undefined
    ? { ok: false, retry, reason, status, failure }
    : { ok: false, retry, reason, status, failure, retryAfterMs };
}

/**
 * A request longer than the model's window: Anthropic answers 400
 * `invalid_request_error` "prompt is too long: N tokens > M maximum", or for
 * older models "input length and `max_tokens` exceed context limit: N + M > W"
 * (the input plus the output budget); OpenAI answers 400 with
 * `code: "context_length_exceeded"`. Never re-sent as is; the turn compacts and
 * retries the step (README "Long sessions").
 */
function isContextOverflow(status: number, message: string, code?: string): boolean {
  return (status === 400 || status === 413) && isOverflowError(message, code);
}

/**
 * The context-length wording of the servers the adapters speak to (OpenAI-compatible ones name no code):
 * OpenAI and vLLM/sglang "maximum context length", Kimi "exceeded model token limit", Qwen (DashScope)
 * "Range of input length should be [1, N]", Ollama "prompt too long; exceeded max context length",
 * llama.cpp "exceeds the available context size", MiniMax "context window exceeds limit".
 */
const OVERFLOW_WORDING =
  /prompt is too long|maximum context length|exceed context limit|exceeded model token limit|range of input length should be|prompt too long|exceeds the available context size|context window exceeds limit/i;

/** `isContextOverflow` for an error with no HTTP status of its own: an error event inside a 200 stream. */
export function isOverflowError(message: string, code?: string): boolean {
  return code === "context_length_exceeded" || OVERFLOW_WORDING.test(message);
}

/** Both protocols wrap errors as `{error: {message, type}}` (OpenAI adds `code`); anything else is shown raw. */
function extractError(text: string): { message: string; type?: string; code?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    return { message: text.trim().slice(0, 500) };
  }
  const root = asObj(parsed);
  const inner = asObj(root?.error);
  const message = asStr(inner?.message) ?? asStr(root?.message) ?? asStr(root?.error) ?? text.slice(0, 500);
  const type = asStr(inner?.type) ?? asStr(root?.type);
  const code = asStr(inner?.code);
  return { message, ...(type === undefined ? {} : { type }), ...(code === undefined ? {} : { code }) };
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(abortedFailure());
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedFailure());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
