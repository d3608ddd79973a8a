/**
 * What a turn's logged UI chunks leave open for a client that read them all (`leftOpen` → `LeftOpen`): parts that
 * started and never ended, calls whose input never completed, the calls it knows, and whether a step is open. An
 * encoder that takes over a turn whose writer writes no more (UiEncoder `continueFrom`) closes what it says.
 */
import type { UiChunk } from "./ui-chunks";

/** A block the client has seen start but not yet end. */
export type OpenBlock =
  | { kind: "text"; id: string }
  | { kind: "reasoning"; id: string }
  | { kind: "tool"; toolCallId: string; toolName: string; raw: string };

export interface LeftOpen {
  /** In start order: text and reasoning parts not ended, calls whose input is neither available nor in error. */
  open: OpenBlock[];
  /** Every call the chunks name a part for: an outcome of any other would make the client throw. */
  known: Set<string>;
  /** A `start-step` not yet followed by its `finish-step`. */
  stepOpen: boolean;
  /** The message's last step is an empty one (`start-step` right before its `finish-step`). */
  emptyLast: boolean;
}

/**
 * Folds a turn's chunks, every segment of it in order, as the AI SDK client assembles them into one message: a
 * segment's `start` goes on with the same message, so nothing is reset there.
 */
export function leftOpen(chunks: Iterable<UiChunk>): LeftOpen {
  const open = new Map<string, OpenBlock>();
  const known = new Set<string>();
  let stepOpen = false;
  let emptyLast = false;
  /** The open step has a chunk of its own (a part, an outcome, data). */
  let stepUsed = false;
  for (const chunk of chunks) {
    switch (chunk.type) {
      case "start-step":
        stepOpen = true;
        stepUsed = false;
        emptyLast = false;
        continue;
      case "finish-step":
        if (stepOpen) emptyLast = !stepUsed;
        stepOpen = false;
        continue;
      case "start":
      case "finish":
      case "abort":
      case "error":
        continue;
      case "text-start":
        open.set(`t:${chunk.id}`, { kind: "text", id: chunk.id });
        break;
      case "reasoning-start":
        open.set(`r:${chunk.id}`, { kind: "reasoning", id: chunk.id });
        break;
      case "text-end":
        open.delete(`t:${chunk.id}`);
        break;
      case "reasoning-end":
        open.delete(`r:${chunk.id}`);
        break;
      case "tool-input-start":
        known.add(chunk.toolCallId);
        open.set(`c:${chunk.toolCallId}`, {
          kind: "tool",
          toolCallId: chunk.toolCallId,
          toolName: chunk.toolName,
          raw: "",
        });
        break;
      case "tool-input-delta": {
        const block = open.get(`c:${chunk.toolCallId}`);
        if (block?.kind === "tool") block.raw += chunk.inputTextDelta;
        break;
      }
      case "tool-input-available":
      case "tool-input-error":
        // Either makes the client hold a part for the call, whether or not its start came first.
        known.add(chunk.toolCallId);
        open.delete(`c:${chunk.toolCallId}`);
        break;
      default:
        break;
    }
    stepUsed = true;
  }
  return { open: [...open.values()], known, stepOpen, emptyLast };
}
