/**
 * The shared driver of JSON-in, SSE-out provider protocols. A protocol supplies an SseProtocol (body, path,
 * headers) and a WireParser; `sseAdapter` makes the ProviderAdapter, whose stream (`driveStream`) yields retry
 * notices and canonical events and stops at the parser's end marker or EOF. Also the stop reasons the parsers share
 * (`cutReason`, `outputStop`), `trimBaseUrl` and `bearer` for the adapters.
 */
import type { StopReason, StreamEvent } from "../model/stream";
import { bodyText } from "./body-text";
import type { EventSourceMessage } from "./sse";
import { openSseStream } from "./transport";
import type {
  FetchLike,
  ModelConfig,
  ProviderAdapter,
  ProviderEndpoint,
  ProviderName,
  RetryPolicy,
  StepRequest,
} from "./types";

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
async function* driveStream(
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

/**
 * Why a stop reason means the tool call still streaming was cut off, or undefined when it was not.
 * The output limit and a refusal or content filter both end the output mid-call, and a cut call
 * never becomes a part (block_incomplete, DESIGN §3 P5): its input may be a prefix that parses.
 */
export function cutReason(stop: StopReason): string | undefined {
  if (stop === "max_tokens") return "the output hit max_tokens";
  if (stop === "refusal") return "the output was stopped by a refusal or content filter";
  return undefined;
}

/**
 * The stop reason of an OpenAI output (both protocols), from `stop`, what its finish maps to. An ordinary end with
 * `calls` complete calls is `tool_use` (some servers say "stop" after calls). OpenAI streams a refusal apart from
 * text (`delta.refusal`, a `refusal` content part) and ends it as any answer: with no complete call, its text
 * (`refused`) makes an ordinary end, or the output limit that cut it, a `refusal`.
 */
export function outputStop(stop: StopReason, calls: number, refused: boolean): StopReason {
  if (stop === "end_turn" && calls > 0) return "tool_use";
  if (refused && calls === 0 && (stop === "end_turn" || stop === "max_tokens")) return "refusal";
  return stop;
}

/** Global fetch must be called unbound in workerd, hence the wrapper. */
function resolveFetch(custom: FetchLike | undefined): FetchLike {
  return custom ?? ((input, init) => fetch(input, init));
}

export function trimBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "");
}

/** What one JSON-in, SSE-out protocol adds to the common request: its body, path, headers and parser. */
interface SseProtocol {
  readonly name: ProviderName;
  buildBody(req: StepRequest): Record<string, unknown>;
  /** The output limit `buildBody` sends for `model` (ProviderAdapter.outputTokens). */
  outputTokens(model: ModelConfig): number;
  /** ProviderAdapter.wireCallId; absent: the id as stored. */
  wireCallId?(id: string): string;
  /** ProviderAdapter.minCompactionTrigger; absent: 1. */
  readonly minCompactionTrigger?: number;
  /** ProviderAdapter.opaqueCompactionFrom. */
  readonly opaqueCompactionFrom?: string;
  /** Appended to the endpoint's base URL, e.g. `/v1/messages`. */
  readonly path: string;
  /** Auth and protocol headers (content-type and accept are common). */
  headers(req: StepRequest, endpoint: ProviderEndpoint): Record<string, string>;
  parser(): WireParser;
}

/** The adapter of an SSE protocol: POST the body (serialized once, see body-text.ts), drive the stream. */
export function sseAdapter(protocol: SseProtocol): ProviderAdapter {
  return {
    name: protocol.name,
    buildBody: protocol.buildBody,
    outputTokens: protocol.outputTokens,
    wireCallId: protocol.wireCallId ?? ((id) => id),
    minCompactionTrigger: protocol.minCompactionTrigger ?? 1,
    ...(protocol.opaqueCompactionFrom === undefined ? {} : { opaqueCompactionFrom: protocol.opaqueCompactionFrom }),
    async *stream(req, endpoint, policy, signal) {
      const headers = {
        "content-type": "application/json",
        accept: "text/event-stream",
        ...protocol.headers(req, endpoint),
      };
      const init: RequestInit = { method: "POST", headers, body: bodyText(req, protocol.buildBody) };
      const url = `${trimBaseUrl(endpoint.baseUrl)}${protocol.path}`;
      yield* driveStream(protocol.parser(), url, init, policy, signal, resolveFetch(endpoint.fetch));
    },
  };
}

/** `Authorization: Bearer <key>` when the endpoint has a key (OpenAI and compatible servers). */
export function bearer(endpoint: ProviderEndpoint): Record<string, string> {
  return endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {};
}
