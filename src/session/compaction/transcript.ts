/**
 * The text a summary request reads: the summarised messages rendered as a
 * plain transcript. Tool calls and results become lines of text, so the
 * request carries no tool_use/tool_result blocks at all (invariant P holds
 * trivially, no tools need declaring) and can be cut into pieces anywhere.
 * A previous summary too long to carry opens it as lines of its own
 * (`summaryLines`), and a summary over its cap is cut with a note (`capSummary`).
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

/** Ends a summary cut to the most a summary may take (`capSummary`). */
export const CAPPED_NOTE = "[This summary was cut to fit the context budget: details after this point are missing.]";

/** Opens the lines of a previous summary too long to carry, summarised again with the transcript (`summaryLines`). */
export const EARLIER_SUMMARY_HEADING = "Summary of the conversation before the messages below:";

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

/** The least piece size `transcriptPieces` uses, whatever it is asked for. */
const MIN_PIECE_SIZE = 50;

/** The most tokens a line may take for `transcriptPieces(…, maxTokens)` to keep it whole. */
function wholeLineTokens(maxTokens: number): number {
  return Math.max(MIN_PIECE_SIZE, maxTokens) - CUT_NOTE_TOKENS;
}

/** Groups lines into pieces of at most `maxTokens` estimated tokens (`textTokens`; a longer line is cut). */
export function transcriptPieces(lines: readonly string[], maxTokens: number): string[] {
  const size = Math.max(MIN_PIECE_SIZE, maxTokens);
  const pieces: string[] = [];
  let current = "";
  let used = 0;
  for (const raw of lines) {
    let line = raw;
    let tokens = textTokens(raw);
    if (tokens > wholeLineTokens(maxTokens)) {
      const head = headTokens(raw, wholeLineTokens(maxTokens));
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

/**
 * A previous summary as transcript lines under EARLIER_SUMMARY_HEADING: its lines, a longer one split into
 * consecutive parts, so that `transcriptPieces(…, maxTokens)` cuts none of it.
 */
export function summaryLines(summary: string, maxTokens: number): string[] {
  const most = wholeLineTokens(maxTokens);
  const lines = [EARLIER_SUMMARY_HEADING];
  for (const line of summary.split("\n")) {
    if (!line.trim()) continue;
    let rest = line;
    while (textTokens(rest) > most) {
      // At least MIN_PIECE_SIZE - CUT_NOTE_TOKENS tokens: never empty.
      const head = headTokens(rest, most);
      lines.push(head);
      rest = rest.slice(head.length);
    }
    lines.push(rest);
  }
  return lines;
}

/** `summary` whole when its `textTokens` is at most `cap`; else its head and CAPPED_NOTE, within `cap` when the note fits. */
export function capSummary(summary: string, cap: number): string {
  if (textTokens(summary) <= cap) return summary;
  // The joining blank line and the rounding of two estimates: one token.
  const head = headTokens(summary, cap - textTokens(CAPPED_NOTE) - 1).trimEnd();
  return head ? `${head}\n\n${CAPPED_NOTE}` : CAPPED_NOTE;
}
