import type { StreamEvent } from "../model/stream";
import type { EventSourceMessage } from "./sse";
import { openSseStream } from "./transport";
import type { FetchLike, RetryPolicy } from "./types";

/** One protocol's stream state machine; it sees SSE events, never bytes or retries. */
export interface WireParser {
  /** Canonical events for one SSE event; throws ProviderFailure on a protocol error. */
  push(message: EventSourceMessage): StreamEvent[];
  /** At EOF: the closing events of a complete stream, or a thrown `provider_stream_cut`. */
  end(): StreamEvent[];
  /** The protocol's own end marker was seen; the rest of the body is not read. */
  readonly done: boolean;
}

/**
 * Runs one step: retries surface as `retry` events, completed blocks are
 * yielded as they finish, and a failure is thrown only after them, so the
 * session can persist every block that completed before the cut.
 */
export async function* driveStream(
  parser: WireParser,
  url: string,
  init: RequestInit,
  policy: RetryPolicy,
  signal: AbortSignal,
  fetchImpl: FetchLike,
): AsyncGenerator<StreamEvent, void, void> {
  for await (const item of openSseStream(url, init, policy, signal, fetchImpl)) {
    if (item.kind === "retry") {
      yield { type: "retry", ...item.notice };
      continue;
    }
    yield* parser.push(item.message);
    if (parser.done) return;
  }
  yield* parser.end();
}

/** Global fetch must be called unbound in workerd, hence the wrapper. */
export function resolveFetch(custom: FetchLike | undefined): FetchLike {
  return custom ?? ((input, init) => fetch(input, init));
}

export function trimBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "");
}
