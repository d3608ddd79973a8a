/**
 * The conversation model (DESIGN §3): canonical, provider-neutral parts and
 * messages, tool declarations and tool results, and small helpers over them.
 * Every adapter projects these parts onto its own wire format; nothing here
 * is provider specific except the opaque thinking signature, kept verbatim.
 */

import type { JsonObject } from "./json";

interface TextPart {
  type: "text";
  text: string;
}

interface ThinkingPart {
  type: "thinking";
  thinking: string;
  /** Provider signature, replayed byte-for-byte. Absent for providers without one. */
  signature?: string;
  /** Anthropic redacted_thinking blocks carry only opaque data. */
  redacted?: string;
}

export interface ToolUsePart {
  type: "tool_use";
  id: string;
  name: string;
  input: JsonObject;
}

/**
 * A block of tool result content. `tool_reference` names a deferred tool the
 * result makes available (our tool_search answers with these; Anthropic
 * expands them inline, other projections render them as text).
 */
export type ToolResultBlock = { type: "text"; text: string } | { type: "tool_reference"; tool_name: string };

/** Tool result content: a plain string or a list of blocks. */
export type ToolResultContent = string | ToolResultBlock[];

export interface ToolResultPart {
  type: "tool_result";
  tool_use_id: string;
  content: ToolResultContent;
  is_error: boolean;
}

interface ToolDeclarationsPart {
  type: "tool_declarations";
  tools: ToolDeclaration[];
}

/**
 * A service-written note. `tools_changed` notices announce tool-set changes
 * to the model; a `tools_baseline` notice (empty text, never projected)
 * records the tool set the session started from, so changes are derived
 * from history alone. A `tools_changed` notice too large to list whole lists
 * the first names and carries the whole tool set after the change in `tools`.
 */
export interface NoticePart {
  type: "notice";
  text: string;
  kind?: "tools_changed" | "tools_baseline";
  added?: string[];
  removed?: string[];
  tools?: string[];
  /** Baseline only: the deferred-tools section of the system prompt, frozen for cache stability. */
  listing?: string;
}

/**
 * A provider's server-side compaction (README "Long sessions", native compaction): the summary the
 * provider wrote of everything before it, plus its opaque state, kept verbatim and sent back to
 * that provider, which then ignores everything before the block. Other projections render
 * `content` as text. `content` null = a compaction the provider could not complete (a no-op).
 */
export interface CompactionPart {
  type: "compaction";
  /** Which provider wrote it (its opaque state means nothing to another one). */
  provider: string;
  content: string | null;
  /** Opaque provider state, round-tripped byte for byte (Anthropic `encrypted_content`). */
  encrypted?: string;
}

export type Part =
  | TextPart
  | ThinkingPart
  | ToolUsePart
  | ToolResultPart
  | ToolDeclarationsPart
  | NoticePart
  | CompactionPart;

export type Role = "user" | "assistant";
export type Origin = "client" | "model" | "tool" | "synthetic" | "system";

export interface Message {
  seq: number;
  role: Role;
  parts: Part[];
  origin: Origin;
  turn_id: string | null;
  created_at: string;
}

/** What a provider needs to declare one tool. */
export interface ToolDeclaration {
  name: string;
  description: string;
  input_schema: JsonObject;
  /** Anthropic projection: declared but not loaded until a tool_reference names it. */
  defer_loading?: boolean;
}

/** A tool result's content as plain text (tool_reference blocks become a one-line note). */
export function resultText(content: ToolResultContent): string {
  return typeof content === "string" ? content : content.map(blockText).join("\n");
}

/** Tool names a `tool_reference` in the given messages' results shows (what Anthropic reads). */
export function toolsReferencedIn(messages: ReadonlyArray<Pick<Message, "parts">>): Set<string> {
  const names = new Set<string>();
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.type !== "tool_result" || !Array.isArray(p.content)) continue;
      for (const b of p.content) if (b.type === "tool_reference") names.add(b.tool_name);
    }
  }
  return names;
}

/** One tool result block as text. */
function blockText(b: ToolResultBlock): string {
  return b.type === "text" ? b.text : `[tool loaded: ${b.tool_name}]`;
}
