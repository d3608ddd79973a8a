/** What an adapter is: model configs and capabilities, endpoints, the retry policy, the adapter interface. */
import type { ErrorInfo } from "../model/errors";
import type { Message, ToolDeclaration } from "../model/message";
import type { StreamEvent } from "../model/stream";

/** Wire protocols: Anthropic Messages, OpenAI Chat Completions, OpenAI Responses. */
export type ProviderName = "anthropic" | "openai" | "openai-responses";

export interface ModelCapabilities {
  message_level_tools: boolean;
  native_tool_search: boolean;
  prompt_cache: boolean;
  /**
   * Whether the model thinks: false, true, or (Anthropic) how: `"enabled"` (a thinking budget) or `"adaptive"` (the
   * model decides, `ModelConfig.effort`). true on Anthropic is adaptive for the models that take only that
   * (`anthropic-thinking.ts` `adaptiveByDefault`), else a budget.
   */
  thinking: boolean | ThinkingMode;
  /** Provider-side compaction (Anthropic `compact_20260112`, OpenAI `compact_threshold`); absent = false. */
  native_compaction?: boolean;
}

/** The names of Chat Completions' output limit: the one most servers read, and OpenAI's own. */
export const MAX_TOKENS_FIELDS = ["max_tokens", "max_completion_tokens"] as const;
export type MaxTokensField = (typeof MAX_TOKENS_FIELDS)[number];
/** Anthropic's thinking modes: `enabled` (with `budget_tokens`) and `adaptive` (with `output_config.effort`). */
export type ThinkingMode = "enabled" | "adaptive";

/** Anthropic `output_config.effort`: how much the model spends on thinking, text and tool calls. */
export const EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const;
export type Effort = (typeof EFFORTS)[number];

export interface ModelConfig {
  provider: ProviderName;
  name: string;
  capabilities: ModelCapabilities;
  max_tokens?: number;
  /**
   * The name Chat Completions (`openai`) sends `max_tokens` under, for a server its base URL does not tell
   * (`maxTokensField` in openai-body.ts); absent: chosen by the base URL.
   */
  max_tokens_field?: MaxTokensField;
  /** Sent with adaptive thinking only (`output_config.effort`); absent: the API's default (`high`). */
  effort?: Effort;
  /** Input tokens the model accepts; absent = the provider default (`DEFAULT_CONTEXT_WINDOW`). */
  context_window?: number;
}

/** Context windows assumed when an agent does not declare one (README "Long sessions"). */
export const DEFAULT_CONTEXT_WINDOW: Record<ProviderName, number> = {
  anthropic: 200_000,
  openai: 128_000,
  "openai-responses": 128_000,
};

/** The Responses API refuses `max_output_tokens` below this ("integer_below_min_value"). */
export const RESPONSES_MIN_OUTPUT_TOKENS = 16;

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
   * declares `native_compaction`; Anthropic `context_management` `compact_20260112`, OpenAI Responses
   * `context_management` `compaction` with `compact_threshold`).
   */
  compaction?: { trigger: number };
  /**
   * The base URL the request is sent to (`ProviderEndpoint.baseUrl`), for what the body depends on: Chat
   * Completions' output-limit field (`maxTokensField`). Absent: the provider's own API.
   */
  baseUrl?: string;
  /**
   * False when no later request sends these messages again (a compaction's summary request): the body then marks
   * none of them for the provider's prompt cache (Anthropic `prompt_cache`), where writing them would cost more
   * than sending them plainly. Absent: a step, whose messages the next step repeats.
   */
  cacheMessages?: false;
}

export interface RetryPolicy {
  /** Attempts in total, including the first. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Abort a stream that sends no byte for this long. */
  idleTimeoutMs: number;
  /** Abort a stream that lasts longer than this from its first read, however steadily it sends (the step deadline). */
  stepTimeoutMs: number;
  /** Abort if the response headers do not arrive in this long. */
  connectTimeoutMs: number;
}

/** Typed failure of a step (an ErrorInfo); `retryable` tells the client whether /retry may help. */
export interface ProviderError extends ErrorInfo {
  code:
    | "provider_http_error"
    | "provider_overloaded"
    | "provider_rate_limited"
    | "provider_stream_error"
    | "provider_stream_cut"
    | "provider_idle_timeout"
    /** The stream outlasted the step deadline (`RetryPolicy.stepTimeoutMs`); not retried, as it would only repeat. */
    | "provider_step_timeout"
    | "provider_bad_response"
    | "provider_unreachable"
    /** The request is longer than the model's context window (Anthropic "prompt is too long" / "exceed context limit", OpenAI `context_length_exceeded`, other servers' wording: retry.ts `isOverflowError`). */
    | "context_overflow"
    | "aborted";
  message: string;
  status?: number;
  retryable: boolean;
  /** When the provider asked for a longer pause than we were willing to sleep. */
  retry_after_ms?: number;
}

export class ProviderFailure extends Error {
  readonly error: ProviderError;

  constructor(error: ProviderError) {
    super(error.message);
    this.name = "ProviderFailure";
    this.error = error;
  }
}

export interface ProviderAdapter {
  readonly name: ProviderName;
  /** The exact JSON body sent for this step (the projection). */
  buildBody(req: StepRequest): Record<string, unknown>;
  /**
   * The output limit a request for `model` carries (the body's max_tokens, under the wire's name): servers that
   * count it against the window with the input (Anthropic, vLLM) refuse input + it > window. 0 when the body
   * carries none (the server's own default, which it fits to the room left).
   */
  outputTokens(model: ModelConfig): number;
  /**
   * A tool call id as this wire carries it: the body sends each call and its result under it (Anthropic accepts only
   * `^[a-zA-Z0-9_-]+$`, anthropic-body.ts `anthropicId`; the OpenAI protocols send the id as stored). The model cites
   * a call in this form, so a `$tool` reference to it is mapped back to the stored id.
   */
  wireCallId(id: string): string;
  /**
   * The least input tokens a native compaction trigger (`StepRequest.compaction`) may be: the API refuses a lower one
   * (the Messages API 50,000); 1 where the API documents none.
   */
  readonly minCompactionTrigger: number;
  /**
   * The `provider` of the compaction parts this wire sends back as opaque state (`encrypted`, no text; the Responses
   * API's item): only this wire reads them, so a summary request for it may open with the newest
   * (compaction/native-view.ts `opaqueCompaction`). Absent: the wire reads no such part.
   */
  readonly opaqueCompactionFrom?: string;
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
