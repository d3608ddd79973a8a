/**
 * The stream parser for OpenAI-compatible Chat Completions (`OpenAIStreamParser`, used by openai.ts): turns
 * SSE chunks into canonical stream events, maps finish_reason to a stop reason and reads usage. Refusal text
 * (`delta.refusal`) is text whose finish reads as the stop reason `refusal`. Throws a
 * retryable ProviderFailure on an error chunk (classified by stream-error.ts: context_overflow when it says the
 * request is too long), a malformed chunk, a chunk out of order (a call continued after a later one started,
 * content or a tool_calls delta after finish_reason) or a stream that ends without finish_reason.
 */
import { newId } from "../crypto/new-id";
import type { StopReason, StreamEvent, Usage } from "../model/stream";
import { asArr, asNum, asObj, asStr, badResponse, type Obj, parseEventData, parseToolInput } from "./json";
import type { EventSourceMessage } from "./sse";
import { cutReason, outputStop, type WireParser } from "./stream-driver";
import { streamFailure } from "./stream-error";
import { ProviderFailure } from "./types";

type ContentBlock = { kind: "text" | "thinking"; index: number; text: string };
/** `started`: its block_start was emitted, which waits for the function's name (some servers send it in a later delta). */
type Call = { index: number; id: string; name: string; args: string; closed: boolean; started: boolean };

/**
 * Chat Completions chunks → canonical events. This wire has no block
 * boundaries, so they are synthesized: text and reasoning blocks run until
 * something else starts; a tool call is complete only once a later call
 * starts or finish_reason arrives. Until then its arguments may be a prefix
 * that happens to parse, so a cut stream never closes an open call.
 */
export class OpenAIStreamParser implements WireParser {
  #started = false;
  #open: ContentBlock | undefined;
  readonly #calls = new Map<number, Call>();
  #lastCallKey: number | undefined;
  /** Keys for calls moved off their wire index by a later call at the same index (negative: never a wire index). */
  #retiredKeys = 0;
  #nextIndex = 0;
  #finish: StopReason | undefined;
  #validCalls = 0;
  /** Refusal text came (`delta.refusal`): the finish ends a refusal, not a turn. */
  #refused = false;
  done = false;

  push(message: EventSourceMessage): StreamEvent[] {
    if (message.data.trim() === "[DONE]") {
      // The end marker proves nothing about the answer: without finish_reason it is still cut.
      const events = this.end();
      this.done = true;
      return events;
    }
    const chunk = asObj(parseEventData(message.data));
    if (!chunk) throw badResponse(`chunk is not an object: ${message.data.slice(0, 200)}`);
    const error = asObj(chunk.error);
    // vLLM and sglang answer a request over the window with 200 and then such a chunk: an overflow like the HTTP one.
    if (error) throw streamFailure(error);
    const events: StreamEvent[] = [];
    if (!this.#started) {
      this.#started = true;
      events.push({ type: "message_start", id: asStr(chunk.id) ?? "", model: asStr(chunk.model) ?? "" });
    }
    const choice = asObj(asArr(chunk.choices)?.[0]);
    if (choice) this.#onChoice(choice, events);
    const usage = readUsage(asObj(chunk.usage));
    if (usage) events.push({ type: "usage", usage });
    return events;
  }

  end(): StreamEvent[] {
    if (this.done) return [];
    if (this.#finish === undefined) {
      throw new ProviderFailure({
        code: "provider_stream_cut",
        message: "provider stream ended before finish_reason",
        retryable: true,
      });
    }
    this.done = true;
    return [{ type: "message_stop", stop_reason: this.#finish }];
  }

  #onChoice(choice: Obj, events: StreamEvent[]): void {
    const delta = asObj(choice.delta);
    if (delta) {
      // DeepSeek/Kimi/Qwen call it reasoning_content; vLLM and some proxies call it reasoning.
      const reasoning = asStr(delta.reasoning_content) ?? asStr(delta.reasoning);
      const text = asStr(delta.content);
      // The model's refusal: its answer, shown as text, whose finish reads as a refusal (outputStop).
      const refusal = asStr(delta.refusal);
      const calls = asArr(delta.tool_calls) ?? [];
      if (this.#finish !== undefined) {
        // The answer was complete at finish_reason (only a usage chunk, with no choices, may follow): output after
        // it would be dropped unseen, or be a second answer spliced on.
        if (reasoning || text || refusal || calls.length > 0)
          throw badResponse("a content or tool_calls delta after finish_reason");
      } else {
        if (reasoning) this.#appendContent("thinking", reasoning, events);
        if (text) this.#appendContent("text", text, events);
        if (refusal) {
          this.#refused = true;
          this.#appendContent("text", refusal, events);
        }
        for (const item of calls) {
          const call = asObj(item);
          if (call) this.#onToolCallDelta(call, events);
        }
      }
    }
    const reason = asStr(choice.finish_reason);
    if (reason && this.#finish === undefined) {
      const mapped = mapFinishReason(reason);
      this.#closeContent(events);
      this.#closeCalls(events, cutReason(mapped));
      // Some servers (older vLLM, Qwen templates) report "stop" after emitting calls.
      this.#finish = outputStop(mapped, this.#validCalls, this.#refused);
    }
  }

  #appendContent(kind: ContentBlock["kind"], text: string, events: StreamEvent[]): void {
    if (this.#open?.kind !== kind) {
      this.#closeContent(events);
      this.#open = { kind, index: this.#nextIndex++, text: "" };
      events.push({ type: "block_start", index: this.#open.index, kind });
    }
    this.#open.text += text;
    events.push(
      kind === "text"
        ? { type: "text_delta", index: this.#open.index, text }
        : { type: "thinking_delta", index: this.#open.index, thinking: text },
    );
  }

  #onToolCallDelta(delta: Obj, events: StreamEvent[]): void {
    const fn = asObj(delta.function);
    const id = asStr(delta.id);
    // Servers that omit `index` send one call per id; a new id then means a new call.
    let key = asNum(delta.index);
    if (key === undefined) {
      const last = this.#lastCallKey === undefined ? undefined : this.#calls.get(this.#lastCallKey);
      key = last && (!id || id === last.id) ? this.#lastCallKey! : this.#calls.size;
    }
    let call = this.#calls.get(key);
    if (call && id && id !== call.id) {
      // Ollama sends every parallel call at index 0, each with its own id (ollama/ollama#15457): a new
      // id at a used index is a new call. The earlier one keeps a key of its own and is closed below.
      this.#calls.delete(key);
      this.#calls.set(-++this.#retiredKeys, call);
      call = undefined;
    }
    if (!call) {
      this.#closeContent(events);
      this.#closeCalls(events);
      call = {
        index: this.#nextIndex++,
        id: id || newId("call"),
        name: asStr(fn?.name) ?? "",
        args: "",
        closed: false,
        started: false,
      };
      this.#calls.set(key, call);
      this.#lastCallKey = key;
    } else if (call.closed) {
      throw badResponse(`tool call ${call.id} continued after a later call started`);
    } else if (!call.name) {
      call.name = asStr(fn?.name) ?? "";
    }
    const args = asStr(fn?.arguments) ?? "";
    call.args += args;
    // The block starts once the call has a name: what runs the call (the client or the session) and how it is shown
    // are decided by it. Arguments that came before the name go out with the start.
    if (!call.started && call.name) {
      call.started = true;
      events.push({ type: "block_start", index: call.index, kind: "tool_use", id: call.id, name: call.name });
      if (call.args) events.push({ type: "tool_input_delta", index: call.index, partial_json: call.args });
    } else if (call.started && args) {
      events.push({ type: "tool_input_delta", index: call.index, partial_json: args });
    }
  }

  #closeContent(events: StreamEvent[]): void {
    const block = this.#open;
    if (!block) return;
    this.#open = undefined;
    events.push({
      type: "block_stop",
      index: block.index,
      part: block.kind === "text" ? { type: "text", text: block.text } : { type: "thinking", thinking: block.text },
    });
  }

  /**
   * Closes the open call (a call is closed as soon as a later one starts). At `finish_reason:
   * "length"` or `"content_filter"` (`cut` says why) the open call is the one the stop cut off:
   * unless its arguments are a complete, non-empty JSON object it is incomplete and never becomes
   * a part (no `{}` input).
   */
  #closeCalls(events: StreamEvent[], cut?: string): void {
    const open = [...this.#calls.values()].filter((c) => !c.closed).sort((a, b) => a.index - b.index);
    for (const call of open) {
      call.closed = true;
      const parsed = parseToolInput(call.args);
      if (cut && !(parsed.ok && call.name && Object.keys(parsed.input).length > 0)) {
        const { index, id, name, args: raw } = call;
        events.push({ type: "block_incomplete", index, id, name, raw, reason: cut });
        continue;
      }
      if (parsed.ok && call.name) {
        this.#validCalls++;
        events.push({
          type: "block_stop",
          index: call.index,
          part: { type: "tool_use", id: call.id, name: call.name, input: parsed.input },
        });
      } else {
        const reason = parsed.ok ? "tool call without a function name" : parsed.reason;
        events.push({ type: "block_invalid", index: call.index, id: call.id, name: call.name, raw: call.args, reason });
      }
    }
  }
}

function mapFinishReason(reason: string): StopReason {
  switch (reason) {
    case "stop":
      return "end_turn";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    case "length":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    default:
      return "other";
  }
}

function readUsage(usage: Obj | undefined): Partial<Usage> | undefined {
  if (!usage) return undefined;
  const out: Partial<Usage> = {};
  const input = asNum(usage.prompt_tokens);
  const output = asNum(usage.completion_tokens);
  // OpenAI nests cached tokens; DeepSeek reports them flat.
  const cached = asNum(asObj(usage.prompt_tokens_details)?.cached_tokens) ?? asNum(usage.prompt_cache_hit_tokens);
  // prompt_tokens includes cache hits; canonical input_tokens (Anthropic's meaning) does not.
  if (input !== undefined) out.input_tokens = Math.max(0, input - (cached ?? 0));
  if (output !== undefined) out.output_tokens = output;
  if (cached !== undefined) out.cache_read_input_tokens = cached;
  return Object.keys(out).length > 0 ? out : undefined;
}
