/**
 * `streamFailure`: the one classification of an error event inside a 200 stream, shared by the three stream
 * parsers, so the same event gets the same code whichever protocol carried it.
 */
import { asStr, type Obj } from "./json";
import { isOverflowError } from "./retry";
import { ProviderFailure } from "./types";

/** Names a rate limit goes by: Anthropic `rate_limit_error`, OpenAI `rate_limit_exceeded`, the Responses API `too_many_requests`. */
const RATE_LIMITED = new Set(["rate_limit_error", "rate_limit_exceeded", "too_many_requests"]);
/** Anthropic's overloaded API (an HTTP 529 when it is not yet streaming). */
const OVERLOADED = new Set(["overloaded_error"]);

/**
 * An error event after the response headers (so never re-sent by fetchWithRetry): the error object of Anthropic's
 * `error` event, of an OpenAI-compatible error chunk, or of a Responses `error` event or failed response, each
 * `{message, type?, code?}`. It gets the code its HTTP twin would: a context-length error is a `context_overflow`
 * (the turn compacts and retries the step, README "Long sessions"), a rate limit `provider_rate_limited`, an
 * overloaded API `provider_overloaded`, anything else `provider_stream_error`; all are retryable. vLLM and sglang
 * answer a request over the window with 200 and then such an error, naming no code.
 */
export function streamFailure(error: Obj | undefined): ProviderFailure {
  const type = asStr(error?.type);
  const code = asStr(error?.code);
  const text = asStr(error?.message) ?? JSON.stringify(error ?? {}).slice(0, 300);
  const name = code ?? type;
  const message = `provider stream error${name ? ` ${name}` : ""}: ${text}`;
  const names = [type, code];
  const kind = isOverflowError(text, code)
    ? "context_overflow"
    : names.some((n) => n !== undefined && RATE_LIMITED.has(n))
      ? "provider_rate_limited"
      : names.some((n) => n !== undefined && OVERLOADED.has(n))
        ? "provider_overloaded"
        : "provider_stream_error";
  return new ProviderFailure({ code: kind, message, retryable: true });
}
