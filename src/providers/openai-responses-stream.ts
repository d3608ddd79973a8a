/**
 * OpenAI Responses API stream events → canonical events (the parser of the `openai-responses` adapter). A `refusal`
 * content part (streamed as `response.refusal.delta`) is text whose end (`response.completed`, or the output limit)
 * reads as the stop reason `refusal`. Throws ProviderFailure on a malformed event, an event out of order (a second
 * response.created, an item or end event before it, an output_item.added at an output_index already used, a second
 * output_item.done for one item, a delta for an item that is not open), a stream error event (classified by
 * stream-error.ts), or EOF before the end.
 */
import type { Part } from "../model/message";
import type { StopReason, StreamEvent, Usage } from "../model/stream";
import { asArr, asNum, asObj, asStr, badResponse, type Obj, parseEventData, parseToolInput } from "./json";
import { RESPONSES_COMPACTION_PROVIDER } from "./openai-responses-body";
import type { EventSourceMessage } from "./sse";
import { cutReason, outputStop, type WireParser } from "./stream-driver";
import { streamFailure } from "./stream-error";
import { ProviderFailure } from "./types";

type Item =
  | { kind: "text"; index: number; text: string; opened: boolean }
  | { kind: "call"; index: number; id: string; name: string; args: string };

/** The events that belong to a response: before its response.created they are out of order. */
const RESPONSE_EVENTS = new Set([
  "response.output_item.added",
  "response.output_text.delta",
  "response.refusal.delta",
  "response.function_call_arguments.delta",
  "response.output_item.done",
  "response.completed",
  "response.incomplete",
]);

/**
 * Responses API events → canonical events. Output items are the blocks: a
 * `message` item is a text block (opened by its first delta, or taken whole
 * from its done item when no delta came), a
 * `function_call` item a tool_use block whose input is parsed only at
 * `response.output_item.done` (and stripped when that item's status says it
 * was cut), and a `compaction` item (server-side
 * compaction past `compact_threshold`) becomes a compaction part at once,
 * with no UI block. Only `response.completed` / `response.incomplete` end a
 * stream; anything else before EOF is a cut.
 */
export class ResponsesStreamParser implements WireParser {
  #started = false;
  readonly #items = new Map<number, Item>();
  /** Output indexes of items added or done (any type): an output_item.added at one of them is out of order. */
  readonly #used = new Set<number>();
  /** Output indexes of items done: a second output_item.done at one of them would close (and run) a call again. */
  readonly #closed = new Set<number>();
  #nextIndex = 0;
  #validCalls = 0;
  /** A refusal part came (its deltas, or in a done message item): the response ends a refusal, not a turn. */
  #refused = false;
  done = false;

  push(message: EventSourceMessage): StreamEvent[] {
    const event = asObj(parseEventData(message.data));
    if (!event) throw badResponse(`event is not an object: ${message.data.slice(0, 200)}`);
    const type = asStr(event.type) ?? message.event;
    const events: StreamEvent[] = [];
    const response = asObj(event.response);
    if (type !== undefined && RESPONSE_EVENTS.has(type) && !this.#started) {
      throw badResponse(`${type} before response.created`);
    }
    const at = asNum(event.output_index);
    switch (type) {
      case "response.created":
        // A proxy splicing a retried attempt onto a cut one starts a second response: its calls would run twice.
        if (this.#started) throw badResponse("a second response.created in one stream");
        this.#started = true;
        events.push({ type: "message_start", id: asStr(response?.id) ?? "", model: asStr(response?.model) ?? "" });
        break;
      case "response.output_item.added":
        this.#onAdded(at, asObj(event.item), events);
        break;
      case "response.output_text.delta":
        this.#onText(at, asStr(event.delta) ?? "", events);
        break;
      case "response.refusal.delta": {
        // The model's refusal: its answer, shown as text, whose end reads as a refusal (outputStop).
        const delta = asStr(event.delta) ?? "";
        this.#onText(at, delta, events);
        if (delta) this.#refused = true;
        break;
      }
      case "response.function_call_arguments.delta":
        this.#onArguments(at, asStr(event.delta) ?? "", events);
        break;
      case "response.output_item.done":
        this.#onDone(at, asObj(event.item), events);
        break;
      case "response.completed":
        this.#finish(response, "end_turn", events);
        break;
      case "response.incomplete": {
        const reason = asStr(asObj(response?.incomplete_details)?.reason);
        this.#finish(
          response,
          reason === "max_output_tokens" ? "max_tokens" : reason === "content_filter" ? "refusal" : "other",
          events,
        );
        break;
      }
      case "response.failed":
        throw streamFailure(asObj(response?.error));
      case "error":
        // The live API nests the error (`{"type":"error","error":{code, message, …}}`); the documented shape is flat
        // (its `type` is the event's own).
        throw streamFailure(asObj(event.error) ?? { code: event.code, message: event.message });
    }
    return events;
  }

  end(): StreamEvent[] {
    if (this.done) return [];
    throw new ProviderFailure({
      code: "provider_stream_cut",
      message: "provider stream ended before response.completed",
      retryable: true,
    });
  }

  #onAdded(at: number | undefined, item: Obj | undefined, events: StreamEvent[]): void {
    if (at === undefined || !item) throw badResponse("response.output_item.added without output_index or item");
    if (this.#used.has(at)) throw badResponse(`response.output_item.added at output_index ${at}, already used`);
    this.#used.add(at);
    this.#open(at, item, events);
  }

  /** Opens the item at `at`: a message waits for its first delta, a function_call starts its block. */
  #open(at: number, item: Obj, events: StreamEvent[]): void {
    const type = asStr(item.type);
    if (type === "message") {
      this.#items.set(at, { kind: "text", index: -1, text: "", opened: false });
    } else if (type === "function_call") {
      const id = asStr(item.call_id);
      const name = asStr(item.name);
      if (!id || !name) throw badResponse("function_call item without call_id or name");
      const index = this.#nextIndex++;
      this.#items.set(at, { kind: "call", index, id, name, args: asStr(item.arguments) ?? "" });
      events.push({ type: "block_start", index, kind: "tool_use", id, name });
    }
  }

  #onText(at: number | undefined, delta: string, events: StreamEvent[]): void {
    const item = at === undefined ? undefined : this.#items.get(at);
    if (item?.kind !== "text") throw badResponse("text delta for an output item that is not a message");
    if (delta === "") return;
    if (!item.opened) {
      item.opened = true;
      item.index = this.#nextIndex++;
      events.push({ type: "block_start", index: item.index, kind: "text" });
    }
    item.text += delta;
    events.push({ type: "text_delta", index: item.index, text: delta });
  }

  #onArguments(at: number | undefined, delta: string, events: StreamEvent[]): void {
    const item = at === undefined ? undefined : this.#items.get(at);
    if (item?.kind !== "call") throw badResponse("arguments delta for an output item that is not a function_call");
    if (delta === "") return;
    item.args += delta;
    events.push({ type: "tool_input_delta", index: item.index, partial_json: delta });
  }

  #onDone(at: number | undefined, wire: Obj | undefined, events: StreamEvent[]): void {
    if (at === undefined || !wire) throw badResponse("response.output_item.done without output_index or item");
    if (this.#closed.has(at)) throw badResponse(`response.output_item.done for output_index ${at}, already done`);
    this.#closed.add(at);
    this.#used.add(at);
    this.#close(at, wire, events);
  }

  /** Closes the item at `at` with its done item `wire` (opening it first when it came only as its done item). */
  #close(at: number, wire: Obj, events: StreamEvent[]): void {
    if (asStr(wire.type) === "compaction") {
      const encrypted = asStr(wire.encrypted_content);
      if (!encrypted) throw badResponse("compaction item without encrypted_content");
      // The API's compaction is opaque (no readable summary): content "" marks a completed one.
      const part: Part = { type: "compaction", provider: RESPONSES_COMPACTION_PROVIDER, content: "", encrypted };
      events.push({ type: "block_stop", index: this.#nextIndex++, part });
      return;
    }
    const item = this.#items.get(at);
    this.#items.delete(at);
    // Its refusal part may have come whole, in the done item alone.
    if (asStr(wire.type) === "message" && hasRefusal(wire)) this.#refused = true;
    if (item?.kind !== "call" && !item?.opened && asStr(wire.type) === "message") {
      // Some proxies send a message only as its done item, without deltas: its text is in content[].
      const text = messageText(wire);
      if (text) {
        const index = this.#nextIndex++;
        events.push(
          { type: "block_start", index, kind: "text" },
          { type: "text_delta", index, text },
          { type: "block_stop", index, part: { type: "text", text } },
        );
      }
      return;
    }
    if (!item && asStr(wire.type) === "function_call") {
      // Some proxies send a call only as its done item, too: opened and closed here.
      this.#open(at, wire, events);
      this.#close(at, wire, events);
      return;
    }
    if (!item) return;
    if (item.kind === "text") {
      if (item.opened) events.push({ type: "block_stop", index: item.index, part: { type: "text", text: item.text } });
      return;
    }
    // The done item carries the whole arguments string; the deltas were its pieces.
    const raw = asStr(wire.arguments) ?? item.args;
    const status = asStr(wire.status);
    if (status !== undefined && status !== "completed") {
      // Cut by the output limit or the content filter ("incomplete"): its arguments may be a
      // prefix that happens to parse, or empty, so it is stripped and never run (DESIGN §3, P5).
      const { index, id, name } = item;
      events.push({ type: "block_incomplete", index, id, name, raw, reason: `the function_call item ended ${status}` });
      return;
    }
    const parsed = parseToolInput(raw);
    if (parsed.ok) {
      this.#validCalls++;
      events.push({
        type: "block_stop",
        index: item.index,
        part: { type: "tool_use", id: item.id, name: item.name, input: parsed.input },
      });
    } else {
      const { index, id, name } = item;
      events.push({ type: "block_invalid", index, id, name, raw, reason: parsed.reason });
    }
  }

  /**
   * The end of the response. Items still open were cut (by the output limit, the content filter or
   * a response that ended without closing them): text so far is kept, a call never becomes a part
   * (DESIGN §3, P5). `stop` is what the end says (`end_turn` for response.completed); the step's stop also counts
   * the calls made and a refusal (outputStop).
   */
  #finish(response: Obj | undefined, stop: StopReason, events: StreamEvent[]): void {
    const reason = cutReason(stop) ?? "the response ended before the call finished";
    for (const item of [...this.#items.values()].sort((a, b) => a.index - b.index)) {
      if (item.kind === "text") {
        if (item.opened)
          events.push({ type: "block_stop", index: item.index, part: { type: "text", text: item.text } });
      } else {
        const { index, id, name, args: raw } = item;
        events.push({ type: "block_incomplete", index, id, name, raw, reason });
      }
    }
    this.#items.clear();
    const usage = readUsage(asObj(response?.usage));
    if (usage) events.push({ type: "usage", usage });
    events.push({ type: "message_stop", stop_reason: outputStop(stop, this.#validCalls, this.#refused) });
    this.done = true;
  }
}

/** Whether a whole `message` item holds a refusal part with text. */
function hasRefusal(item: Obj): boolean {
  return (asArr(item.content) ?? []).some((p) => asObj(p)?.type === "refusal" && Boolean(asStr(asObj(p)?.refusal)));
}

/** The text of a whole `message` item: its output_text parts (and refusal parts, streamed as text too). */
function messageText(item: Obj): string {
  return (asArr(item.content) ?? [])
    .map((p) => asObj(p))
    .map((p) => (p?.type === "output_text" ? asStr(p.text) : p?.type === "refusal" ? asStr(p.refusal) : undefined))
    .join("");
}

function readUsage(usage: Obj | undefined): Partial<Usage> | undefined {
  if (!usage) return undefined;
  const out: Partial<Usage> = {};
  const input = asNum(usage.input_tokens);
  const output = asNum(usage.output_tokens);
  const cached = asNum(asObj(usage.input_tokens_details)?.cached_tokens);
  // input_tokens includes cache hits; canonical input_tokens (Anthropic's meaning) does not.
  if (input !== undefined) out.input_tokens = Math.max(0, input - (cached ?? 0));
  if (output !== undefined) out.output_tokens = output;
  if (cached !== undefined) out.cache_read_input_tokens = cached;
  return Object.keys(out).length > 0 ? out : undefined;
}
