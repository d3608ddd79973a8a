/**
 * What a compaction changes in a step request's tools[]: `keptAfterCompaction`, a pure function that returns
 * `tools` itself when the preamble re-declares no tool.
 */
import type { Message, ToolDeclaration } from "../../model/message";

/**
 * tools[] after a compaction, Anthropic projection: a loaded deferred tool
 * was usable because a tool_reference in history named it; the summary
 * replaced that reference, so a tool the compaction kept is declared in full
 * (no `defer_loading`) instead. Other projections are unchanged: message-level
 * tools re-declare kept schemas in the preamble, plain ones keep them in
 * tools[] through the loaded set.
 */
export function keptAfterCompaction(tools: ToolDeclaration[], preamble: Message | null): ToolDeclaration[] {
  if (!preamble) return tools;
  const kept = new Set<string>();
  for (const p of preamble.parts) if (p.type === "tool_declarations") for (const t of p.tools) kept.add(t.name);
  if (kept.size === 0) return tools;
  return tools.map((t) => {
    if (!t.defer_loading || !kept.has(t.name)) return t;
    const { defer_loading: _d, ...full } = t;
    return full;
  });
}
