/**
 * What a message holds fitted under the storage budgets before it is written (src/storage/limits.ts): tool results,
 * tool declarations, and an assistant message's text.
 */

import type { Part, ToolDeclaration, ToolResultContent, ToolResultPart } from "../../model/message";
import { cutText, fairShares, jsonBytes } from "../../storage/fit";
import { MESSAGE_RESULTS_BUDGET_BYTES, RESULT_BUDGET_BYTES, ROW_BUDGET_BYTES } from "../../storage/limits";

/**
 * Tool result content under a byte budget (JSON-encoded size, src/storage/limits.ts).
 * Text over it is cut with `[truncated: original N bytes]`; block lists keep
 * their tool_reference blocks after one cut text block, so a load survives.
 */
export function boundResultContent(content: ToolResultContent, budget = RESULT_BUDGET_BYTES): ToolResultContent {
  if (jsonBytes(content) <= budget) return content;
  if (typeof content === "string") return cutText(content, budget);
  const refs = content.filter((b) => b.type !== "text");
  const text = content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
  const room = budget - jsonBytes([...refs, { type: "text", text: "" }]);
  return [{ type: "text", text: cutText(text, room) }, ...refs];
}

/**
 * The results of one user message under the per-message budget: when their
 * contents together exceed it (or what the row leaves beside `others`), small
 * results stay whole and the larger ones share the rest equally, each cut with
 * its marker. Every result keeps its place and id, so pairing is untouched.
 */
export function fitMessageResults(results: ToolResultPart[], others: Part[], rowBudget: number): ToolResultPart[] {
  const sizes = results.map((r) => jsonBytes(r.content));
  const envelope = jsonBytes(results.map((r) => ({ ...r, content: "" }))) + jsonBytes(others);
  const budget = Math.min(MESSAGE_RESULTS_BUDGET_BYTES, rowBudget - envelope);
  if (sizes.reduce((a, b) => a + b, 0) <= budget) return results;
  const caps = fairShares(sizes, budget);
  return results.map((r, i) =>
    (caps[i] as number) < (sizes[i] as number)
      ? { ...r, content: boundResultContent(r.content, caps[i] as number) }
      : r,
  );
}

/**
 * The declarations (in load order) one user message's row holds beside `others` and its results at their own
 * budget, so results are never cut to make room for schemas: the first that fit, and the rest (`left`).
 */
export function fitDeclarations(
  declarations: ToolDeclaration[],
  results: ToolResultPart[],
  others: Part[],
  rowBudget: number,
): { fitted: ToolDeclaration[]; left: ToolDeclaration[] } {
  // Most closes carry no declaration: nothing to measure (every admission passes here).
  if (declarations.length === 0) return { fitted: [], left: [] };
  const resultBytes = Math.min(
    MESSAGE_RESULTS_BUDGET_BYTES,
    results.reduce((n, r) => n + jsonBytes(r.content), 0),
  );
  const envelope = jsonBytes(results.map((r) => ({ ...r, content: "" }))) + jsonBytes(others);
  let room = rowBudget - resultBytes - envelope - jsonBytes([{ type: "tool_declarations", tools: [] }]);
  let i = 0;
  for (; i < declarations.length; i++) {
    const bytes = jsonBytes(declarations[i]) + 1;
    if (bytes > room) break;
    room -= bytes;
  }
  return { fitted: declarations.slice(0, i), left: declarations.slice(i) };
}

/**
 * An assistant message under the row budget: a model's text parts are cut
 * (fair shares, with a marker) when the message would not fit; thinking keeps
 * its signed text and tool_use its input, so a message is only ever cut in text.
 */
export function fitAssistant(parts: Part[]): Part[] {
  const total = jsonBytes(parts);
  if (total <= ROW_BUDGET_BYTES) return parts;
  const texts = parts.flatMap((p) => (p.type === "text" ? [jsonBytes(p.text)] : []));
  const caps = fairShares(texts, ROW_BUDGET_BYTES - (total - texts.reduce((a, b) => a + b, 0)));
  let i = 0;
  return parts.map((p) => {
    if (p.type !== "text") return p;
    const cap = caps[i++] as number;
    return jsonBytes(p.text) > cap ? { ...p, text: cutText(p.text, cap) } : p;
  });
}
