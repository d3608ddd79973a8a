/**
 * Which loaded deferred tools survive a compaction (README "Long sessions").
 * A tool still named in the kept part of history (called, referenced or
 * declared there) always stays. The others stay while their schema is
 * unchanged since the model last saw it, most recently used first, within the
 * token budget; the rest leave the loaded set (they stay searchable and a
 * valid call still runs and reloads them). Pure.
 */
import type { Message } from "../../model/message";

/** A loaded deferred tool as the keep rule sees it. */
export interface LoadedInfo {
  name: string;
  /** Higher = used more recently (e.g. the seq of its last tool_use; 0 = never called). */
  lastUse: number;
  /** Estimated tokens of its declaration. */
  tokens: number;
  /** Fingerprint of the schema now, and the one recorded at the previous compaction (if any). */
  fingerprint: string;
  previous?: string;
}

export function keepLoaded(
  loaded: readonly LoadedInfo[],
  inKeptView: ReadonlySet<string>,
  budget: number,
): { kept: string[]; dropped: string[] } {
  const kept: string[] = [];
  const dropped: string[] = [];
  let used = 0;
  const rest: LoadedInfo[] = [];
  for (const t of loaded) {
    if (inKeptView.has(t.name)) {
      kept.push(t.name);
      used += t.tokens;
    } else rest.push(t);
  }
  rest.sort((a, b) => b.lastUse - a.lastUse);
  for (const t of rest) {
    const changed = t.previous !== undefined && t.previous !== t.fingerprint;
    if (!changed && used + t.tokens <= budget) {
      kept.push(t.name);
      used += t.tokens;
    } else dropped.push(t.name);
  }
  return { kept, dropped };
}

/** Tool names the given messages call, reference or declare. */
export function toolsNamedIn(messages: ReadonlyArray<Pick<Message, "parts">>): Set<string> {
  const names = toolsDeclaredIn(messages);
  for (const m of messages) for (const p of m.parts) if (p.type === "tool_use") names.add(p.name);
  return names;
}

/**
 * Tool names whose schema the given messages carry: a `tool_declarations` entry (message-level) or a
 * `tool_reference` in a result (Anthropic). A call alone does not declare its tool.
 */
export function toolsDeclaredIn(messages: ReadonlyArray<Pick<Message, "parts">>): Set<string> {
  const names = new Set<string>();
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.type === "tool_declarations") for (const t of p.tools) names.add(t.name);
      else if (p.type === "tool_result" && Array.isArray(p.content)) {
        for (const b of p.content) if (b.type === "tool_reference") names.add(b.tool_name);
      }
    }
  }
  return names;
}
