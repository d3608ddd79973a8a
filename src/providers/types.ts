import type { Message, Part, ThinkingPart, ToolDeclaration, ToolUsePart } from "../session/history/parts";

export type ProviderName = "anthropic" | "openai";

export interface ModelCapabilities {
  message_level_tools: boolean;
  native_tool_search: boolean;
  prompt_cache: boolean;
  thinking: boolean;
  /** Provider-side compaction (Anthropic `compact_20260112`, OpenAI `compact_threshold`); absent = false. */
  native_compaction?: boolean;
}

export interface ModelConfig {
  provider: ProviderName;
  name: string;
  capabilities: ModelCapabilities;
  max_tokens?: number;
  /** Input tokens the model accepts; absent = the provider default (`DEFAULT_CONTEXT_WINDOW`). */
  context_window?: number;
}

/** Context windows assumed when an agent does not declare one (README "Long sessions"). */
export const DEFAULT_CONTEXT_WINDOW: Record<ProviderName, number> = { anthropic: 200_000, openai: 128_000 };

export function contextWindow(model: ModelConfig): number {
  return model.context_window ?? DEFAULT_CONTEXT_WINDOW[model.provider];
}

/**
 * A conversation summary as text: how a compaction summary (ours, or a provider's compaction part
 * where it cannot be sent natively) opens what the model reads.
 */
export function compactionText(content: string): string {
  return `<conversation_summary>\nThe earlier part of this conversation was summarised to save context:\n${content}\n</conversation_summary>`;
}

/** Where and how to reach a provider; filled from the environment. */
export interface ProviderEndpoint {
  baseUrl: string;
  apiKey: string;
  /** Replaces the global fetch (tests, service bindings). Always called unbound. */
  fetch?: FetchLike;
}

/** The part of `fetch` an adapter uses; global fetch and service bindings both fit. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Everything an adapter needs to build one provider request (one step). */
export interface StepRequest {
  model: ModelConfig;
  system: string;
  messages: Message[];
  tools: ToolDeclaration[];
  /**
   * Ask the provider to compact server-side once the input passes `trigger` tokens (the model
   * declares `native_compaction`; Anthropic `context_management` `compact_20260112`).
   */
  compaction?: { trigger: number };
}

export interface RetryPolicy {
  /** Attempts in total, including the first. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Abort a stream that sends no byte for this long. */
  idleTimeoutMs: number;
  /** Abort if the response headers do not arrive in this long. */
  connectTimeoutMs: number;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

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
   * A tool_use the output limit cut off (stop_reason `max_tokens` / `length`) before its input
   * finished: it never becomes a part (DESIGN §3, P5), not even one with `{}` input.
   */
  | { type: "block_incomplete"; index: number; id: string; name: string; raw: string; reason: string }
  | { type: "usage"; usage: Partial<Usage> }
  | { type: "message_stop"; stop_reason: StopReason }
  | { type: "retry"; attempt: number; delay_ms: number; status: number; reason: string };

/** Typed failure of a step; `retryable` tells the client whether /retry may help. */
export interface ProviderError {
  code:
    | "provider_http_error"
    | "provider_overloaded"
    | "provider_rate_limited"
    | "provider_stream_error"
    | "provider_stream_cut"
    | "provider_idle_timeout"
    | "provider_bad_response"
    | "provider_unreachable"
    /** The request is longer than the model's context window (Anthropic "prompt is too long", OpenAI `context_length_exceeded`). */
    | "context_overflow"
    | "aborted";
  message: string;
  status?: number;
  retryable: boolean;
  /** When the provider asked for a longer pause than we were willing to sleep. */
  retry_after_ms?: number;
}

/** The `retry` stream event: `attempt` is 1 for the first retry. */
export type RetryEvent = Extract<StreamEvent, { type: "retry" }>;

export class ProviderFailure extends Error {
  constructor(readonly error: ProviderError) {
    super(error.message);
    this.name = "ProviderFailure";
  }
}

export interface ProviderAdapter {
  readonly name: ProviderName;
  /** The exact JSON body sent for this step (the projection). */
  buildBody(req: StepRequest): Record<string, unknown>;
  /**
   * Sends one step and yields canonical events. Retries before the first byte
   * per `policy`; once bytes flowed, a failure throws ProviderFailure after
   * yielding every block that completed.
   */
  stream(
    req: StepRequest,
    endpoint: ProviderEndpoint,
    policy: RetryPolicy,
    signal: AbortSignal,
  ): AsyncGenerator<StreamEvent, void, void>;
}

export type { Part, ThinkingPart, ToolUsePart };
