// The default brain: what the mock answers when a model has no scripted step queued.
import { sampleFromSchema } from "./sample.ts";
import type { BrainInput, ReplySpec } from "./types.ts";

const RESULT_PREVIEW = 200;

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** Picks the declared tool the user names, or the first tool when the user just says "tool". */
function chooseTool(input: BrainInput): BrainInput["tools"][number] | undefined {
  if (input.tools.length === 0) return undefined;
  const said = input.userText.toLowerCase();
  const named = input.tools.find((tool) => {
    const name = tool.name.toLowerCase();
    return said.includes(name) || said.includes(name.replace(/[_-]+/g, " "));
  });
  if (named) return named;
  return /\btools?\b/.test(said) ? input.tools[0] : undefined;
}

export function defaultReply(input: BrainInput): ReplySpec {
  if (input.toolResults.length > 0) {
    const lines = input.toolResults.map((r) => `Tool ${r.name} returned: ${truncate(r.content, RESULT_PREVIEW)}`);
    return { text: lines.join("\n") };
  }
  const tool = chooseTool(input);
  if (tool) {
    const sample = sampleFromSchema(tool.schema);
    const args = typeof sample === "object" && sample !== null && !Array.isArray(sample) ? sample : {};
    return {
      text: `Calling ${tool.name}.`,
      tool_calls: [{ name: tool.name, input: args as Record<string, unknown> }],
    };
  }
  return { text: `You said: ${input.userText.trim() || "(nothing)"}` };
}

/** Flattens a tool result's content (string, or blocks/parts with text) into plain text. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? "" : JSON.stringify(content);
  const parts: string[] = [];
  for (const part of content) {
    if (typeof part === "object" && part !== null && "text" in part && typeof part.text === "string")
      parts.push(part.text);
    else if (typeof part === "object" && part !== null && "tool_name" in part)
      parts.push(`[tool ${String(part.tool_name)}]`);
  }
  return parts.join("\n");
}

/** The instruction Switchboard's compaction sends (src/session/compaction/transcript.ts). */
const SUMMARY_MARKER = "Summarise the conversation transcript above";
const SUMMARY_MAX_CHARS = 1200;

export function isSummaryRequest(input: BrainInput): boolean {
  return input.toolResults.length === 0 && input.userText.includes(SUMMARY_MARKER);
}

/**
 * A bounded summary: the previous summary's user lines plus the first words of
 * every user line of the transcript, newest kept when over the cap.
 */
export function summaryReply(input: BrainInput): ReplySpec {
  const lines = input.userText
    .split("\n")
    .filter((l) => l.startsWith("User: ") || l.startsWith("- user: "))
    .map((l) => `- user: ${l.replace(/^(User: |- user: )/, "").slice(0, 40)}`);
  let text = `Summary of ${lines.length} user messages:\n${lines.join("\n")}`;
  if (text.length > SUMMARY_MAX_CHARS) text = `Summary (newest kept):\n…${text.slice(text.length - SUMMARY_MAX_CHARS)}`;
  return { text };
}
