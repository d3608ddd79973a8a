// Shared types of the mock model server: script steps, faults, rejections.

export type JsonObject = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export type Protocol = "anthropic" | "openai" | "openai-responses";

/** Fault injection for one response. Event counts refer to SSE frames (a JSON body is one frame). */
export interface Faults {
  /** Write exactly this many body bytes, then drop the connection (no clean end). */
  cut_after_bytes?: number;
  /** Pause between the last byte of a cut and the teardown (default 50 ms); sweeps use a few ms. */
  cut_grace_ms?: number;
  /** How a cut ends: "reset" (default) destroys the socket; "eof" ends the body early but cleanly. */
  cut_mode?: "reset" | "eof";
  /** Write this many complete frames, then drop the connection. */
  cut_after_events?: number;
  /** Wait this long before sending anything (status line and headers included). */
  stall_before_ms?: number;
  /** After this many frames, stop sending for `stall_ms` (default 0 when only stall_ms is given). */
  stall_after_events?: number;
  /** Length of the stall; absent = forever (until the client disconnects or the server closes). */
  stall_ms?: number;
  /** After this many frames, emit a frame whose data line is `{not json`, then go on. */
  malformed_after_events?: number;
  /** Delay before every frame after the first. */
  event_delay_ms?: number;
}

export interface ToolCallSpec {
  id?: string;
  name: string;
  input: Record<string, unknown>;
}

export interface UsageSpec {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

/** A server-side compaction block the mock streams before the answer (never scripted: the mock decides). */
export interface CompactionSpec {
  content: string;
  encrypted_content: string;
  /** Input tokens before and after the compaction (usage `iterations`). */
  tokens_before: number;
  tokens_after: number;
}

export interface ReplySpec {
  thinking?: string;
  text?: string;
  tool_calls?: ToolCallSpec[];
  /** A second text block at the end; only emitted when there are no tool calls. */
  text_after?: string;
  /**
   * The model's refusal, after any text, under an ordinary finish: Chat Completions streams it in `delta.refusal`
   * (the message's `refusal`), Responses as a `refusal` content part (`response.refusal.delta` / `.done`); Anthropic
   * has no refusal text, so it is text there and the stop reason defaults to `refusal`.
   */
  refusal?: string;
  /** Either vocabulary works: end_turn|tool_use|max_tokens|stop_sequence or stop|tool_calls|length. */
  stop_reason?: string;
  usage?: UsageSpec;
  /** Set by the mock itself when it compacts server-side. */
  compaction?: CompactionSpec;
}

export interface ReplyStep {
  reply: ReplySpec;
  faults?: Faults;
}

export interface ErrorStep {
  error: { status: number; type?: string; message?: string; retry_after?: number };
}

export interface RawStep {
  raw: string;
  content_type?: string;
  status?: number;
  faults?: Faults;
}

export interface StreamErrorStep {
  /** `code`: OpenAI's error code (Responses defaults it to `type`; Chat Completions to null). */
  stream_error: { after_events: number; type?: string; message?: string; code?: string; reply?: ReplySpec };
  faults?: Faults;
}

export type Step = ReplyStep | ErrorStep | RawStep | StreamErrorStep;

/** A validation failure, answered as a provider error body. */
export interface Rejection {
  status: number;
  message: string;
  /** Provider error type; defaults to invalid_request_error for 400. */
  type?: string;
  /** OpenAI only: the `param` field of the error body. */
  param?: string | null;
  /** OpenAI only: the `code` field of the error body. */
  code?: string | null;
  /** True when the request breaks the tool_use/tool_result pairing invariant P. */
  pairing?: boolean;
}

/** What the default brain needs to know about a conversation, independent of the wire protocol. */
export interface BrainInput {
  tools: { name: string; schema: unknown }[];
  /** Text of the last user message (tool results excluded). */
  userText: string;
  /** Tool results that open the last user turn, in order; empty when the turn is plain text. */
  toolResults: { name: string; content: string }[];
}
