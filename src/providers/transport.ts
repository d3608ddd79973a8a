/**
 * The HTTP layer under every provider stream: `openSseStream` POSTs one request with retries and yields its
 * SSE messages and retry notices in arrival order. A JSON answer where an event stream was expected is refused
 * (provider_bad_response).
 */
import { backoffDelay, fetchWithRetry, type RetryNotice, sleep } from "./retry";
import { type EventSourceMessage, readSse, type SseProgress } from "./sse";
import { type FetchLike, ProviderFailure, type RetryPolicy } from "./types";

type TransportItem = { kind: "retry"; notice: RetryNotice } | { kind: "sse"; message: EventSourceMessage };

/**
 * POSTs one step and yields its SSE events, with retry notices interleaved
 * live (a client should see "retrying in 4 s" while we wait, not afterwards).
 * A 2xx whose body fails before its first byte is retried from the same
 * attempt budget: nothing was yielded, so nothing can be duplicated. Once a
 * byte arrived, any failure is final.
 */
export async function* openSseStream(
  url: string,
  init: RequestInit,
  policy: RetryPolicy,
  signal: AbortSignal,
  fetchImpl: FetchLike,
): AsyncGenerator<TransportItem, void, void> {
  // Our own controller, so a consumer that stops iterating also stops the fetch.
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  if (signal.aborted) controller.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  // Set once the body was read to its end, or handed to readSse, which cancels it when it stops early: either
  // way the fetch needs no abort (an abort after the cancel only repeats it, at a cost in every turn).
  let released = false;
  try {
    for (let used = 0; ; ) {
      released = false;
      const notices: RetryNotice[] = [];
      let wake: (() => void) | undefined;
      const onRetry = (notice: RetryNotice) => {
        notices.push(notice);
        wake?.();
      };
      const attemptsBefore = used;
      const pending = fetchWithRetry(url, init, policy, controller.signal, fetchImpl, onRetry, {
        attemptsUsed: used,
      }).then(
        (response) => ({ ok: true as const, response }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      let settled: Awaited<typeof pending> | undefined;
      while (settled === undefined) {
        // Resolves to undefined, which keeps the loop going: a notice arrived, the fetch is still on.
        const woke = new Promise<undefined>((resolve) => {
          wake = () => resolve(undefined);
        });
        if (notices.length === 0) settled = await Promise.race([pending, woke]);
        for (let notice = notices.shift(); notice; notice = notices.shift()) {
          used = notice.attempt;
          yield { kind: "retry", notice };
        }
      }
      if (!settled.ok) throw settled.error;
      used = Math.max(used, attemptsBefore) + 1;

      const response = settled.response;
      assertEventStream(response);
      const progress: SseProgress = { bytes: 0 };
      try {
        released = true;
        for await (const message of readSse(response.body!, policy, controller.signal, progress)) {
          yield { kind: "sse", message };
        }
        if (progress.bytes > 0) return;
        throw new ProviderFailure({
          code: "provider_stream_cut",
          message: "provider closed the stream before sending anything",
          retryable: true,
        });
      } catch (err) {
        const retry =
          progress.bytes === 0 && err instanceof ProviderFailure && err.error.retryable && used < policy.maxAttempts;
        if (!retry) throw err;
        const delay = backoffDelay(used - 1, policy);
        yield {
          kind: "retry",
          notice: { attempt: used, delay_ms: delay, status: response.status, reason: "empty_body" },
        };
        await sleep(delay, controller.signal);
      }
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    if (!released) controller.abort();
  }
}

/** A proxy that ignores `stream: true` answers JSON; say so instead of reporting a cut stream. */
function assertEventStream(response: Response): void {
  const type = response.headers.get("content-type") ?? "";
  if (response.body && !type.includes("application/json")) return;
  response.body?.cancel().catch(() => undefined);
  throw new ProviderFailure({
    code: "provider_bad_response",
    message: `provider answered ${type || "without a body"} instead of an event stream`,
    status: response.status,
    retryable: true,
  });
}
