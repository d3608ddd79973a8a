/**
 * The Anthropic Messages API stream parser (`AnthropicStreamParser`, a WireParser for stream-driver.ts): wire
 * SSE events in, canonical StreamEvents out. A tool_use with empty or non-JSON input is held until the stop
 * reason says whether `max_tokens` or a `refusal` cut it. Throws ProviderFailure on a malformed event, an event out of order
 * (a second message_start, a block or message event before it, a block started at an index in use or while
 * another is open, a delta or stop for a block that is not open, message_delta or message_stop while a block
 * is open), a stream `error` event (classified by stream-error.ts), or EOF before message_stop.
 */
import type { Part } from "../model/message";
import type { StopReason, StreamEvent, Usage } from "../model/stream";
import { asArr, asNum, asObj, asStr, badResponse, type Obj, parseEventData, parseToolInput } from "./json";
import type { EventSourceMessage } from "./sse";
import { cutReason, type WireParser } from "./stream-driver";
import { streamFailure } from "./stream-error";
import { ProviderFailure } from "./types";

type Block =
  | { kind: "text"; index: number; text: string }
  | { kind: "thinking"; index: number; thinking: string; signature: string | undefined }
  | { kind: "redacted"; index: number; data: string }
  | { kind: "compaction"; index: number; content: string | null; encrypted: string | undefined }
  | { kind: "tool_use"; index: number; id: string; name: string; json: string; initial: Obj | undefined };

/**
 * Messages API stream → canonical events. Wire indexes are remapped to
 * sequential canonical ones because blocks we do not surface (server tools,
 * their results, future block types) are skipped entirely: surfacing a
 * `server_tool_use` as a tool_use would have us answer it (invariant P6).
 */
export class AnthropicStreamParser implements WireParser {
  readonly #blocks = new Map<number, Block>();
  /** Wire indexes of open blocks we do not surface (server tools, newer types): their events are ignored. */
  readonly #skipped = new Set<number>();
  /** Wire indexes of blocks that were started (surfaced or skipped): a start at one of them is out of order. */
  readonly #seen = new Set<number>();
  #started = false;
  #nextIndex = 0;
  #stopReason: StopReason = "other";
  /**
   * A tool_use that ended with input that is empty or not JSON. The API closes a block the output
   * limit cut off with an ordinary content_block_stop and says so only in the following
   * message_delta, so such a block waits for the next block or the stop reason: after
   * `max_tokens` or `refusal` it was cut (block_incomplete, no part), otherwise it is what the
   * model sent.
   * A tool_use with a complete JSON object is final at its content_block_stop.
   */
  #held: Extract<Block, { kind: "tool_use" }> | undefined;
  done = false;

  push(message: EventSourceMessage): StreamEvent[] {
    const data = asObj(parseEventData(message.data));
    if (!data) throw badResponse(`event payload is not an object: ${message.data.slice(0, 200)}`);
    const type = asStr(data.type) ?? message.event;
    if (
      type === "message_start" ||
      type?.startsWith("content_block_") ||
      type === "message_delta" ||
      type === "message_stop"
    ) {
      this.#inOrder(type);
    }
    switch (type) {
      case "message_start":
        this.#started = true;
        return this.#onMessageStart(asObj(data.message));
      case "content_block_start":
        return this.#onBlockStart(asNum(data.index), asObj(data.content_block));
      case "content_block_delta":
        return this.#onBlockDelta(asNum(data.index), asObj(data.delta));
      case "content_block_stop":
        return this.#onBlockStop(asNum(data.index));
      case "message_delta":
        return this.#onMessageDelta(asObj(data.delta), asObj(data.usage));
      case "message_stop":
        this.done = true;
        return [...this.#release(cutReason(this.#stopReason)), { type: "message_stop", stop_reason: this.#stopReason }];
      case "error":
        throw streamFailure(asObj(data.error));
      default:
        // ping and event types newer than this code.
        return [];
    }
  }

  /**
   * Message-level order: one message_start, before any block or message event (the driver stops at message_stop);
   * blocks one at a time, each stopped before the next starts or the message ends. A block still open there
   * would vanish unseen (a complete tool_use among them) and the step pass as complete.
   */
  #inOrder(type: string): void {
    if (type === "message_start" && this.#started) throw badResponse("a second message_start in one stream");
    if (type !== "message_start" && !this.#started) throw badResponse(`${type} before message_start`);
    if (type === "content_block_start" || type === "message_delta" || type === "message_stop") {
      const open = [...this.#blocks.keys(), ...this.#skipped][0];
      if (open !== undefined) throw badResponse(`${type} while block ${open} is open`);
    }
  }

  /** The open block at `wireIndex`, or null for a skipped one; a block that is not open is out of order. */
  #open(event: string, wireIndex: number | undefined): Block | null {
    if (wireIndex === undefined) throw badResponse(`${event} without index`);
    if (this.#skipped.has(wireIndex)) return null;
    const block = this.#blocks.get(wireIndex);
    if (!block) throw badResponse(`${event} for block ${wireIndex}, which is not open`);
    return block;
  }

  /** Called at EOF: anything short of message_stop is a cut stream. */
  end(): StreamEvent[] {
    if (this.done) return [];
    throw new ProviderFailure({
      code: "provider_stream_cut",
      message: "provider stream ended before message_stop",
      retryable: true,
    });
  }

  #onMessageStart(msg: Obj | undefined): StreamEvent[] {
    const events: StreamEvent[] = [{ type: "message_start", id: asStr(msg?.id) ?? "", model: asStr(msg?.model) ?? "" }];
    const usage = readUsage(asObj(msg?.usage));
    if (usage) events.push({ type: "usage", usage });
    return events;
  }

  #onBlockStart(wireIndex: number | undefined, block: Obj | undefined): StreamEvent[] {
    if (wireIndex === undefined || !block) throw badResponse("content_block_start without index or block");
    if (this.#seen.has(wireIndex)) throw badResponse(`content_block_start at index ${wireIndex}, already used`);
    this.#seen.add(wireIndex);
    const events = this.#release(undefined);
    const type = asStr(block.type);
    if (
      type !== "text" &&
      type !== "thinking" &&
      type !== "redacted_thinking" &&
      type !== "tool_use" &&
      type !== "compaction"
    ) {
      this.#skipped.add(wireIndex);
      return events;
    }
    const index = this.#nextIndex++;
    if (type === "compaction") {
      // Server-side compaction: the summary arrives whole (one compaction_delta); no UI block is opened.
      const content = asStr(block.content) ?? null;
      const encrypted = asStr(block.encrypted_content) ?? undefined;
      this.#blocks.set(wireIndex, { kind: "compaction", index, content, encrypted });
      return events;
    }
    if (type === "tool_use") {
      const id = asStr(block.id);
      const name = asStr(block.name);
      if (!id || !name) throw badResponse("tool_use block without id or name");
      this.#blocks.set(wireIndex, { kind: "tool_use", index, id, name, json: "", initial: asObj(block.input) });
      events.push({ type: "block_start", index, kind: "tool_use", id, name });
      return events;
    }
    if (type === "redacted_thinking") {
      this.#blocks.set(wireIndex, { kind: "redacted", index, data: asStr(block.data) ?? "" });
      events.push({ type: "block_start", index, kind: "thinking" });
      return events;
    }
    if (type === "thinking") {
      const thinking = asStr(block.thinking) ?? "";
      const signature = asStr(block.signature) || undefined;
      this.#blocks.set(wireIndex, { kind: "thinking", index, thinking, signature });
      events.push({ type: "block_start", index, kind: "thinking" });
      if (thinking) events.push({ type: "thinking_delta", index, thinking });
      return events;
    }
    const text = asStr(block.text) ?? "";
    this.#blocks.set(wireIndex, { kind: "text", index, text });
    events.push({ type: "block_start", index, kind: "text" });
    if (text) events.push({ type: "text_delta", index, text });
    return events;
  }

  #onBlockDelta(wireIndex: number | undefined, delta: Obj | undefined): StreamEvent[] {
    const block = this.#open("content_block_delta", wireIndex);
    if (!block || !delta) return [];
    const type = asStr(delta.type);
    if (type === "text_delta" && block.kind === "text") {
      const text = asStr(delta.text) ?? "";
      block.text += text;
      return text ? [{ type: "text_delta", index: block.index, text }] : [];
    }
    if (type === "thinking_delta" && block.kind === "thinking") {
      const thinking = asStr(delta.thinking) ?? "";
      block.thinking += thinking;
      return thinking ? [{ type: "thinking_delta", index: block.index, thinking }] : [];
    }
    if (type === "signature_delta" && block.kind === "thinking") {
      block.signature = (block.signature ?? "") + (asStr(delta.signature) ?? "");
      return [];
    }
    if (type === "compaction_delta" && block.kind === "compaction") {
      const content = asStr(delta.content);
      if (content !== undefined) block.content = (block.content ?? "") + content;
      const encrypted = asStr(delta.encrypted_content);
      if (encrypted !== undefined) block.encrypted = encrypted;
      return [];
    }
    if (type === "input_json_delta" && block.kind === "tool_use") {
      const partial = asStr(delta.partial_json) ?? "";
      block.json += partial;
      return partial ? [{ type: "tool_input_delta", index: block.index, partial_json: partial }] : [];
    }
    // citations_delta and anything newer: the assembled part does not carry them yet.
    return [];
  }

  #onBlockStop(wireIndex: number | undefined): StreamEvent[] {
    const block = this.#open("content_block_stop", wireIndex);
    if (wireIndex === undefined) return [];
    this.#skipped.delete(wireIndex);
    if (!block) return [];
    this.#blocks.delete(wireIndex);
    if (block.kind === "tool_use") {
      const raw = rawInput(block);
      const parsed = parseToolInput(raw);
      if (parsed.ok && raw.trim() !== "" && Object.keys(parsed.input).length > 0) {
        const part: Part = { type: "tool_use", id: block.id, name: block.name, input: parsed.input };
        return [{ type: "block_stop", index: block.index, part }];
      }
      const events = this.#release(undefined);
      this.#held = block;
      return events;
    }
    return [...this.#release(undefined), { type: "block_stop", index: block.index, part: partOf(block) }];
  }

  #onMessageDelta(delta: Obj | undefined, usage: Obj | undefined): StreamEvent[] {
    const reason = asStr(delta?.stop_reason);
    if (reason) this.#stopReason = mapStopReason(reason);
    const events = reason ? this.#release(cutReason(this.#stopReason)) : [];
    const read = readUsage(usage);
    if (read) events.push({ type: "usage", usage: read });
    return events;
  }

  /** Settles a held tool_use: cut off by the stop (`cut` says why), or final as the model sent it. */
  #release(cut: string | undefined): StreamEvent[] {
    const block = this.#held;
    if (!block) return [];
    this.#held = undefined;
    const { index, id, name } = block;
    const raw = rawInput(block);
    if (cut) {
      return [{ type: "block_incomplete", index, id, name, raw, reason: cut }];
    }
    const parsed = parseToolInput(raw);
    if (!parsed.ok) return [{ type: "block_invalid", index, id, name, raw, reason: parsed.reason }];
    return [{ type: "block_stop", index, part: { type: "tool_use", id, name, input: parsed.input } }];
  }
}

/** The streamed input JSON; a block without input deltas carries its input in content_block_start. */
function rawInput(block: Extract<Block, { kind: "tool_use" }>): string {
  return block.json === "" && block.initial ? JSON.stringify(block.initial) : block.json;
}

function partOf(block: Exclude<Block, { kind: "tool_use" }>): Part {
  switch (block.kind) {
    case "text":
      return { type: "text", text: block.text };
    case "thinking":
      return block.signature === undefined
        ? { type: "thinking", thinking: block.thinking }
        : { type: "thinking", thinking: block.thinking, signature: block.signature };
    case "redacted":
      return { type: "thinking", thinking: "", redacted: block.data };
    case "compaction": {
      // Empty content is not a summary (the API refuses it back): kept as the failed (null) kind.
      const part: Part = { type: "compaction", provider: "anthropic", content: block.content || null };
      return block.encrypted === undefined ? part : { ...part, encrypted: block.encrypted };
    }
  }
}

function mapStopReason(reason: string): StopReason {
  switch (reason) {
    case "end_turn":
    case "tool_use":
    case "max_tokens":
    case "stop_sequence":
    case "refusal":
      return reason;
    case "model_context_window_exceeded":
      return "max_tokens";
    default:
      return "other";
  }
}

const USAGE_FIELDS = [
  "input_tokens",
  "output_tokens",
  "cache_read_input_tokens",
  "cache_creation_input_tokens",
] as const satisfies ReadonlyArray<keyof Usage>;

function readUsage(usage: Obj | undefined): Partial<Usage> | undefined {
  if (!usage) return undefined;
  const out: Partial<Usage> = {};
  for (const field of USAGE_FIELDS) {
    const value = asNum(usage[field]);
    if (value !== undefined) out[field] = value;
  }
  // Server-side compaction passes are billed but left out of the top-level figures (those are the compacted
  // request's, which the context-size estimate reads): they are counted in fields of their own.
  const passes = (asArr(usage.iterations) ?? []).map(asObj).filter((it) => asStr(it?.type) === "compaction");
  if (passes.length > 0) {
    const count = (field: (typeof USAGE_FIELDS)[number]) =>
      passes.reduce((n, pass) => n + (asNum(pass?.[field]) ?? 0), 0);
    out.compaction_input_tokens =
      count("input_tokens") + count("cache_read_input_tokens") + count("cache_creation_input_tokens");
    out.compaction_output_tokens = count("output_tokens");
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
