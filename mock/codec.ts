// The per-protocol surface the generic request handler (respond.ts) works through.
import type { IncomingHttpHeaders } from "node:http";
import type { BrainInput, JsonObject, Protocol, Rejection, ReplySpec } from "./types.ts";

export interface RequestContext {
  body: JsonObject;
  /** The exact request body text (used for usage estimates). */
  raw: string;
  model: string;
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
  /** The in-stream error frame (Anthropic `event: error`, OpenAI `data: {"error":…}`). */
  streamErrorFrame(type: string | undefined, message: string | undefined): string;
  /** Status used when a stream_error step meets a non-streaming request. */
  streamErrorStatus: number;
  malformedFrame: string;
  brainInput(body: JsonObject): BrainInput;
  /** The provider's real answer to a request longer than the model's window. */
  overflowError(tokens: number, window: number): ErrorSpec;
}
