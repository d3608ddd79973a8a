/**
 * The provider-neutral stream of one step: the events every adapter yields,
 * stop reasons and token usage.
 */

import type { Part } from "./message";

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  /**
   * Anthropic server-side compaction passes of the request (`usage.iterations`): billed, but not part of the figures
   * above, which are the compacted request's (what the context-size estimate reads). Input counts cached tokens too.
   */
  compaction_input_tokens?: number;
  compaction_output_tokens?: number;
}

/**
 * Why the output ended. `refusal`: the model refused, or the provider's content filter stopped it (Anthropic
 * `stop_reason: "refusal"`, OpenAI `content_filter`, or OpenAI refusal text under an ordinary finish); text it
 * streamed before is the model's answer to show, never one to build on (a compaction's summary).
 */
export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal" | "other";

/**
 * Canonical stream events. `index` is the block position in the assistant
 * message. A block is complete only at `block_stop`, which carries the
 * assembled part; an unfinished block never produces a part.
 */
export type StreamEvent =
  | { type: "message_start"; id: string; model: string }
  | { type: "block_start"; index: number; kind: "text" }
  | { type: "block_start"; index: number; kind: "thinking" }
  | { type: "block_start"; index: number; kind: "tool_use"; id: string; name: string }
  | { type: "text_delta"; index: number; text: string }
  | { type: "thinking_delta"; index: number; thinking: string }
  | { type: "tool_input_delta"; index: number; partial_json: string }
  | { type: "block_stop"; index: number; part: Part }
  /** A tool_use whose input JSON did not parse at block end; the call is dropped. */
  | { type: "block_invalid"; index: number; id: string; name: string; raw: string; reason: string }
  /**
   * A tool_use the output limit (stop_reason `max_tokens` / `length`) or a refusal or content
   * filter (`refusal` / `content_filter`) cut off before its input finished: it never becomes a
   * part (DESIGN §3, P5), not even one with `{}` input.
   */
  | { type: "block_incomplete"; index: number; id: string; name: string; raw: string; reason: string }
  | { type: "usage"; usage: Partial<Usage> }
  | { type: "message_stop"; stop_reason: StopReason }
  | { type: "retry"; attempt: number; delay_ms: number; status: number; reason: string };

/** The `retry` stream event: `attempt` is 1 for the first retry. */
export type RetryEvent = Extract<StreamEvent, { type: "retry" }>;
