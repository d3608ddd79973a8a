/**
 * Which loaded deferred tools survive a compaction (README "Long sessions").
 * A tool still named in the kept part of history (called, referenced or
 * declared there) always stays. The others stay while their schema is
 * unchanged since the model last saw it, most recently used first, within the
 * token budget; the rest leave the loaded set (they stay searchable and a
 * valid call still runs and reloads them). The compaction record's row must
 * hold the kept declarations too: past its room the least recently used kept
 * tools leave as well, named ones included, those just loaded last. Pure.
 */
import { type Message, toolsReferencedIn } from "../../model/message";

/** A loaded deferred tool as the keep rule sees it. */
export interface LoadedInfo {
  name: string;
  /** Higher = used more recently (e.g. the seq of its last tool_use; 0 = never called). */
  lastUse: number;
  /**
   * Loaded by a step whose results or declarations history does not carry yet (a paused turn's): never called,
   * so its `lastUse` is 0, yet the model was just told it is loaded; the row's cut takes it last.
   */
  justLoaded?: boolean;
  /** Estimated tokens of its declaration. */
  tokens: number;
  /** Bytes it adds to the compaction record's row when kept (its declaration and snapshot entry). */
  bytes: number;
  /** Fingerprint of the schema now, and the one recorded at the previous compaction (if any). */
  fingerprint: string;
  previous?: string;
}

/**
 * `budget`: the tokens the kept declarations may take (tools named in `inKeptView` always count as kept);
 * `room`: the bytes they may take in the record's row, which no tool overrides.
 */
export function keepLoaded(
  loaded: readonly LoadedInfo[],
  inKeptView: ReadonlySet<string>,
  budget: number,
  room = Number.POSITIVE_INFINITY,
): { kept: string[]; dropped: string[] } {
  const kept: LoadedInfo[] = [];
  const dropped: string[] = [];
  let used = 0;
  const rest: LoadedInfo[] = [];
  for (const t of loaded) {
    if (inKeptView.has(t.name)) {
      kept.push(t);
      used += t.tokens;
    } else rest.push(t);
  }
  rest.sort((a, b) => b.lastUse - a.lastUse);
  for (const t of rest) {
    const changed = t.previous !== undefined && t.previous !== t.fingerprint;
    if (!changed && used + t.tokens <= budget) {
      kept.push(t);
      used += t.tokens;
    } else dropped.push(t.name);
  }
  // A row over the platform's limit would fail the compaction, and with it every turn that needs one: the least
  // recently used kept tools leave (a named one too: a valid call loads it again) until the rest fit. Those just
  // loaded go last: dropping one would put its removal before the result that says it loaded.
  let bytes = kept.reduce((n, t) => n + t.bytes, 0);
  const leaving = new Set<string>();
  const cutOrder = (a: LoadedInfo, b: LoadedInfo) =>
    Number(a.justLoaded === true) - Number(b.justLoaded === true) || a.lastUse - b.lastUse;
  for (const t of [...kept].sort(cutOrder)) {
    if (bytes <= room) break;
    leaving.add(t.name);
    bytes -= t.bytes;
  }
  return {
    kept: kept.filter((t) => !leaving.has(t.name)).map((t) => t.name),
    dropped: [...dropped, ...leaving],
  };
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
  const names = toolsReferencedIn(messages);
  for (const m of messages) {
    for (const p of m.parts) if (p.type === "tool_declarations") for (const t of p.tools) names.add(t.name);
  }
  return names;
}
