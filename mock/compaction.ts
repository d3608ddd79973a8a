// Anthropic server-side compaction (`context_management` edit `compact_20260112`, beta `compact-2026-01-12`)
// as the mock emulates it: the request's config, the `compaction` blocks sent back, what the API drops
// before them, and the summary block it streams first when the input passes the trigger.
import { createHash } from "node:crypto";
import { contentText } from "./brain.ts";
import { isRecord, type JsonObject, type Rejection } from "./types.ts";

export const COMPACTION_BETA = "compact-2026-01-12";
export const COMPACTION_EDIT = "compact_20260112";
/** The API's default trigger and the smallest one it accepts (input tokens). */
export const DEFAULT_TRIGGER = 150_000;
export const MIN_TRIGGER = 50_000;
const SUMMARY_MAX_CHARS = 1200;

const bad = (message: string): Rejection => ({ status: 400, message });

/** The opaque state the mock issues with a summary; a block sent back must carry exactly this. */
export function sealCompaction(content: string): string {
  return `mockcmp_${createHash("sha256").update(content).digest("base64url")}`;
}

/** `context_management` of a request: the compaction trigger, null when it asks for none, or why it is refused. */
export function compactionConfig(body: JsonObject, beta: string): { trigger: number } | null | Rejection {
  const cm = body.context_management;
  if (cm === undefined || cm === null) return null;
  if (!isRecord(cm)) return bad("context_management: Input should be a valid dictionary");
  if (cm.edits === undefined) return null;
  if (!Array.isArray(cm.edits)) return bad("context_management.edits: Input should be a valid list");
  let trigger: number | null = null;
  for (let k = 0; k < cm.edits.length; k++) {
    const edit: unknown = cm.edits[k];
    if (!isRecord(edit)) return bad(`context_management.edits.${k}: Input should be a valid dictionary`);
    if (edit.type !== COMPACTION_EDIT) continue;
    if (!hasBeta(beta))
      return bad(`context_management.edits.${k}: ${COMPACTION_EDIT} requires the ${COMPACTION_BETA} beta`);
    const t = edit.trigger;
    if (t === undefined || t === null) trigger = DEFAULT_TRIGGER;
    else if (!isRecord(t) || t.type !== "input_tokens" || typeof t.value !== "number" || !Number.isInteger(t.value))
      return bad(`context_management.edits.${k}.trigger: expected {"type": "input_tokens", "value": <integer>}`);
    else if (t.value < MIN_TRIGGER)
      return bad(
        `context_management.edits.${k}.trigger.value: Input should be greater than or equal to ${MIN_TRIGGER}`,
      );
    else trigger = t.value;
  }
  return trigger === null ? null : { trigger };
}

export function hasBeta(header: string): boolean {
  return header
    .split(",")
    .map((b) => b.trim())
    .includes(COMPACTION_BETA);
}

/** A `compaction` block sent back: only in assistant messages, content as issued, its opaque state intact. */
export function checkCompactionBlock(block: JsonObject, loc: string, role: string): Rejection | null {
  if (role !== "assistant") return bad(`${loc}: \`compaction\` blocks are only allowed in assistant messages`);
  if (block.content === null || block.content === undefined) return null;
  if (typeof block.content !== "string") return bad(`${loc}.compaction.content: Input should be a valid string`);
  if (block.content.length === 0) return bad(`${loc}.compaction.content: empty string content is not allowed`);
  if (block.encrypted_content !== sealCompaction(block.content))
    return bad(`${loc}.compaction.encrypted_content: does not match the compaction it was issued with`);
  return null;
}

/** Where the last effective compaction block is: [message index, block index], or null. */
function lastCompaction(messages: JsonObject[]): [number, number] | null {
  for (let n = messages.length - 1; n >= 0; n--) {
    const content = messages[n]?.content;
    if (!Array.isArray(content)) continue;
    for (let m = content.length - 1; m >= 0; m--) {
      const b: unknown = content[m];
      if (isRecord(b) && b.type === "compaction" && typeof b.content === "string") return [n, m];
    }
  }
  return null;
}

/** What the API reads: everything before the last compaction block is dropped (the block itself stays). */
export function effectiveMessages(messages: JsonObject[]): JsonObject[] {
  const at = lastCompaction(messages);
  if (!at) return messages;
  const [n, m] = at;
  const message = messages[n] as JsonObject;
  return [{ ...message, content: (message.content as unknown[]).slice(m) }, ...messages.slice(n + 1)];
}

/** The latest compaction block's opaque state in a request, if any. */
export function carriedCompaction(messages: JsonObject[]): string | null {
  const at = lastCompaction(messages);
  if (!at) return null;
  const block = ((messages[at[0]] as JsonObject).content as JsonObject[])[at[1]] as JsonObject;
  return typeof block.encrypted_content === "string" ? block.encrypted_content : null;
}

/** A bounded summary of what the request reads: the prior compaction, then the first words of every user text. */
export function compactionSummary(messages: JsonObject[]): string {
  const lines: string[] = [];
  for (const message of effectiveMessages(messages)) {
    const content = message.content;
    const blocks =
      typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [];
    for (const b of blocks) {
      if (!isRecord(b)) continue;
      if (b.type === "compaction" && typeof b.content === "string") lines.push(`- earlier: ${b.content.slice(0, 300)}`);
      if (message.role === "user" && b.type === "text") lines.push(`- user: ${String(b.text).slice(0, 40)}`);
      if (message.role === "user" && b.type === "tool_result")
        lines.push(`- tool result: ${contentText(b.content).slice(0, 40)}`);
    }
  }
  let text = `Compacted summary of ${lines.length} items:\n${lines.join("\n")}`;
  if (text.length > SUMMARY_MAX_CHARS)
    text = `Compacted summary (newest kept):\n…${text.slice(text.length - SUMMARY_MAX_CHARS)}`;
  return text;
}
