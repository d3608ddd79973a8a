// The per-protocol surface the generic request handler (respond.ts) works through.
import type { IncomingHttpHeaders } from "node:http";
import type { TokenCount } from "./tokenizer.ts";
import type { BrainInput, CompactionSpec, JsonObject, Protocol, Rejection, ReplySpec } from "./types.ts";

export interface RequestContext {
  body: JsonObject;
  /** The exact request body text (used for usage estimates). */
  raw: string;
  model: string;
  /** How the model counts input tokens (tokenizer.ts). */
  count: TokenCount;
}

export interface ErrorSpec {
  status: number;
  type?: string | undefined;
  message?: string | undefined;
  param?: string | null | undefined;
  code?: string | null | undefined;
}

export interface Codec {
  protocol: Protocol;
  /** Header carrying the request id on every response. */
  requestIdHeader: string;
  authReject(headers: IncomingHttpHeaders): Rejection | null;
  /** Rejection for a body that is not valid JSON. */
  parseReject(): Rejection;
  validate(body: unknown): Rejection | null;
  /** The provider's JSON error body for an HTTP error. */
  errorBody(error: ErrorSpec, requestId: string): string;
  streamFrames(reply: ReplySpec, ctx: RequestContext): string[];
  /** Non-streaming response body. */
  messageBody(reply: ReplySpec, ctx: RequestContext): string;
  /** The in-stream error frame (Anthropic `event: error`, OpenAI `data: {"error":…}`); `code`: OpenAI's error code. */
  streamErrorFrame(type: string | undefined, message: string | undefined, code?: string | undefined): string;
  /** Status used when a stream_error step meets a non-streaming request. */
  streamErrorStatus: number;
  malformedFrame: string;
  brainInput(body: JsonObject): BrainInput;
  /**
   * The provider's real answer to a request longer than the model's window; `output` is the request's output
   * limit when the window counts it too (`outputTokens`), else 0.
   */
  overflowError(tokens: number, window: number, output: number): ErrorSpec;
  /** The output limit a request asks for (Anthropic `max_tokens`, Chat `max_completion_tokens` or `max_tokens`, Responses `max_output_tokens`); 0 when it names none. */
  outputTokens(body: JsonObject): number;
  /** Server-side compaction, for a protocol that has it (Anthropic `compact_20260112`). */
  serverCompaction?: ServerCompaction;
}

/** The server-side compactions a model answered with, as `ServerCompaction.reject` reads them. */
export interface Issued {
  /** The opaque state of every one: any of them may come back (a faulted answer may still hand its compaction over). */
  all: ReadonlySet<string>;
  /** Whether one went out in an answer no fault could cut: the client holds it, so one must come back. */
  held: boolean;
}

export interface ServerCompaction {
  /** A request refused for its compaction config, its blocks, its beta header, or (once `issued` holds one the
   * client surely has) for carrying back none of the compactions this model answered with. */
  reject(body: JsonObject, headers: IncomingHttpHeaders, issued: Issued): Rejection | null;
  /** Input tokens the provider reads, as `count` counts them: what precedes the last compaction block is dropped. */
  tokens(body: JsonObject, count: TokenCount): number;
  /** The compaction to stream first when the config asks for one and `tokens` pass its trigger. */
  compact(body: JsonObject, tokens: number, count: TokenCount): CompactionSpec | null;
}
