import type { ToolResultContent } from "./parts";

/** Stored tool output is capped so a message row stays far below SQLite's 2 MB row limit. */
export const MAX_RESULT_CHARS = 256 * 1024;

function cut(text: string): string {
  if (text.length <= MAX_RESULT_CHARS) return text;
  return `${text.slice(0, MAX_RESULT_CHARS)}\n[truncated: output was ${text.length} characters, ${MAX_RESULT_CHARS} kept]`;
}

export function boundResultContent(content: ToolResultContent): ToolResultContent {
  if (typeof content === "string") return cut(content);
  const total = content.reduce((n, b) => n + b.text.length, 0);
  return total <= MAX_RESULT_CHARS ? content : cut(resultText(content));
}

export function resultText(content: ToolResultContent): string {
  return typeof content === "string" ? content : content.map((b) => b.text).join("\n");
}
