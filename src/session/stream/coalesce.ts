/**
 * Merges adjacent UI stream deltas before they are logged (`coalesce`); pure, and never reorders chunks.
 */
import type { UiChunk } from "./ui-chunks";

/**
 * Merges runs of consecutive deltas for the same part into one chunk. The
 * session logs coalesced chunks, so this is what bounds stream-log rows per
 * token. Only adjacent deltas merge: moving a delta past any other chunk could
 * change what the client assembles (e.g. text ordered around a tool part).
 * Inputs are not mutated; the caller may still hold them.
 */
export function coalesce(chunks: UiChunk[]): UiChunk[] {
  const out: UiChunk[] = [];
  for (const chunk of chunks) {
    const prev = out[out.length - 1];
    const merged = prev === undefined ? undefined : merge(prev, chunk);
    if (merged === undefined) out.push(chunk);
    else out[out.length - 1] = merged;
  }
  return out;
}

function merge(a: UiChunk, b: UiChunk): UiChunk | undefined {
  if (a.type === "text-delta" && b.type === "text-delta" && a.id === b.id) {
    return { type: "text-delta", id: a.id, delta: a.delta + b.delta };
  }
  if (a.type === "reasoning-delta" && b.type === "reasoning-delta" && a.id === b.id) {
    return { type: "reasoning-delta", id: a.id, delta: a.delta + b.delta };
  }
  if (a.type === "tool-input-delta" && b.type === "tool-input-delta" && a.toolCallId === b.toolCallId) {
    return { type: "tool-input-delta", toolCallId: a.toolCallId, inputTextDelta: a.inputTextDelta + b.inputTextDelta };
  }
  return undefined;
}
