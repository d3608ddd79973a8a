/**
 * Progressive tool disclosure (DESIGN §5): which tools a step sends per provider projection (`stepTools`),
 * the system prompt's deferred-tools listing, and the notices that announce tool-set changes in history. Pure
 * functions; the listing is rendered once per baseline, so the prompt stays byte-stable.
 */
import type { Message, NoticePart, ToolDeclaration } from "../model/message";
import type { ModelConfig } from "../providers/types";
import { headChars, headWithin, utf8Bytes } from "../storage/fit";
import { NOTICE_NAMES_BUDGET_BYTES } from "../storage/limits";
import { declaration, type ToolRegistry } from "./registry";
import type { RegisteredTool } from "./types";

/**
 * How the loaded set reaches the model, chosen from declared capabilities
 * (DESIGN §5), preferring forms that keep the prompt-cache prefix stable.
 */
export type Projection = "anthropic" | "message_level" | "plain";

export function projectionFor(model: ModelConfig): Projection {
  // A model (or an endpoint in front of it) without Anthropic's tool search gets loaded schemas in tools[].
  if (model.provider === "anthropic") return model.capabilities.native_tool_search ? "anthropic" : "plain";
  // The Responses API has no message-level tools: loaded tools travel in tools[].
  if (model.provider === "openai-responses") return "plain";
  return model.capabilities.message_level_tools ? "message_level" : "plain";
}

/**
 * tools[] for one step:
 * - anthropic: every tool, deferred ones with defer_loading (our tool_search answers
 *   with tool_reference blocks), so tools[] never changes as tools load;
 * - message_level: core + built-ins only, never changing; loaded schemas travel in
 *   history as tool_declarations parts;
 * - plain: core + built-ins + loaded tools appended in load order (the accepted cost).
 */
export function stepTools(reg: ToolRegistry, loaded: readonly string[], projection: Projection): ToolDeclaration[] {
  const head = [...reg.core(), ...reg.builtins].map(declaration);
  if (projection === "anthropic") {
    return [...head, ...reg.deferred().map((t) => ({ ...declaration(t), defer_loading: true }))];
  }
  if (projection === "message_level") return head;
  const extra = loaded.map((n) => reg.get(n)).filter((t): t is RegisteredTool => t?.deferred === true);
  return [...head, ...extra.map(declaration)];
}

/**
 * The most tools a plain projection's tools[] holds, structured_output included: the smallest provider cap
 * (OpenAI's 128 functions).
 */
export const PLAIN_TOOLS_MAX = 128;

/** Hard cap on the deferred-tools listing in the system prompt. */
export const LISTING_MAX_CHARS = 4000;

/** A description's first non-empty line, cut to 160 characters: what names a tool in a listing or a search answer. */
export function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
  return line.length > 160 ? `${headChars(line, 157)}...` : line;
}

/**
 * The system prompt's section on deferred tools: name and first description
 * line of each, under a hard size cap. It is rendered once, when the session's
 * baseline is recorded, and reused verbatim, so the prompt stays byte-stable
 * while tools come and go (changes travel as notices).
 */
export function deferredListing(reg: ToolRegistry): string {
  if (!reg.hasDeferred()) return "";
  const tools = reg.deferred();
  // Only the built-ins this agent offers (select_tools can be turned off).
  const select = reg.builtins.some((t) => t.name === "select_tools") ? " or select_tools" : "";
  const head =
    "<deferred_tools>\nThese tools exist but their schemas are not loaded. Load them with tool_search " +
    `(keywords, or "select:name_a,name_b")${select}, then call them.\n`;
  const tail = "</deferred_tools>";
  let body = "";
  let shown = 0;
  for (const t of tools) {
    const line = `- ${t.name}: ${firstLine(t.description)}\n`;
    // Leave room for the "more" line so the cap is never exceeded.
    if (head.length + body.length + line.length + tail.length + 120 > LISTING_MAX_CHARS) break;
    body += line;
    shown++;
  }
  const more = tools.length - shown;
  if (more > 0) body += `...and ${more} more deferred tools not listed here; tool_search finds them.\n`;
  return head + body + tail;
}

export function systemPrompt(agentSystem: string, sections: string[]): string {
  return [agentSystem, ...sections].filter((s) => s !== "").join("\n\n");
}

/** The tool names the session knows of: its baseline plus every change announced since, from history. */
export function announcedTools(messages: readonly Message[]): {
  baseline: string[] | null;
  listing: string;
  known: Set<string>;
} {
  let baseline: string[] | null = null;
  let listing = "";
  const known = new Set<string>();
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.type !== "notice") continue;
      if (p.kind === "tools_baseline" && p.tools) {
        baseline = [...p.tools];
        listing = p.listing ?? "";
        known.clear();
        for (const n of p.tools) known.add(n);
      } else if (p.kind === "tools_changed" && p.tools) {
        // A change too large to list whole records the tool set after it.
        known.clear();
        for (const n of p.tools) known.add(n);
      } else if (p.kind === "tools_changed") {
        for (const n of p.added ?? []) known.add(n);
        for (const n of p.removed ?? []) known.delete(n);
      }
    }
  }
  return { baseline, listing, known };
}

/** Bytes one name takes in a notice: quoted with a comma in its array, and with ", " in its text. */
function nameCost(name: string): number {
  return 2 * utf8Bytes(name) + 5;
}

function namesCost(names: readonly string[]): number {
  return names.reduce((n, name) => n + nameCost(name), 0);
}

/** The head of `names` that fits `budget` bytes (nameCost each). */
function listable(names: readonly string[], budget: number): string[] {
  return headWithin(names, budget, nameCost);
}

function namesLine(tag: string, shown: readonly string[], all: number, hint: string): string {
  const more = all - shown.length;
  return `<${tag}>${[...shown, ...(more ? [`...and ${more} more${hint}`] : [])].join(", ")}</${tag}>`;
}

/** `<tag>…</tag>` naming the head of `names` that fits `budget` bytes, and "...and N more" for the rest. */
export function boundedNamesLine(tag: string, names: readonly string[], budget: number): string {
  return namesLine(tag, listable(names, budget), names.length, "");
}

/**
 * Notice parts for the next user message: a silent baseline when history has
 * none (new or cleared session), else one announcement of what changed since
 * the last one. Quiet turns get nothing. A change whose names exceed
 * NOTICE_NAMES_BUDGET_BYTES lists the first that fit (each list gets half, and
 * what one leaves goes to the other) with "...and N more", and records the whole
 * tool set after it in `tools`, so it is still announced once and the message
 * row holds it beside the user's own parts. The notice depends only on the
 * registry and history, so it is the same bytes every time it is rebuilt.
 */
export function toolSetNotices(reg: ToolRegistry, messages: readonly Message[]): NoticePart[] {
  const current = reg.tools.map((t) => t.name);
  const { baseline, known } = announcedTools(messages);
  // Sessions without deferred tools need no bookkeeping: every tool is in tools[] already.
  if (baseline === null) {
    return reg.hasDeferred()
      ? [{ type: "notice", kind: "tools_baseline", text: "", tools: current, listing: deferredListing(reg) }]
      : [];
  }
  const now = new Set(current);
  const added = current.filter((n) => !known.has(n));
  const removed = [...known].filter((n) => !now.has(n));
  if (added.length === 0 && removed.length === 0) return [];
  const budget = NOTICE_NAMES_BUDGET_BYTES;
  const whole = namesCost(added) + namesCost(removed) <= budget;
  const shownAdded = whole ? added : listable(added, budget - Math.min(namesCost(removed), budget / 2));
  const shownRemoved = whole ? removed : listable(removed, budget - namesCost(shownAdded));
  const search = reg.builtins.some((t) => t.name === "tool_search") ? " (tool_search finds them)" : "";
  const lines: string[] = [];
  if (added.length) lines.push(namesLine("tools_added", shownAdded, added.length, search));
  if (removed.length) lines.push(namesLine("tools_removed", shownRemoved, removed.length, ""));
  const text = lines.join("\n");
  return [
    whole
      ? { type: "notice", kind: "tools_changed", text, added, removed }
      : { type: "notice", kind: "tools_changed", text, added: shownAdded, removed: shownRemoved, tools: current },
  ];
}
