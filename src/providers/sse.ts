import { createParser, type EventSourceMessage } from "eventsource-parser";
import { ProviderFailure } from "./types";

export type { EventSourceMessage };

/** Shared with the caller so it can tell "nothing ever arrived" from "cut mid-stream". */
export interface SseProgress {
  bytes: number;
}

type ReadOutcome = { done: true } | { done: false; value: Uint8Array };

/**
 * Reads an SSE body and yields its events. Throws ProviderFailure:
 * `provider_idle_timeout` when no chunk arrives for `idleTimeoutMs`,
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
  const decoder = new TextDecoder();
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => queue.push(event) });
  let finished = false;
  try {
    for (;;) {
      const chunk = await readWithWatchdog(reader, idleTimeoutMs, signal);
      if (chunk.done) {
        finished = true;
        parser.feed(decoder.decode());
      } else {
        progress.bytes += chunk.value.byteLength;
        parser.feed(decoder.decode(chunk.value, { stream: true }));
      }
      while (queue.length > 0) {
        yield queue.shift()!;
      }
      if (finished) return;
    }
  } finally {
    if (!finished) {
      // The consumer stopped early or we failed: release the connection.
      reader.cancel().catch(() => undefined);
    }
  }
}

function readWithWatchdog(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  idleTimeoutMs: number,
  signal: AbortSignal,
): Promise<ReadOutcome> {
  return new Promise<ReadOutcome>((resolve, reject) => {
    if (signal.aborted) {
      reject(abortedFailure());
      return;
    }
    const fail = (failure: ProviderFailure) => {
      cleanup();
      reader.cancel(failure).catch(() => undefined);
      reject(failure);
    };
    const onAbort = () => fail(abortedFailure());
    const timer = setTimeout(
      () =>
        fail(
          new ProviderFailure({
            code: "provider_idle_timeout",
            message: `provider sent nothing for ${idleTimeoutMs} ms`,
            retryable: true,
          }),
        ),
      idleTimeoutMs,
    );
    const cleanup = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    reader.read().then(
      (result) => {
        cleanup();
        resolve(result.done ? { done: true } : { done: false, value: result.value });
      },
      (err: unknown) => {
        cleanup();
        reject(
          signal.aborted
            ? abortedFailure()
            : new ProviderFailure({
                code: "provider_stream_cut",
                message: `provider stream failed: ${err instanceof Error ? err.message : String(err)}`,
                retryable: true,
              }),
        );
      },
    );
  });
}

export function abortedFailure(): ProviderFailure {
  return new ProviderFailure({ code: "aborted", message: "request aborted", retryable: false });
}
