import type { ToolResultBlock, ToolResultContent } from "./parts";

/** Stored tool output is capped so a message row stays far below SQLite's 2 MB row limit. */
export const MAX_RESULT_CHARS = 256 * 1024;

function cut(text: string): string {
  if (text.length <= MAX_RESULT_CHARS) return text;
  return `${text.slice(0, MAX_RESULT_CHARS)}\n[truncated: output was ${text.length} characters, ${MAX_RESULT_CHARS} kept]`;
}

export function boundResultContent(content: ToolResultContent): ToolResultContent {
  if (typeof content === "string") return cut(content);
  const total = content.reduce((n, b) => n + (b.type === "text" ? b.text.length : b.tool_name.length), 0);
  return total <= MAX_RESULT_CHARS ? content : cut(resultText(content));
}

export function resultText(content: ToolResultContent): string {
  return typeof content === "string" ? content : content.map(blockText).join("\n");
}

export function blockText(b: ToolResultBlock): string {
  return b.type === "text" ? b.text : `[tool loaded: ${b.tool_name}]`;
}
