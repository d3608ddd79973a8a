/**
 * Server-sent events for provider streams: `readSse` yields a response body's events under an idle timeout
 * and an abort signal, throwing ProviderFailure (`provider_idle_timeout`, `aborted`, `provider_stream_cut`);
 * keep-alives hold the stream open for at most KEEP_ALIVE_WINDOWS idle windows without a real event.
 * `abortedFailure` is the failure a cancelled request reports.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { ProviderFailure } from "./types";

export type { EventSourceMessage };

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
 * KEEP_ALIVE_WINDOWS × `idleTimeoutMs`,
 * `aborted` when `signal` fires, `provider_stream_cut` when the body errors.
 * A clean EOF just ends the iteration; deciding whether that EOF was
 * premature is protocol knowledge and belongs to the adapter.
 * An event left unterminated at EOF is dropped, as the SSE spec requires:
 * on a live connection it means the stream was cut.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  idleTimeoutMs: number,
  signal: AbortSignal,
  progress: SseProgress,
): AsyncGenerator<EventSourceMessage, void, void> {
  const reader = body.getReader();
  const watchdog = new Watchdog(reader, idleTimeoutMs, signal);
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
 * `idleTimeoutMs`, or `aborted` when the signal fires. One timer and one abort listener per stream, not per chunk:
 * a chunk or an event only notes its arrival time, and the timer, when it fires, sleeps again for what is left.
 */
class Watchdog {
  #failure: ProviderFailure | null = null;
  #lastChunk = Date.now();
  #lastEvent = this.#lastChunk;
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** Rejects the read in flight: a failure ends it at once, whatever the stream does with the cancel. */
  #interrupt: ((failure: ProviderFailure) => void) | null = null;
  readonly #onAbort = () => this.#fail(abortedFailure());
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #idleTimeoutMs: number;
  readonly #signal: AbortSignal;

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>, idleTimeoutMs: number, signal: AbortSignal) {
    this.#reader = reader;
    this.#idleTimeoutMs = idleTimeoutMs;
    this.#signal = signal;
    if (signal.aborted) this.#failure = abortedFailure();
    else signal.addEventListener("abort", this.#onAbort, { once: true });
    this.#arm(idleTimeoutMs);
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
      if (silent < this.#idleTimeoutMs && stalled < allowance) {
        return this.#arm(Math.min(this.#idleTimeoutMs - silent, allowance - stalled));
      }
      this.#fail(
        new ProviderFailure({
          code: "provider_idle_timeout",
          message:
            silent >= this.#idleTimeoutMs
              ? `provider sent nothing for ${this.#idleTimeoutMs} ms`
              : `provider sent nothing but keep-alives for ${allowance} ms`,
          retryable: true,
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
