/**
 * The turn's UI stream encoder: `UiEncoder` maps turn events to AI SDK UI message chunks, its state reset at
 * each `turn_start` (or taken from the turn's logged frames, `continueFrom`). Pure and synchronous; it never emits
 * a chunk the AI SDK client would reject. The chunks an event alone decides: event-chunks.ts.
 */
import { resultValue } from "../../model/json";
import type { Part, ToolResultContent } from "../../model/message";
import { resultText } from "../../model/message";
import type { StreamEvent } from "../../model/stream";
import { approvalRequestChunk, approvalResponseChunk, dataChunk, retryChunk } from "./event-chunks";
import type { LeftOpen, OpenBlock } from "./left-open";
import type { TurnEvent } from "./turn-events";
import type { UiChunk } from "./ui-chunks";

/**
 * The fields of every `tool-input-error`: the session answered or dropped that call itself, whoever runs its tool
 * (invalid or cut-off input, a call it refused or the step left unanswered), so it is marked providerExecuted and a
 * client (useChat's `lastAssistantMessageIsCompleteWithToolCalls`, a /chat body) never takes it for a call whose
 * answer it must send.
 */
const SESSION_ENDED = { dynamic: true, providerExecuted: true } as const;

/**
 * Turns the runner's TurnEvents into AI SDK UI message chunks. Pure and
 * synchronous so the session can encode, coalesce and log in one step.
 *
 * The AI SDK client throws on a delta or end whose part it never saw start,
 * and leaves parts "streaming" forever if they are never ended. So the encoder
 * tracks what it opened and guarantees: nothing references an id whose start
 * was not sent, and every open part is closed before finish-step, error or
 * finish, whatever order (or omission) the runner's events come in.
 */
export class UiEncoder {
  #messageId = "";
  #step = 0;
  #stepOpen = false;
  /** The message's last step, as far as this encoder knows, is the empty one `#emptyStep` sent. */
  #emptyLast = false;
  /** Keyed by provider block index; Map order is start order, which keeps closing deterministic. */
  readonly #open = new Map<number, OpenBlock>();
  readonly #usedIds = new Set<string>();
  /** Tool calls the client knows about; outputs for any other id would make the client throw. */
  readonly #startedTools = new Set<string>();
  /**
   * Client tools' calls whose input is complete but not yet sent: useChat runs a call (onToolCall) as soon as its
   * input is available, so it is sent only once the tool phase takes the call as the client's (`tool_open`). One
   * the session answers instead (invalid, refused, skipped) ends as a tool-input-error the client does not run.
   */
  readonly #held = new Map<string, { toolName: string; input: unknown }>();
  /** Calls whose outcome this segment sent: one told again as of an earlier segment (`earlier`) is left out. */
  readonly #answered = new Set<string>();
  /**
   * The encoder took over the turn's frames (`continueFrom`), every segment's: a call they never started is one no
   * client knows, of an earlier segment (`earlier`) too.
   */
  #wholeTurn = false;
  readonly #serverRuns: (toolName: string) => boolean;

  /**
   * `serverRuns(name)`: whether the session runs the calls of that tool (http, MCP, built-ins, an unknown name it
   * answers itself). Their parts carry `providerExecuted`, so a client (useChat's `onToolCall`,
   * `lastAssistantMessageIsCompleteWithToolCalls`) never takes them for calls it must answer.
   */
  constructor(serverRuns: (toolName: string) => boolean = () => false) {
    this.#serverRuns = serverRuns;
  }

  /** The fields every tool chunk of `toolName` carries. */
  #toolFields(toolName: string): { dynamic: true; providerExecuted?: true } {
    // Our tools are declared server-side, not typed on the client, so they render as dynamic-tool parts.
    return this.#serverRuns(toolName) ? { dynamic: true, providerExecuted: true } : { dynamic: true };
  }

  /**
   * Goes on with a turn whose frames so far another encoder sent, one that sends no more (a lost instance, a
   * runner that could not write its end, a paused segment): what those frames leave open (`left`) becomes this
   * one's state, and the chunks that close it are returned, as for an abandoned step that then ends (its parts
   * ended, a call whose input was streaming in error, `finish-step`).
   */
  continueFrom(left: LeftOpen, reason: string): UiChunk[] {
    this.#reset(this.#messageId);
    for (const [i, block] of left.open.entries()) this.#open.set(i, { ...block });
    for (const id of left.known) this.#startedTools.add(id);
    this.#stepOpen = left.stepOpen;
    this.#emptyLast = left.emptyLast;
    this.#wholeTurn = true;
    return this.#endStep(reason);
  }

  push(ev: TurnEvent): UiChunk[] {
    switch (ev.type) {
      case "turn_start":
        this.#reset(ev.message_id);
        return [{ type: "start", messageId: ev.message_id }];
      case "step_start": {
        const out = this.#endStep("a new step started");
        this.#step = ev.step;
        this.#stepOpen = true;
        this.#emptyLast = false;
        out.push({ type: "start-step" });
        return out;
      }
      case "provider":
        return this.#provider(ev.event);
      case "step_abandoned":
        return this.#closeAll(ev.reason);
      case "tool_output":
        return this.#toolOutput(ev.tool_use_id, ev.content, ev.is_error, ev.earlier === true);
      case "tool_open": {
        const held = this.#held.get(ev.tool_use_id);
        if (held === undefined) return [];
        this.#held.delete(ev.tool_use_id);
        return [{ type: "tool-input-available", toolCallId: ev.tool_use_id, ...held, dynamic: true }];
      }
      case "approval_request":
        // Like outputs, a request for a call the client never saw start would make it throw.
        if (!this.#startedTools.has(ev.tool_use_id)) return [];
        return [approvalRequestChunk(ev)];
      case "approval_answer":
        // For an approval of an earlier segment (which a continuing client, useChat, holds) or earlier in this one.
        return [approvalResponseChunk(ev)];
      case "tool_denied":
        // For a call of an earlier segment (which a continuing client, useChat, holds) or earlier in this one.
        if (this.#wholeTurn && !this.#startedTools.has(ev.tool_use_id)) return [];
        return [{ type: "tool-output-denied", toolCallId: ev.tool_use_id }];
      case "step_finish":
        return this.#endStep("the step finished first");
      case "no_more_steps":
        return this.#emptyStep();
      case "data":
        return [dataChunk(ev)];
      case "turn_error": {
        // Clients stop processing at an error chunk, so the message must already be consistent.
        const out = this.#endStep(ev.code);
        out.push({ type: "error", errorText: `${ev.code}: ${ev.message}` });
        return out;
      }
      case "turn_finish": {
        const out = this.#endStep("the turn ended first");
        // `finish` alone cannot say "cancelled"; `abort` is how the AI SDK marks it, and useChat ignores it.
        if (ev.status === "cancelled") out.push({ type: "abort", reason: "cancelled" });
        out.push({ type: "finish", finishReason: ev.finish_reason });
        return out;
      }
    }
  }

  #reset(messageId: string): void {
    this.#messageId = messageId;
    this.#step = 0;
    this.#stepOpen = false;
    this.#emptyLast = false;
    this.#open.clear();
    this.#usedIds.clear();
    this.#startedTools.clear();
    this.#held.clear();
    this.#answered.clear();
    this.#wholeTurn = false;
  }

  #provider(e: StreamEvent): UiChunk[] {
    switch (e.type) {
      case "block_start": {
        const out = this.#closeIndex(e.index, "another block started at its index");
        if (e.kind === "tool_use") {
          this.#open.set(e.index, { kind: "tool", toolCallId: e.id, toolName: e.name, raw: "" });
          out.push(this.#toolStart(e.id, e.name));
        } else {
          out.push(this.#openPart(e.index, e.kind === "text" ? "text" : "reasoning"));
        }
        return out;
      }
      case "text_delta":
        return this.#partDelta(e.index, "text", e.text);
      case "thinking_delta":
        return this.#partDelta(e.index, "reasoning", e.thinking);
      case "tool_input_delta": {
        const block = this.#open.get(e.index);
        // Without a block_start we know neither the call id nor the tool name, so there is nothing to attach to.
        if (block?.kind !== "tool" || e.partial_json === "") return [];
        block.raw += e.partial_json;
        return [{ type: "tool-input-delta", toolCallId: block.toolCallId, inputTextDelta: e.partial_json }];
      }
      case "block_stop":
        return this.#blockStop(e.index, e.part);
      case "block_invalid":
      case "block_incomplete": {
        const block = this.#open.get(e.index);
        const out: UiChunk[] = [];
        if (block?.kind !== "tool" || block.toolCallId !== e.id) {
          out.push(...this.#closeIndex(e.index, "its block was replaced"), this.#toolStart(e.id, e.name));
        }
        this.#open.delete(e.index);
        // What the step does with each (step.ts): an invalid call is kept with empty input and answered with an
        // error the model can correct from; an incomplete one is stripped.
        const fate =
          e.type === "block_invalid"
            ? `was invalid (${e.reason}); the call is answered with an error`
            : `was incomplete (${e.reason}), so the call was dropped`;
        out.push({
          type: "tool-input-error",
          toolCallId: e.id,
          toolName: e.name,
          input: e.raw,
          errorText: `The input JSON for tool ${e.name} ${fate}.`,
          ...SESSION_ENDED,
        });
        return out;
      }
      case "retry":
        return [retryChunk(e)];
      case "message_start":
      case "usage":
      case "message_stop":
        return [];
    }
  }

  #blockStop(index: number, part: Part): UiChunk[] {
    const block = this.#open.get(index);
    if (block === undefined) return this.#wholePart(part);
    if (block.kind === "tool" && part.type === "tool_use") {
      this.#open.delete(index);
      // The finished call's own name decides who runs it (the block's start may not have had it).
      return this.#inputAvailable(block.toolCallId, part.name, part.input);
    }
    return this.#closeIndex(index, "its block ended without a tool call");
  }

  /** A call's complete input: sent now for a call the session runs, held until `tool_open` for a client tool's call. */
  #inputAvailable(toolCallId: string, toolName: string, input: unknown): UiChunk[] {
    if (!this.#serverRuns(toolName)) {
      this.#held.set(toolCallId, { toolName, input });
      return [];
    }
    return [{ type: "tool-input-available", toolCallId, toolName, input, ...this.#toolFields(toolName) }];
  }

  /**
   * A held call the session answered itself, or that the step left unanswered: its part ends in error, marked
   * providerExecuted so the client neither runs it nor sends an answer of its own.
   */
  #heldEnds(toolCallId: string, errorText: string): UiChunk[] {
    const held = this.#held.get(toolCallId);
    if (held === undefined) return [];
    this.#held.delete(toolCallId);
    return [{ type: "tool-input-error", toolCallId, ...held, errorText, ...SESSION_ENDED }];
  }

  /** A part that completed without its start having been seen: send it whole so it is not lost. */
  #wholePart(part: Part): UiChunk[] {
    if (part.type === "tool_use") {
      return [this.#toolStart(part.id, part.name), ...this.#inputAvailable(part.id, part.name, part.input)];
    }
    const kind = part.type === "text" ? "text" : part.type === "thinking" ? "reasoning" : undefined;
    const text = part.type === "text" ? part.text : part.type === "thinking" ? part.thinking : "";
    // Redacted thinking has no readable text; an empty reasoning part would only clutter the UI.
    if (kind === undefined || text === "") return [];
    const id = this.#allocId(kind === "text" ? "t" : "r", -1);
    return [
      { type: `${kind}-start`, id },
      { type: `${kind}-delta`, id, delta: text },
      { type: `${kind}-end`, id },
    ];
  }

  #partDelta(index: number, kind: "text" | "reasoning", delta: string): UiChunk[] {
    if (delta === "") return [];
    const block = this.#open.get(index);
    const out: UiChunk[] = [];
    let id: string;
    if (block === undefined) {
      // A delta without its block_start still carries content worth showing; open the part implicitly.
      const start = this.#openPart(index, kind);
      out.push(start);
      id = start.id;
    } else if (block.kind === kind) {
      id = block.id;
    } else {
      return [];
    }
    out.push({ type: `${kind}-delta`, id, delta });
    return out;
  }

  #openPart(index: number, kind: "text" | "reasoning"): UiChunk & { id: string } {
    const id = this.#allocId(kind === "text" ? "t" : "r", index);
    this.#open.set(index, { kind, id });
    return { type: `${kind}-start`, id };
  }

  #toolStart(toolCallId: string, toolName: string): UiChunk {
    this.#startedTools.add(toolCallId);
    return { type: "tool-input-start", toolCallId, toolName, ...this.#toolFields(toolName) };
  }

  #toolOutput(toolCallId: string, content: ToolResultContent, isError: boolean, earlier: boolean): UiChunk[] {
    // A call of an earlier segment is known to a continuing client (useChat keeps the message), not to this encoder,
    // unless it took over the turn's frames: then a call they never started is one no client saw (its frames lost).
    if ((!earlier || this.#wholeTurn) && !this.#startedTools.has(toolCallId)) return [];
    // An outcome told again after its step (a client's result): the part already has it.
    if (earlier && this.#answered.has(toolCallId)) return [];
    this.#answered.add(toolCallId);
    // Blocks are separate pieces of output; a newline keeps them from running into each other.
    const text = resultText(content);
    if (this.#held.has(toolCallId)) return this.#heldEnds(toolCallId, text);
    return isError
      ? [{ type: "tool-output-error", toolCallId, errorText: text, dynamic: true }]
      : [{ type: "tool-output-available", toolCallId, output: resultValue(text), dynamic: true }];
  }

  #endStep(reason: string): UiChunk[] {
    const out = this.#closeAll(reason);
    if (this.#stepOpen) {
      this.#stepOpen = false;
      out.push({ type: "finish-step" });
    }
    return out;
  }

  /**
   * The turn runs no more steps: an empty step, so a continuing client's message no longer ends with a step whose
   * client calls are answered (the paused step a segment resumed at max_steps tells the results of, a step whose
   * calls a cancel answered). The AI SDK decides whether to send again from the message's last step (the parts after
   * its last `step-start`): with every client call of it answered, `lastAssistantMessageIsCompleteWithToolCalls`
   * says yes, and useChat would post the answers again. Once, and not inside an open step: a turn ends there by an
   * error (after which useChat sends nothing) or by a cancel during the model's answer, before any of the step's
   * calls was handed to the client (`tool_open`).
   */
  #emptyStep(): UiChunk[] {
    if (this.#stepOpen || this.#emptyLast) return [];
    this.#emptyLast = true;
    return [{ type: "start-step" }, { type: "finish-step" }];
  }

  #closeAll(reason: string): UiChunk[] {
    const out: UiChunk[] = [];
    for (const index of [...this.#open.keys()]) out.push(...this.#closeIndex(index, reason));
    for (const [id, { toolName }] of [...this.#held]) {
      out.push(...this.#heldEnds(id, `The call to tool ${toolName} was not handed to the client (${reason}).`));
    }
    return out;
  }

  #closeIndex(index: number, reason: string): UiChunk[] {
    const block = this.#open.get(index);
    if (block === undefined) return [];
    this.#open.delete(index);
    switch (block.kind) {
      case "text":
        return [{ type: "text-end", id: block.id }];
      case "reasoning":
        return [{ type: "reasoning-end", id: block.id }];
      case "tool":
        return [
          {
            type: "tool-input-error",
            toolCallId: block.toolCallId,
            toolName: block.toolName,
            input: block.raw,
            errorText: `The input JSON for tool ${block.toolName} was incomplete (${reason}), so the call was dropped.`,
            ...SESSION_ENDED,
          },
        ];
    }
  }

  /** Part ids must be unique within the turn: the client keys live parts by id, and replays must not merge parts. */
  #allocId(kind: "t" | "r", index: number): string {
    const base = `${this.#messageId}-${kind}${this.#step}-${index < 0 ? "x" : index}`;
    let id = base;
    for (let n = 2; this.#usedIds.has(id); n++) id = `${base}-${n}`;
    this.#usedIds.add(id);
    return id;
  }
}
