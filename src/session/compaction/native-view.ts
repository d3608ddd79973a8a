/**
 * The provider view after a native (provider-side) compaction (README "Long
 * sessions"). The provider drops everything before its compaction block, so
 * the view opens with a short note the provider ignores, then the assistant
 * message holding the block; what the model must still read comes after it.
 * Also which opaque compaction a summary request can open with.
 */
import type { CompactionPart, Message, Part } from "../../model/message";
import { getAdapter, type ProviderName } from "../../providers/index";

/** Opens the view after a native compaction; the provider ignores it (it drops what precedes its block). */
export const NATIVE_NOTE =
  "(The earlier part of this conversation was compacted; the compaction that follows summarises it.)";

/**
 * The view after a native compaction, whose first message holds the provider's compaction block:
 * the provider ignores everything before that block, so only the opening note and the tool-set
 * baseline (never sent) stay in front; what the model must read (the `<tools_removed>` note, kept
 * declarations) is appended to the first user message after the block. Pure.
 */
export function nativeView(preamble: Message, messages: readonly Message[]): Message[] {
  const front = (p: Part) => p.type === "notice" || (p.type === "text" && p.text === NATIVE_NOTE);
  const lead: Message = { ...preamble, parts: preamble.parts.filter(front) };
  const after = preamble.parts.filter((p) => !front(p));
  if (after.length === 0) return [lead, ...messages];
  const at = messages.findIndex((m, i) => i > 0 && m.role === "user");
  if (at === -1) return [lead, ...messages, { ...preamble, parts: after }];
  const next = messages[at] as Message;
  return [lead, ...messages.slice(0, at), { ...next, parts: [...next.parts, ...after] }, ...messages.slice(at + 1)];
}

/**
 * The newest compaction in `messages` whose content only its provider can read (OpenAI Responses' item), for a
 * summary request to open with. Only the Responses API reads it back (its adapter's `opaqueCompactionFrom`): another
 * provider's projection drops it, and the summariser would be told to cover context it never received.
 */
export function opaqueCompaction(messages: readonly Message[], provider: ProviderName): CompactionPart | undefined {
  const from = getAdapter(provider).opaqueCompactionFrom;
  if (from === undefined) return undefined;
  let found: CompactionPart | undefined;
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.type === "compaction" && p.provider === from && !p.content && p.encrypted !== undefined) found = p;
    }
  }
  return found;
}
