// Shared helpers of the provider unit tests: recorded wire fixtures, scripted fetches and response bodies, a fast retry
// policy, and running an adapter to its events or its failure.
import { readFileSync } from "node:fs";
import type { Message, Part, Role } from "../../../src/model/message";
import type { StreamEvent } from "../../../src/model/stream";
import {
  type FetchLike,
  type ModelCapabilities,
  type ProviderAdapter,
  ProviderFailure,
  type ProviderName,
  type RetryPolicy,
  type StepRequest,
} from "../../../src/providers/types";

/** Tiny delays so retry tests run in milliseconds. */
export const FAST_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 1,
  maxDelayMs: 5,
  idleTimeoutMs: 2_000,
  stepTimeoutMs: 60_000,
  connectTimeoutMs: 2_000,
};

/** A fixture body; an unterminated last event gets its blank line, as the wire README asks. */
export function fixture(name: string): Uint8Array {
  let text = readFileSync(new URL(`../../fixtures/wire/${name}`, import.meta.url), "utf8");
  if (!text.endsWith("\n\n")) text += "\n\n";
  return new TextEncoder().encode(text);
}

export interface BodyOptions {
  /** Bytes per chunk; the whole body in one chunk when absent. */
  chunkSize?: number;
  /** Deliver only this many bytes. */
  cutAt?: number;
  /** After the delivered bytes: end cleanly, fail like a dropped connection, or go silent. */
  ending?: "eof" | "error" | "stall";
  onCancel?: () => void;
}

/** SSE bytes with one event per object, named by its `type` (the Messages and Responses APIs' framing). */
export function typedEvents(events: Array<Record<string, unknown>>): Uint8Array {
  return new TextEncoder().encode(
    events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join(""),
  );
}

export function bodyStream(bytes: Uint8Array, opts: BodyOptions = {}): ReadableStream<Uint8Array> {
  const end = Math.min(opts.cutAt ?? bytes.length, bytes.length);
  const size = opts.chunkSize ?? Math.max(end, 1);
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset < end) {
        const next = Math.min(end, offset + size);
        controller.enqueue(bytes.slice(offset, next));
        offset = next;
        return;
      }
      if (opts.ending === "stall") return new Promise<void>(() => undefined);
      if (opts.ending === "error") controller.error(new TypeError("network connection lost"));
      else controller.close();
    },
    cancel() {
      opts.onCancel?.();
    },
  });
}

export function sseResponse(bytes: Uint8Array, opts: BodyOptions = {}): Response {
  return new Response(bodyStream(bytes, opts), { status: 200, headers: { "content-type": "text/event-stream" } });
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

export type Reply = Response | Error | ((init: RequestInit) => Promise<Response>);

/** A fetch that answers from a script, one entry per call, and records what it was sent. */
export function scriptedFetch(
  replies: Array<() => Reply>,
): FetchLike & { calls: Array<{ url: string; init: RequestInit }> } {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const fn = async (url: string, init: RequestInit): Promise<Response> => {
    calls.push({ url, init });
    const make = replies[Math.min(calls.length - 1, replies.length - 1)];
    if (!make) throw new Error("no scripted reply");
    const reply = make();
    if (reply instanceof Error) throw reply;
    if (typeof reply === "function") return reply(init);
    return reply;
  };
  return Object.assign(fn, { calls });
}

/** A fetch whose headers never come; it honours the abort signal like a real fetch. */
export function hangingFetch(init: RequestInit): Promise<Response> {
  return new Promise<Response>((_, reject) => {
    init.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")), { once: true });
  });
}

export interface Outcome {
  events: StreamEvent[];
  failure?: ProviderFailure;
}

export async function collect(gen: AsyncGenerator<StreamEvent, void, void>): Promise<Outcome> {
  const events: StreamEvent[] = [];
  try {
    for await (const event of gen) events.push(event);
    return { events };
  } catch (err) {
    if (err instanceof ProviderFailure) return { events, failure: err };
    throw err;
  }
}

export function capabilities(over: Partial<ModelCapabilities> = {}): ModelCapabilities {
  return { message_level_tools: false, native_tool_search: true, prompt_cache: false, thinking: false, ...over };
}

export function request(provider: ProviderName, over: Partial<StepRequest> = {}): StepRequest {
  return {
    model: { provider, name: provider === "anthropic" ? "claude-test" : "gpt-test", capabilities: capabilities() },
    system: "",
    messages: [msg("user", [{ type: "text", text: "hi" }])],
    tools: [],
    ...over,
  };
}

let seq = 0;
export function msg(role: Role, parts: Part[]): Message {
  seq += 1;
  return { seq, role, parts, origin: role === "user" ? "client" : "model", turn_id: null, created_at: "" };
}

export function run(
  adapter: ProviderAdapter,
  fetchImpl: FetchLike,
  policy: RetryPolicy = FAST_POLICY,
  signal: AbortSignal = new AbortController().signal,
): Promise<Outcome> {
  const endpoint = { baseUrl: "https://provider.test/", apiKey: "k", fetch: fetchImpl };
  return collect(adapter.stream(request(adapter.name), endpoint, policy, signal));
}

/** Joins runs of deltas of one block, so expectations state content rather than chunking. */
export function squash(events: StreamEvent[]): StreamEvent[] {
  const out: StreamEvent[] = [];
  for (const event of events) {
    const last = out[out.length - 1];
    if (last && event.type === last.type && "index" in event && "index" in last && event.index === last.index) {
      if (event.type === "text_delta" && last.type === "text_delta") {
        last.text += event.text;
        continue;
      }
      if (event.type === "thinking_delta" && last.type === "thinking_delta") {
        last.thinking += event.thinking;
        continue;
      }
      if (event.type === "tool_input_delta" && last.type === "tool_input_delta") {
        last.partial_json += event.partial_json;
        continue;
      }
    }
    out.push({ ...event });
  }
  return out;
}
