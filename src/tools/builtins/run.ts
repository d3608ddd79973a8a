/**
 * The built-in disclosure tools `tool_search`, `tool_info` and `select_tools`: `runBuiltin` checks the input
 * against the tool's fixed schema and returns the result content with the deferred tools it loads. Never
 * writes; an unknown tool or bad input is an is_error outcome, not a throw.
 */
import { nameResolver, parseSelect, type ToolIndex } from "@switchboard/tool-search";
import { type FixedSchemaName, issueLine, validateFixed } from "../../json-schema/index";
import type { JsonObject } from "../../model/json";
import type { ToolResultBlock, ToolResultContent } from "../../model/message";
import { declaredSchema } from "../../providers/declared-schema";
import { firstLine } from "../disclosure";
import { fullSchema, type ToolRegistry } from "../registry";
import type { RegisteredTool } from "../types";

export interface BuiltinOutcome {
  content: ToolResultContent;
  is_error: boolean;
  /** Deferred tools this call loads for the next step. */
  load: string[];
  /**
   * Loaded tools this call answers as there (already loaded or available, a match, status "loaded"): the step keeps
   * them loaded, so no load of the same step takes back what this answer says.
   */
  keep?: string[];
  /** The input's validation errors when it does not match the tool's schema: the call is an invalid call. */
  invalid?: string[];
}

interface BuiltinContext {
  registry: ToolRegistry;
  index: () => ToolIndex;
  /** The loaded tools as this call starts (read for each call: an earlier call of the step may have changed them). */
  loaded: ReadonlySet<string>;
  /**
   * The most deferred tools one call can have loaded, where tools[] carries every loaded schema (the plain
   * projection's cap, SessionTools.loadRoom); unset: no limit. Past it the answer says "not loaded" rather than
   * load a tool the same transaction would unload again.
   */
  room?: number;
  /**
   * The tools earlier calls of the same step loaded, called directly or answered as there (their `load` and `keep`):
   * the step keeps them loaded, so this call loads only into the room they leave beside its own `keep` (none of the
   * step's loads unloads a tool one of its calls used or its answers named).
   */
  kept?: ReadonlySet<string>;
}

/** Built-in inputs are fixed schemas: checked by their build-time validators (`http/fixed-schemas.ts`). */
function invalid(ctx: BuiltinContext, name: string, schema: FixedSchemaName, input: unknown): BuiltinOutcome | null {
  const result = validateFixed(schema, input);
  if (result.ok) return null;
  const issues = result.issues.slice(0, 5).map(issueLine);
  const message = `invalid arguments for ${name}: ${issues.join("; ")}.${schemaHint(ctx.registry, name)}`;
  return { ...fail(message), invalid: issues };
}

/** Where the model can read a tool's schema: tool_info, when this agent offers it (it can be turned off). */
export function schemaHint(registry: ToolRegistry, name: string): string {
  return registry.get("tool_info")?.source === "builtin"
    ? ` tool_info(name: "${name}", include_schema: true) shows the schema.`
    : "";
}

const text = (value: unknown): ToolResultBlock => ({ type: "text", text: JSON.stringify(value) });
const refs = (names: string[]): ToolResultBlock[] => names.map((n) => ({ type: "tool_reference", tool_name: n }));
const fail = (message: string): BuiltinOutcome => ({ content: message, is_error: true, load: [] });

/** The most tools one search loads (`max_results`' upper bound, and `select:`'s default). */
const MAX_RESULTS = 20;
/** The most names one note lists; the rest are counted. */
const NAMES_LISTED = 5;

/** Names for a note: the first few, then how many more. */
function few(names: readonly string[]): string {
  const more = names.length - NAMES_LISTED;
  return more > 0 ? `${names.slice(0, NAMES_LISTED).join(", ")} and ${more} more` : names.join(", ");
}

/**
 * The registry's tools by a name asked, exact or in any case (`nameResolver`), over one map of the registry's names
 * built for the call: resolving each name against every tool cost O(names × tools).
 */
function toolFinder(registry: ToolRegistry): (name: string) => RegisteredTool | undefined {
  const resolve = nameResolver(registry.tools.map((t) => t.name));
  return (name) => {
    const hit = resolve(name);
    return hit === undefined ? undefined : registry.get(hit);
  };
}

/**
 * The names of a `select:`, each once (a tool by its name, an unknown name in any case), the first `limit` of
 * them looked at: `found` their tools, `unknown` the names that are none; `over` the names past `limit`.
 */
function selectNames(selected: readonly string[], limit: number, ctx: BuiltinContext) {
  const find = toolFinder(ctx.registry);
  const seen = new Set<string>();
  const found: RegisteredTool[] = [];
  const unknown: string[] = [];
  const over: string[] = [];
  for (const name of selected) {
    const tool = find(name);
    const key = tool ? `tool:${tool.name}` : `name:${name.toLowerCase()}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (seen.size > limit) over.push(tool?.name ?? name);
    else if (tool) found.push(tool);
    else unknown.push(name);
  }
  return { found, unknown, over };
}

function searchTools(input: { query: string; max_results?: number }, ctx: BuiltinContext): BuiltinOutcome {
  const selected = parseSelect(input.query);
  // "select:" with no name asks for nothing: an invalid call, like any input the schema refuses.
  if (selected !== null && selected.length === 0) {
    const issue = "select: needs at least one tool name";
    return {
      ...fail(`invalid arguments for tool_search: ${issue}.${schemaHint(ctx.registry, "tool_search")}`),
      invalid: [issue],
    };
  }
  // Exact names are what the model asked for: up to the cap, unless it set max_results itself.
  const limit = input.max_results ?? (selected !== null ? MAX_RESULTS : 5);
  let tools: RegisteredTool[];
  // What select: could not load, said rather than dropped (as select_tools answers per name).
  const unsaid: string[] = [];
  let unknown: string[] = [];
  let over: string[] = [];
  if (selected !== null) {
    ({ found: tools, unknown, over } = selectNames(selected, limit, ctx));
    if (unknown.length) unsaid.push(`not tools of this session: ${few(unknown)}`);
  } else {
    tools = ctx
      .index()
      .search(input.query, { limit, exclude: ctx.loaded })
      .map((m) => ctx.registry.get(m.name))
      .filter((t): t is RegisteredTool => t !== undefined);
  }
  // Names past the cap are not looked at: a select: of thousands of names costs and says no more than of `limit`.
  const overNote = over.length ? [`not loaded, over max_results (${limit}): ${few(over)}`] : [];
  unsaid.push(...overNote);
  const keep = toKeep(tools, ctx);
  const full = overRoom(tools, keep, ctx);
  if (full.length) {
    tools = tools.filter((t) => !full.includes(t.name));
    unsaid.push(`not loaded, ${overRoomText(keep, ctx)}: ${full.join(", ")}`);
  }
  // Nothing found at all. Tools found but all over the room are answered by the note, not as missing.
  if (tools.length === 0 && full.length === 0) {
    if (selected !== null) {
      const note = [`none of ${few(unknown)} is a tool of this session`, ...overNote].join("; ");
      return { content: [text({ matches: [], note })], is_error: false, load: [] };
    }
    const seen = inView(input.query, ctx);
    const note =
      seen?.note ??
      `no tool matched "${input.query}"; try other keywords, fewer required (+) terms, or select:<exact name>`;
    return { content: [text({ matches: [], note })], is_error: false, load: [], keep: seen?.keep ?? [] };
  }
  const load = toLoad(tools, ctx).map((t) => t.name);
  const note = unsaid.length ? { note: `${unsaid.join("; ")}.` } : {};
  return {
    content: [text({ matches: tools.map(match), ...note }), ...refs(load)],
    is_error: false,
    load,
    keep,
  };
}

/**
 * A search match as the answer names it: name, first description line and parameter names, not its schema. Every
 * projection puts a loaded tool's whole declaration in the request by itself (Anthropic: the tool_reference beside
 * this answer; message-level: the tool_declarations part of the same message; plain: tools[]), and a core tool is
 * in tools[] already, so the schema written here too would be paid again in every later request of the session.
 */
function match(tool: RegisteredTool): JsonObject {
  return { name: tool.name, description: firstLine(tool.description), parameters: parameterNames(tool) };
}

/** A tool's parameter names, as providers are sent them: a root union (Pydantic's, zod's) has its fields in its branches. */
function parameterNames(tool: RegisteredTool): string[] {
  return Object.keys((declaredSchema(fullSchema(tool)).properties ?? {}) as Record<string, unknown>);
}

/** The deferred tools among `tools` that are not loaded yet: what loading them adds, and what counts against the room. */
function toLoad(tools: readonly RegisteredTool[], ctx: BuiltinContext): RegisteredTool[] {
  return tools.filter((t) => t.deferred && !ctx.loaded.has(t.name));
}

/** The loaded deferred tools among `tools`: what this call answers as there, so what the step keeps loaded. */
function toKeep(tools: readonly RegisteredTool[], ctx: BuiltinContext): string[] {
  return tools.filter((t) => t.deferred && ctx.loaded.has(t.name)).map((t) => t.name);
}

/**
 * How much of the room the step keeps with this call's answer: the tools earlier calls of the step kept (those
 * still loaded) and this call's `keep`, each counted once: a loaded tool named again takes no second slot.
 */
function keptCount(keep: readonly string[], ctx: BuiltinContext): number {
  const kept = new Set([...(ctx.kept ?? [])].filter((n) => ctx.loaded.has(n)));
  for (const n of keep) kept.add(n);
  return kept.size;
}

/** What this call can still load: the room less what the step keeps (unset: no limit). */
function roomLeft(keep: readonly string[], ctx: BuiltinContext): number | undefined {
  return ctx.room === undefined ? undefined : Math.max(0, ctx.room - keptCount(keep, ctx));
}

/** Why a tool was not loaded: the room, and what of it the step keeps for tools its answers named. */
function overRoomText(keep: readonly string[], ctx: BuiltinContext): string {
  const taken = keptCount(keep, ctx);
  const kept = taken ? ` (${taken} of them kept for tools this step has loaded or named)` : "";
  return `over the ${ctx.room} tools tools[] has room for${kept}`;
}

/** The tools to load among `tools` (`toLoad`) past the room left beside the kept ones (`roomLeft`), in order. */
function overRoom(tools: readonly RegisteredTool[], keep: readonly string[], ctx: BuiltinContext): string[] {
  const left = roomLeft(keep, ctx);
  if (left === undefined) return [];
  return toLoad(tools, ctx)
    .slice(left)
    .map((t) => t.name);
}

/**
 * A keyword search finds only what is left to load. When it comes back empty, the tools the query names or
 * matches that the model already has (loaded, or sent every step) are said to be there, not "no tool matched".
 */
function inView(query: string, ctx: BuiltinContext): { note: string; keep: string[] } | null {
  const exact = ctx.registry.tools.find((t) => t.name.toLowerCase() === query.trim().toLowerCase());
  const matched = ctx
    .index()
    .search(query, { limit: MAX_RESULTS })
    .map((m) => m.name);
  const loaded = [...new Set([...(exact ? [exact.name] : []), ...matched])].filter((n) => ctx.loaded.has(n));
  const available = exact && !exact.deferred ? [exact.name] : [];
  const said: string[] = [];
  if (loaded.length) said.push(`already loaded: ${loaded.join(", ")}`);
  if (available.length) said.push(`already available: ${available.join(", ")}`);
  if (said.length === 0) return null;
  const note = `${said.join("; ")}; call ${loaded.length + available.length > 1 ? "them" : "it"} directly`;
  return { note, keep: loaded };
}

function toolInfo(input: { name: string; include_schema?: boolean }, ctx: BuiltinContext): BuiltinOutcome {
  const tool = ctx.registry.get(input.name);
  if (!tool) {
    const near = ctx
      .index()
      .search(input.name, { limit: 3 })
      .map((m) => m.name);
    // Asking about a tool that does not exist is an invalid call like any other bad input: recorded as one.
    const issue = `unknown tool "${input.name}"`;
    return { ...fail(`${issue}${near.length ? `; similar tools: ${near.join(", ")}` : ""}`), invalid: [issue] };
  }
  const status = !tool.deferred ? "available" : ctx.loaded.has(tool.name) ? "loaded" : "deferred (not loaded)";
  const info: JsonObject = { name: tool.name, description: tool.description, status, parameters: parameterNames(tool) };
  if (input.include_schema) info.input_schema = fullSchema(tool);
  return { content: [text(info)], is_error: false, load: [], keep: toKeep([tool], ctx) };
}

function selectByName(input: { names: string[] }, ctx: BuiltinContext): BuiltinOutcome {
  // No prototype: "__proto__" asked for is a key like any other, answered once.
  const result: Record<string, string> = Object.create(null);
  const load: string[] = [];
  const find = toolFinder(ctx.registry);
  const asked = input.names.map((raw) => {
    const name = raw.trim();
    return { name, tool: ctx.registry.get(name) ?? find(name) };
  });
  // The loaded ones asked for are answered "already available", so they stay: the room left is beside them.
  const known = asked.flatMap((a) => (a.tool ? [a.tool] : []));
  const keep = [...new Set(toKeep(known, ctx))];
  const left = roomLeft(keep, ctx);
  // The unknown names answered, lower-cased: one is answered once in whatever case, as a known one is.
  const unknown = new Set<string>();
  for (const { name, tool } of asked) {
    const folded = name.toLowerCase();
    if (!tool) {
      // Under the spelling it was first asked in.
      if (!unknown.has(folded)) result[name] = "unknown";
      unknown.add(folded);
    }
    // Asked twice in one call (or in two spellings): its first answer stands.
    else if (Object.hasOwn(result, tool.name)) continue;
    else if (!tool.deferred || ctx.loaded.has(tool.name)) result[tool.name] = "already available";
    else if (left !== undefined && load.length >= left) result[tool.name] = `not loaded: ${overRoomText(keep, ctx)}`;
    else {
      result[tool.name] = "loaded";
      load.push(tool.name);
    }
  }
  return { content: [text(result), ...refs(load)], is_error: false, load, keep };
}

/** Runs a built-in disclosure tool. Pure: the caller persists the result and the loads together. */
export function runBuiltin(name: string, input: JsonObject, ctx: BuiltinContext): BuiltinOutcome {
  switch (name) {
    case "tool_search": {
      const bad = invalid(ctx, name, "toolSearchInput", input);
      return bad ?? searchTools(input as unknown as { query: string; max_results?: number }, ctx);
    }
    case "tool_info": {
      const bad = invalid(ctx, name, "toolInfoInput", input);
      return bad ?? toolInfo(input as unknown as { name: string; include_schema?: boolean }, ctx);
    }
    case "select_tools": {
      const bad = invalid(ctx, name, "selectToolsInput", input);
      return bad ?? selectByName(input as unknown as { names: string[] }, ctx);
    }
    default:
      return fail(`unknown built-in tool ${name}`);
  }
}
