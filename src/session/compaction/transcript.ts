/**
 * The text a summary request reads: the summarised messages rendered as a
 * plain transcript. Tool calls and results become lines of text naming the
 * call's id, so the request carries no tool_use/tool_result blocks at all
 * (invariant P holds trivially, no tools need declaring) and a summary can keep
 * the id a later `$tool` reference passes; it can be cut into pieces anywhere:
 * a line longer than a piece goes on in the next one, so no text the user
 * wrote is left out of the summary. A previous summary too long to carry
 * opens it as lines of its own (`summaryLines`), and a summary over its cap
 * is cut with a note (`capSummary`).
 */
import type { Message } from "../../model/message";
import { resultText } from "../../model/message";
import { headChars } from "../../storage/fit";
import { headTokens, textTokens } from "./estimate";

/**
 * Longest rendering of one tool call's arguments / one tool result, in characters. A client tool's result is the
 * client's answer (an `ask_user` reply: the user's own words), rendered whole like the user's messages.
 */
const MAX_ARGS_CHARS = 1000;
const MAX_RESULT_CHARS = 2000;

/** Sent in the summary request; the mock model recognises it (mock/brain.ts). */
const SUMMARY_INSTRUCTION =
  "Summarise the conversation transcript above for the assistant that continues it. Keep every user request, decision, fact, open question, tool result that matters and the state of the work; be concise.";

/**
 * Follows SUMMARY_INSTRUCTION when the model is told of `$tool` references (REFS_PROMPT): an id the summary keeps
 * passes that result on after the compaction, where the transcript's ids are gone.
 */
export const IDS_INSTRUCTION =
  'Keep the id of each tool result the work may still need: the assistant can pass that result to a tool as {"$tool": "<id>"} rather than call the tool again. A result marked (error) or (cannot be passed) cannot be passed.';

/** Marks a result line whose call a `$tool` reference cannot pass (cut when stored, or by the tool), errors aside. */
export const NOT_PASSABLE = "(cannot be passed)";

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

/** How a call and its result name the call's id: the id a `$tool` reference passes. */
function idTag(id: string): string {
  return `[id ${id}]`;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${headChars(text, max)}… [${text.length - max} more characters]`;
}

/**
 * One line (or a few) per message part that carries meaning; bookkeeping parts are skipped. A call and its result
 * both name the call's id. `clientTool` says whether a tool's calls run in the client, whose results are rendered
 * whole. `passable`, given when the model is told of `$tool` references, says whether a reference to a call passes
 * its result (`HistoryStore.referencedValue`): a result it refuses for another reason than an error is marked
 * NOT_PASSABLE.
 */
export function transcriptLines(
  messages: readonly Message[],
  clientTool: (name: string) => boolean = () => false,
  passable?: (id: string) => boolean,
): string[] {
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
          lines.push(`Assistant called ${p.name} ${idTag(p.id)}(${clip(JSON.stringify(p.input), MAX_ARGS_CHARS)})`);
          break;
        case "tool_result": {
          const name = names.get(p.tool_use_id);
          const text = resultText(p.content);
          const mark = p.is_error ? " (error)" : passable && !passable(p.tool_use_id) ? ` ${NOT_PASSABLE}` : "";
          lines.push(
            `Result of ${name ?? "a call"} ${idTag(p.tool_use_id)}${mark}: ${name !== undefined && clientTool(name) ? text : clip(text, MAX_RESULT_CHARS)}`,
          );
          break;
        }
        default:
          break;
      }
    }
  }
  return lines;
}

/** The least piece size `transcriptPieces` uses, whatever it is asked for. */
const MIN_PIECE_SIZE = 50;

/** Ends a piece that stops inside a line, and opens the next piece, which goes on with that line. */
export const LINE_CONTINUES = "… [continued in the next transcript excerpt]";
export const LINE_CONTINUED = "[continued from the previous transcript excerpt] …";

/**
 * Groups lines into pieces of at most `maxTokens` estimated tokens (`textTokens`). A line longer than a piece is
 * split, never cut: its first slice fills the room the current piece has left (a new piece when that is under a
 * quarter of one), each slice that stops inside it ends with LINE_CONTINUES and the next opens with
 * LINE_CONTINUED, so the slices without those marks are the line again.
 */
export function transcriptPieces(lines: readonly string[], maxTokens: number): string[] {
  const size = Math.max(MIN_PIECE_SIZE, maxTokens);
  const pieces: string[] = [];
  let current = "";
  let used = 0;
  const flush = () => {
    if (current) pieces.push(current);
    current = "";
    used = 0;
  };
  // Each joining newline counted as a whole token (the sum of the lines' rounded estimates is never below the piece's).
  const left = () => (current ? size - used - 1 : size);
  const add = (line: string, tokens: number) => {
    if (tokens > left()) flush();
    used += current ? tokens + 1 : tokens;
    current = current ? `${current}\n${line}` : line;
  };
  const marks = textTokens(LINE_CONTINUES) + textTokens(LINE_CONTINUED);
  for (const line of lines) {
    let rest = line;
    let opening = "";
    for (;;) {
      const tokens = textTokens(opening) + textTokens(rest);
      if (tokens <= size) {
        add(opening + rest, tokens);
        break;
      }
      // Both marks counted on every slice: at least size - marks (over a quarter of the least size) when empty.
      const room = left() - marks;
      if (room < size / 4) {
        flush();
        continue;
      }
      const head = sliceHead(rest, room);
      const slice = `${opening}${head}${LINE_CONTINUES}`;
      add(slice, textTokens(slice));
      flush();
      rest = rest.slice(head.length);
      opening = LINE_CONTINUED;
    }
  }
  flush();
  return pieces;
}

/** The head of `text` within `tokens` (`headTokens`), ending after a space or newline when one is near its end. */
function sliceHead(text: string, tokens: number): string {
  const head = headTokens(text, tokens);
  const space = Math.max(head.lastIndexOf(" "), head.lastIndexOf("\n"));
  return space >= head.length * 0.8 ? head.slice(0, space + 1) : head;
}

/**
 * The user text of one summary request: the summary so far, then the next piece of transcript; `references`: the
 * model is told of `$tool` references, and the summary is asked to keep the ids they pass (IDS_INSTRUCTION).
 */
export function summaryPrompt(previous: string, piece: string, references = false): string {
  const prior = previous ? `<previous_summary>\n${previous}\n</previous_summary>\n\n` : "";
  const ids = references ? ` ${IDS_INSTRUCTION}` : "";
  return `${prior}<transcript>\n${piece}\n</transcript>\n\n${SUMMARY_INSTRUCTION}${ids}`;
}

/**
 * A previous summary as transcript lines under EARLIER_SUMMARY_HEADING: its non-blank lines (`transcriptPieces`
 * splits a longer one across pieces, cutting none of it).
 */
export function summaryLines(summary: string): string[] {
  return [EARLIER_SUMMARY_HEADING, ...summary.split("\n").filter((line) => line.trim())];
}

/** `summary` whole when its `textTokens` is at most `cap`; else its head and CAPPED_NOTE, within `cap` when the note fits. */
export function capSummary(summary: string, cap: number): string {
  if (textTokens(summary) <= cap) return summary;
  // The joining blank line and the rounding of two estimates: one token.
  const head = headTokens(summary, cap - textTokens(CAPPED_NOTE) - 1).trimEnd();
  return head ? `${head}\n\n${CAPPED_NOTE}` : CAPPED_NOTE;
}
