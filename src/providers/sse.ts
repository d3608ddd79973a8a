/**
 * Server-sent events for provider streams: `readSse` yields a response body's events under an idle timeout, a
 * step deadline and an abort signal, throwing ProviderFailure (`provider_idle_timeout`, `provider_step_timeout`,
 * `aborted`, `provider_stream_cut`); keep-alives hold the stream open for at most KEEP_ALIVE_WINDOWS idle windows
 * without a real event, and no stream outlasts the step deadline. `abortedFailure` is the failure a cancelled
 * request reports.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { ProviderFailure, type RetryPolicy } from "./types";

export type { EventSourceMessage };

/** The time limits of one stream: its idle window and its step deadline, both in ms. */
type StreamLimits = Pick<RetryPolicy, "idleTimeoutMs" | "stepTimeoutMs">;

/** Shared with the caller so it can tell "nothing ever arrived" from "cut mid-stream". */
export interface SseProgress {
  bytes: number;
}

type ReadOutcome = { done: true } | { done: false; value: Uint8Array };

/**
 * A keep-alive: Anthropic's `ping` event. SSE comments (OpenRouter's `: OPENROUTER PROCESSING`, a gateway's
 * `: keep-alive`) are keep-alives too, but the parser never makes them events. A provider sends them while it works
 * on something long (a large prompt's prefill, a server-side compaction), so they keep the stream alive, but only
 * for KEEP_ALIVE_WINDOWS idle windows in a row: a gateway that sends them while the model upstream is stuck would
 * otherwise keep a turn running forever.
 */
function keepAlive(event: EventSourceMessage): boolean {
  return event.event === "ping";
}

/** How many idle windows keep-alives alone may hold a stream open (10 minutes at the default 60 s window). */
export const KEEP_ALIVE_WINDOWS = 10;

/**
 * Reads an SSE body and yields its events (keep-alive events too). Throws ProviderFailure:
 * `provider_idle_timeout` when nothing arrives for `idleTimeoutMs`, or nothing but keep-alives for
 * KEEP_ALIVE_WINDOWS × `idleTimeoutMs`, `provider_step_timeout` when the body is still sending `stepTimeoutMs`
 * after the read began (a slow but steady provider, which neither idle bound ends),
 * `aborted` when `signal` fires, `provider_stream_cut` when the body errors.
 * A clean EOF just ends the iteration; deciding whether that EOF was
 * premature is protocol knowledge and belongs to the adapter.
 * An event left unterminated at EOF is dropped, as the SSE spec requires:
 * on a live connection it means the stream was cut.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  limits: StreamLimits,
  signal: AbortSignal,
  progress: SseProgress,
): AsyncGenerator<EventSourceMessage, void, void> {
  const reader = body.getReader();
  const watchdog = new Watchdog(reader, limits, signal);
  const decoder = new TextDecoder();
  const queue: EventSourceMessage[] = [];
  const parser = createParser({
    onEvent: (event) => {
      if (!keepAlive(event)) watchdog.progressed();
      queue.push(event);
    },
  });
  let finished = false;
  try {
    for (;;) {
      const chunk = await watchdog.read();
      if (chunk.done) {
        finished = true;
        parser.feed(decoder.decode());
      } else {
        progress.bytes += chunk.value.byteLength;
        watchdog.alive();
        parser.feed(decoder.decode(chunk.value, { stream: true }));
      }
      while (queue.length > 0) {
        yield queue.shift()!;
      }
      if (finished) return;
    }
  } finally {
    watchdog.stop();
    if (!finished) {
      // The consumer stopped early or we failed: release the connection.
      reader.cancel().catch(() => undefined);
    }
  }
}

/**
 * Ends a read with `provider_idle_timeout` when the stream sends nothing (`alive`: a chunk of any kind) for
 * `idleTimeoutMs`, or makes no progress (`progressed`: an event that is not a keep-alive) for KEEP_ALIVE_WINDOWS ×
 * `idleTimeoutMs`, with `provider_step_timeout` when it is still going `stepTimeoutMs` after it started, or
 * `aborted` when the signal fires. One timer and one abort listener per stream, not per chunk: a chunk or an event
 * only notes its arrival time, and the timer, when it fires, sleeps again for what is left of the nearest bound.
 */
class Watchdog {
  #failure: ProviderFailure | null = null;
  #lastChunk = Date.now();
  #lastEvent = this.#lastChunk;
  /** When the step deadline passes: `stepTimeoutMs` after the watchdog started. */
  readonly #deadline: number;
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** Rejects the read in flight: a failure ends it at once, whatever the stream does with the cancel. */
  #interrupt: ((failure: ProviderFailure) => void) | null = null;
  readonly #onAbort = () => this.#fail(abortedFailure());
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #idleTimeoutMs: number;
  readonly #stepTimeoutMs: number;
  readonly #signal: AbortSignal;

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>, limits: StreamLimits, signal: AbortSignal) {
    this.#reader = reader;
    this.#idleTimeoutMs = limits.idleTimeoutMs;
    this.#stepTimeoutMs = limits.stepTimeoutMs;
    this.#deadline = this.#lastChunk + limits.stepTimeoutMs;
    this.#signal = signal;
    if (signal.aborted) this.#failure = abortedFailure();
    else signal.addEventListener("abort", this.#onAbort, { once: true });
    this.#arm(Math.min(limits.idleTimeoutMs, limits.stepTimeoutMs));
  }

  async read(): Promise<ReadOutcome> {
    if (this.#failure) throw this.#failure;
    let result: ReadableStreamReadResult<Uint8Array>;
    try {
      result = await new Promise<ReadableStreamReadResult<Uint8Array>>((resolve, reject) => {
        this.#interrupt = reject;
        this.#reader.read().then(resolve, reject);
      });
    } catch (err) {
      throw (
        this.#failure ??
        (this.#signal.aborted
          ? abortedFailure()
          : new ProviderFailure({
              code: "provider_stream_cut",
              message: `provider stream failed: ${err instanceof Error ? err.message : String(err)}`,
              retryable: true,
            }))
      );
    } finally {
      this.#interrupt = null;
    }
    // A cancel (timeout, abort) ends the pending read as if the stream were done: report why instead.
    if (this.#failure) throw this.#failure;
    return result.done ? { done: true } : { done: false, value: result.value };
  }

  /** The stream sent something (a keep-alive, say): the idle window starts again now. */
  alive(): void {
    this.#lastChunk = Date.now();
  }

  /** The stream made progress (an event that is not a keep-alive): the keep-alives' allowance starts again now. */
  progressed(): void {
    this.#lastEvent = Date.now();
  }

  stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#signal.removeEventListener("abort", this.#onAbort);
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => {
      const now = Date.now();
      const silent = now - this.#lastChunk;
      const stalled = now - this.#lastEvent;
      const allowance = KEEP_ALIVE_WINDOWS * this.#idleTimeoutMs;
      const left = this.#deadline - now;
      const idle = silent >= this.#idleTimeoutMs || stalled >= allowance;
      if (!idle && left > 0) return this.#arm(Math.min(this.#idleTimeoutMs - silent, allowance - stalled, left));
      this.#fail(
        idle
          ? new ProviderFailure({
              code: "provider_idle_timeout",
              message:
                silent >= this.#idleTimeoutMs
                  ? `provider sent nothing for ${this.#idleTimeoutMs} ms`
                  : `provider sent nothing but keep-alives for ${allowance} ms`,
              retryable: true,
            })
          : // Steady but too slow: the same request again would most likely run as long, so it is not retried.
            new ProviderFailure({
              code: "provider_step_timeout",
              message: `provider was still streaming at the step deadline of ${this.#stepTimeoutMs} ms`,
              retryable: false,
            }),
      );
    }, ms);
  }

  #fail(failure: ProviderFailure): void {
    if (this.#failure) return;
    this.#failure = failure;
    this.stop();
    this.#interrupt?.(failure);
    this.#reader.cancel(failure).catch(() => undefined);
  }
}

export function abortedFailure(): ProviderFailure {
  return new ProviderFailure({ code: "aborted", message: "request aborted", retryable: false });
}
