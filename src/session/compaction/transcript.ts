/**
 * The text a summary request reads: the summarised messages rendered as a
 * plain transcript. Tool calls and results become lines of text, so the
 * request carries no tool_use/tool_result blocks at all (invariant P holds
 * trivially, no tools need declaring) and can be cut into pieces anywhere.
 */
import type { Message } from "../../model/message";
import { resultText } from "../../model/message";
import { headChars } from "../../storage/fit";
import { headTokens, textTokens } from "./estimate";

/** Longest rendering of one tool call's arguments / one tool result, in characters. */
const MAX_ARGS_CHARS = 1000;
const MAX_RESULT_CHARS = 2000;

/** Sent in the summary request; the mock model recognises it (mock/brain.ts). */
export const SUMMARY_INSTRUCTION =
  "Summarise the conversation transcript above for the assistant that continues it. Keep every user request, decision, fact, open question, tool result that matters and the state of the work; be concise.";

/** Ends a summary the model cut at its output limit (summary-request.ts). */
export const TRUNCATED_NOTE =
  "[This summary was cut at the model's output limit: details after this point are missing.]";

/** Said when the request opens with a compaction only the provider can read (summary-request.ts `context`). */
export const OPAQUE_CONTEXT_NOTE =
  "The conversation began before the transcript below: its earlier part is the compacted context this request opens with. Your summary covers that earlier part as well.";

export const SUMMARY_SYSTEM =
  "You write a summary of an earlier part of a conversation between a user and an AI assistant that uses tools. The summary replaces that part of the conversation in the assistant's context.";

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${headChars(text, max)}… [${text.length - max} more characters]`;
}

/** One line (or a few) per message part that carries meaning; bookkeeping parts are skipped. */
export function transcriptLines(messages: readonly Message[]): string[] {
  const names = new Map<string, string>();
  const lines: string[] = [];
  for (const m of messages) {
    for (const p of m.parts) {
      switch (p.type) {
        case "text":
          if (p.text.trim()) lines.push(`${m.role === "user" ? "User" : "Assistant"}: ${p.text}`);
          break;
        case "notice":
          if (p.text.trim()) lines.push(`Service note: ${p.text}`);
          break;
        case "tool_use":
          names.set(p.id, p.name);
          lines.push(`Assistant called ${p.name}(${clip(JSON.stringify(p.input), MAX_ARGS_CHARS)})`);
          break;
        case "tool_result":
          lines.push(
            `Result of ${names.get(p.tool_use_id) ?? p.tool_use_id}${p.is_error ? " (error)" : ""}: ${clip(resultText(p.content), MAX_RESULT_CHARS)}`,
          );
          break;
        default:
          break;
      }
    }
  }
  return lines;
}

/** Lines a piece cannot hold whole are cut to leave this many tokens for the "… [n more characters]" note. */
const CUT_NOTE_TOKENS = 13;

/** Groups lines into pieces of at most `maxTokens` estimated tokens (`textTokens`; a longer line is cut). */
export function transcriptPieces(lines: readonly string[], maxTokens: number): string[] {
  const size = Math.max(50, maxTokens);
  const pieces: string[] = [];
  let current = "";
  let used = 0;
  for (const raw of lines) {
    let line = raw;
    let tokens = textTokens(raw);
    if (tokens > size - CUT_NOTE_TOKENS) {
      const head = headTokens(raw, size - CUT_NOTE_TOKENS);
      line = `${head}… [${raw.length - head.length} more characters]`;
      tokens = textTokens(line);
    }
    if (current && used + tokens + 1 > size) {
      pieces.push(current);
      current = "";
      used = 0;
    }
    // Each joining newline counted as a whole token (the sum of the lines' rounded estimates is never below the piece's).
    used += current ? tokens + 1 : tokens;
    current = current ? `${current}\n${line}` : line;
  }
  if (current) pieces.push(current);
  return pieces;
}

/** The user text of one summary request: the summary so far, then the next piece of transcript. */
export function summaryPrompt(previous: string, piece: string): string {
  const prior = previous ? `<previous_summary>\n${previous}\n</previous_summary>\n\n` : "";
  return `${prior}<transcript>\n${piece}\n</transcript>\n\n${SUMMARY_INSTRUCTION}`;
}
