// Helpers for bench/disclosure.mjs: deterministic tool catalogs (a realistic 200-tool one and a compact one for
// search latency), example arguments that satisfy a generated schema, token counting (o200k via gpt-tokenizer) and
// readers for the parts of recorded wire bodies that make up the prompt-cache prefix.
// Erasable TypeScript with `.ts` imports only, so Node >= 22.18 loads it directly (type stripping).
import { readFileSync } from "node:fs";
import { encode } from "gpt-tokenizer";
import { mulberry32 } from "./random.ts";

export type JsonObject = Record<string, unknown>;

export interface GenTool {
  name: string;
  description: string;
  input_schema: JsonObject;
}

function pick<T>(rnd: () => number, items: readonly T[]): T {
  return items[Math.floor(rnd() * items.length)]!;
}

function shuffle<T>(rnd: () => number, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

interface Field {
  name: string;
  schema: JsonObject;
}

interface ObjectSpec {
  singular: string;
  plural: string;
  statuses: string[];
  /** Fields a create/update call sets. */
  fields: Field[];
  sortable: string[];
}

interface Service {
  key: string;
  title: string;
  objects: ObjectSpec[];
}

const str = (description: string, extra: JsonObject = {}): JsonObject => ({ type: "string", description, ...extra });
const int = (description: string, minimum: number, maximum: number): JsonObject => ({
  type: "integer",
  description,
  minimum,
  maximum,
});
const bool = (description: string): JsonObject => ({ type: "boolean", description });
const enm = (description: string, values: string[]): JsonObject => ({ type: "string", enum: values, description });
const arr = (description: string, items: JsonObject): JsonObject => ({ type: "array", items, description });

const f = (name: string, schema: JsonObject): Field => ({ name, schema });

/** The services and objects the realistic catalog is made of (plain data: bench/data/disclosure-services.json). */
const SERVICES = JSON.parse(
  readFileSync(new URL("./data/disclosure-services.json", import.meta.url), "utf8"),
) as Service[];

const VERBS = ["get", "list", "create", "update", "delete", "search", "archive", "export"] as const;
type Verb = (typeof VERBS)[number];

const an = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);
const human = (word: string) => word.replaceAll("_", " ");
const cap = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

function describe(rnd: () => number, verb: Verb, s: Service, o: ObjectSpec): string {
  const one = human(o.singular);
  const many = human(o.plural);
  const first: Record<Verb, string[]> = {
    get: [`Retrieve ${an(one)} from ${s.title} by its ID.`, `Fetch the full details of one ${one} in ${s.title}.`],
    list: [`List ${many} in ${s.title}, newest first.`, `Page through the ${many} stored in ${s.title}.`],
    create: [`Create a new ${one} in ${s.title}.`, `Add ${an(one)} to ${s.title} and return it with its new ID.`],
    update: [
      `Update fields of an existing ${one} in ${s.title}.`,
      `Change ${an(one)} in ${s.title}; unset fields are kept.`,
    ],
    delete: [
      `Permanently delete ${an(one)} from ${s.title}.`,
      `Remove ${an(one)} from ${s.title}. This cannot be undone.`,
    ],
    search: [`Search ${many} in ${s.title} by free text and filters.`, `Find ${many} in ${s.title} matching a query.`],
    archive: [`Archive ${an(one)} in ${s.title} so it no longer shows up in lists.`],
    export: [`Export ${many} from ${s.title} as a downloadable file.`],
  };
  const second = [
    `Use this when the user refers to a specific ${one}.`,
    `Results respect the caller's permissions in ${s.title}.`,
    `Returns the ${one} as JSON, including timestamps and status (${o.statuses.join(", ")}).`,
    "Rate limited to 10 requests per second.",
    `Prefer the search tool when the ${one} ID is unknown.`,
    "",
  ];
  const extra = pick(rnd, second);
  // Some tools carry a second paragraph (only the first line goes into the deferred listing).
  const notes =
    rnd() < 0.3
      ? `\n\nNote: requires the ${s.key}:${verb === "get" || verb === "list" || verb === "search" || verb === "export" ? "read" : "write"} scope.`
      : "";
  return `${pick(rnd, first[verb])}${extra ? ` ${extra}` : ""}${notes}`;
}

function idField(o: ObjectSpec): Field {
  return f(`${o.singular}_id`, str(`Unique ID of the ${human(o.singular)}`));
}

/** Parameters for one verb, before trimming to 2–6: [required…], [optional…]. */
function parameters(rnd: () => number, verb: Verb, o: ObjectSpec): { required: Field[]; optional: Field[] } {
  const limit = f("limit", int("Maximum number of results to return", 1, 100));
  const cursor = f("cursor", str("Opaque cursor from a previous page"));
  const status = f("status", enm(`Only ${human(o.plural)} with this status`, o.statuses));
  const sortBy = f("sort_by", enm("Field to sort by", o.sortable));
  const order = f("order", enm("Sort direction", ["asc", "desc"]));
  const fields = o.fields;
  switch (verb) {
    case "get":
      return {
        required: [idField(o)],
        optional: [
          f("fields", arr("Fields to include; all when omitted", { type: "string", enum: fields.map((x) => x.name) })),
          f("include_deleted", bool("Also return a deleted record")),
        ],
      };
    case "list":
      return {
        required: [],
        optional: [
          limit,
          cursor,
          status,
          sortBy,
          order,
          f("updated_since", str("Only records changed after", { format: "date-time" })),
        ],
      };
    case "create":
      return { required: fields.slice(0, 2), optional: [...fields.slice(2), f("notify", bool("Send notifications"))] };
    case "update":
      return { required: [idField(o)], optional: shuffle(rnd, fields) };
    case "delete":
      return {
        required: [idField(o)],
        optional: [
          f("force", bool("Delete even when other records reference it")),
          f("reason", enm("Why it is deleted", ["duplicate", "obsolete", "requested", "other"])),
        ],
      };
    case "search":
      return {
        required: [f("query", str(`Free-text query matched against ${human(o.singular)} fields`))],
        optional: [status, limit, sortBy, f("owner_id", str("Only records owned by this user"))],
      };
    case "archive":
      return {
        required: [idField(o)],
        optional: [f("reason", str("Why it is archived")), f("notify_owner", bool("Tell the owner"))],
      };
    case "export":
      return {
        required: [f("format", enm("File format", ["csv", "json", "xlsx", "pdf"]))],
        optional: [
          status,
          f("date_from", str("First day included", { format: "date" })),
          f("date_to", str("Last day included", { format: "date" })),
          f("columns", arr("Columns to export", { type: "string", enum: fields.map((x) => x.name) })),
        ],
      };
  }
}

/**
 * `n` realistic tools (n ≤ ~370): `<service>_<verb>_<object>` names over twelve SaaS-like services, one- or
 * two-sentence descriptions (some with a second paragraph), 2–6 typed parameters with descriptions, enums,
 * formats and bounds. Deterministic for a given seed.
 */
export function realisticTools(n: number, seed = 7): GenTool[] {
  const rnd = mulberry32(seed);
  const combos: Array<[Service, ObjectSpec, Verb]> = [];
  for (const s of SERVICES) for (const o of s.objects) for (const v of VERBS) combos.push([s, o, v]);
  const chosen = shuffle(rnd, combos).slice(0, n);
  if (chosen.length < n) throw new Error(`realisticTools: at most ${combos.length} tools`);
  return chosen.map(([s, o, verb]) => {
    const noun = verb === "list" || verb === "search" || verb === "export" ? o.plural : o.singular;
    const { required, optional } = parameters(rnd, verb, o);
    const count = Math.max(2, Math.min(6, 2 + Math.floor(rnd() * 5)));
    const params = [...required, ...optional].slice(0, Math.max(count, required.length));
    const properties: JsonObject = {};
    for (const p of params) properties[p.name] = p.schema;
    const schema: JsonObject = { type: "object", properties, additionalProperties: false };
    if (required.length > 0) schema.required = required.map((p) => p.name);
    return { name: `${s.key}_${verb}_${noun}`, description: describe(rnd, verb, s, o), input_schema: schema };
  });
}

/**
 * `n` small tools for a large catalog (search latency): the realistic names spread over numbered workspaces
 * (`crm7_update_deal`), one-sentence descriptions with a distinguishing phrase, and 1–2 parameters without
 * descriptions — a few hundred bytes each, so thousands fit in one agent body.
 */
export function compactTools(n: number, seed = 11): GenTool[] {
  const rnd = mulberry32(seed);
  const regions = ["eu", "us", "apac", "latam", "emea", "uk", "ca", "jp", "in", "au"];
  const teams = ["sales", "support", "finance", "growth", "platform", "legal", "ops", "design", "data", "security"];
  const base: Array<[Service, ObjectSpec, Verb]> = [];
  for (const s of SERVICES) for (const o of s.objects) for (const v of VERBS) base.push([s, o, v]);
  const out: GenTool[] = [];
  for (let ws = 1; out.length < n; ws++) {
    for (const [s, o, verb] of shuffle(rnd, base)) {
      if (out.length >= n) break;
      const noun = verb === "list" || verb === "search" || verb === "export" ? o.plural : o.singular;
      const region = pick(rnd, regions);
      const team = pick(rnd, teams);
      const field = pick(rnd, o.fields);
      const properties: JsonObject =
        verb === "list" || verb === "search" || verb === "export"
          ? { query: { type: "string" }, limit: { type: "integer" } }
          : { id: { type: "string" }, [field.name]: { type: field.schema.type === "array" ? "array" : "string" } };
      out.push({
        name: `${s.key}${ws}_${verb}_${noun}`,
        description: `${cap(human(verb))} ${human(noun)} in ${s.title} for the ${team} team (${region} workspace ${ws}).`,
        input_schema: { type: "object", properties },
      });
    }
  }
  return out;
}

/** Arguments that satisfy a generated schema: required properties only, first enum value, bounds respected. */
export function exampleArgs(schema: JsonObject): JsonObject {
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const out: JsonObject = {};
  for (const name of required) {
    const p = properties[name];
    if (p) out[name] = exampleValue(p);
  }
  return out;
}

function exampleValue(p: JsonObject): unknown {
  if (Array.isArray(p.enum)) return p.enum[0];
  switch (p.type) {
    case "integer":
    case "number":
      return typeof p.minimum === "number" ? p.minimum : 1;
    case "boolean":
      return true;
    case "array":
      return [];
    default:
      if (p.format === "date") return "2025-06-02";
      if (p.format === "date-time") return "2025-06-02T09:30:00Z";
      if (p.format === "email") return "ada@example.com";
      return "bench";
  }
}

/** o200k tokens (gpt-tokenizer's default encoding). */
export function tokens(text: string): number {
  return text === "" ? 0 : encode(text).length;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** tools[] of a recorded wire body (empty when absent). */
export function wireTools(body: unknown): JsonObject[] {
  return isObject(body) && Array.isArray(body.tools) ? body.tools.filter(isObject) : [];
}

/** Name of a wire tool (Anthropic `name`, Chat Completions `function.name`). */
export function wireToolName(tool: JsonObject): string {
  if (typeof tool.name === "string") return tool.name;
  return isObject(tool.function) && typeof tool.function.name === "string" ? tool.function.name : "?";
}

/** The system prompt as sent: Anthropic `system` (string or blocks), Chat Completions the leading system message. */
export function wireSystem(body: unknown): unknown {
  if (!isObject(body)) return null;
  if (body.system !== undefined) return body.system;
  const first = Array.isArray(body.messages) ? body.messages[0] : undefined;
  return isObject(first) && first.role === "system" && "content" in first ? first : null;
}

/** Plain text of the system prompt (for token counting). */
export function systemText(body: unknown): string {
  const system = wireSystem(body);
  if (typeof system === "string") return system;
  if (Array.isArray(system))
    return system.map((b) => (isObject(b) && typeof b.text === "string" ? b.text : "")).join("\n");
  if (isObject(system) && typeof system.content === "string") return system.content;
  return "";
}

/** The `<deferred_tools>…</deferred_tools>` section of the system prompt ("" when there is none). */
export function deferredListing(system: string): string {
  return /<deferred_tools>[\s\S]*?<\/deferred_tools>/.exec(system)?.[0] ?? "";
}

/** Names the `tool_reference` blocks of a recorded Anthropic body's tool results name. */
export function referencedTools(body: unknown): Set<string> {
  const names = new Set<string>();
  const messages = isObject(body) && Array.isArray(body.messages) ? body.messages.filter(isObject) : [];
  for (const m of messages) {
    for (const block of Array.isArray(m.content) ? m.content.filter(isObject) : []) {
      if (block.type !== "tool_result" || !Array.isArray(block.content)) continue;
      for (const b of block.content.filter(isObject)) {
        if (b.type === "tool_reference" && typeof b.tool_name === "string") names.add(b.tool_name);
      }
    }
  }
  return names;
}

/**
 * o200k tokens of what a recorded request puts in the prompt, as the JSON of its tools, system and messages: the
 * tools without `defer_loading`, and on Anthropic the deferred ones a `tool_reference` in its messages brings in.
 */
export function requestTokens(body: unknown): number {
  if (!isObject(body)) return 0;
  const referenced = referencedTools(body);
  const tools = wireTools(body).filter((t) => t.defer_loading !== true || referenced.has(wireToolName(t)));
  return tokens(JSON.stringify({ tools, system: body.system ?? null, messages: body.messages ?? [] }));
}

/**
 * Messages of a wire body, each serialized (for prefix comparisons) without its cache breakpoints: Anthropic's
 * `prompt_cache` marks the conversation's last block at every step, and a breakpoint is no part of the cached prefix.
 */
export function wireMessages(body: unknown): string[] {
  if (!isObject(body) || !Array.isArray(body.messages)) return [];
  return body.messages.map((m) => JSON.stringify(m, (key, value) => (key === "cache_control" ? undefined : value)));
}

/**
 * Over consecutive steps of one session: how many steps sent the same tools[] + system bytes as the step before,
 * and how many kept the previous step's messages as an unchanged prefix.
 */
export function prefixStability(bodies: unknown[]): {
  steps: number;
  compared: number;
  same_tools_and_system: number;
  same_tools: number;
  same_system: number;
  messages_append_only: number;
  changed_at: number[];
} {
  let same = 0;
  let sameTools = 0;
  let sameSystem = 0;
  let appendOnly = 0;
  const changedAt: number[] = [];
  for (let i = 1; i < bodies.length; i++) {
    const tools = JSON.stringify(wireTools(bodies[i])) === JSON.stringify(wireTools(bodies[i - 1]));
    const system = JSON.stringify(wireSystem(bodies[i])) === JSON.stringify(wireSystem(bodies[i - 1]));
    if (tools) sameTools++;
    if (system) sameSystem++;
    if (tools && system) same++;
    else changedAt.push(i + 1);
    const prev = wireMessages(bodies[i - 1]);
    const cur = wireMessages(bodies[i]);
    if (prev.length <= cur.length && prev.every((m, k) => m === cur[k])) appendOnly++;
  }
  return {
    steps: bodies.length,
    compared: Math.max(0, bodies.length - 1),
    same_tools_and_system: same,
    same_tools: sameTools,
    same_system: sameSystem,
    messages_append_only: appendOnly,
    changed_at: changedAt,
  };
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

const QUERY_STOP = new Set(["in", "the", "for", "a", "an", "to", "of", "workspace"]);

/**
 * Keyword queries aimed at random tools of a catalog: 3–7 words of the target's description (stopwords and
 * numbers dropped), shuffled, sometimes with a filler phrase — what a model writes into tool_search.
 */
export function keywordQueries(tools: readonly GenTool[], count: number, seed = 5): string[] {
  const rnd = mulberry32(seed);
  const fillers = ["", "", "how do I", "tool to", "I need to"];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const target = pick(rnd, tools);
    const words = target.description
      .toLowerCase()
      .replace(/[^a-z0-9 ]+/g, " ")
      .split(/\s+/)
      .filter((w) => w !== "" && !QUERY_STOP.has(w) && !/^\d+$/.test(w));
    const k = Math.min(words.length, 3 + Math.floor(rnd() * 5));
    const filler = pick(rnd, fillers);
    out.push(`${filler ? `${filler} ` : ""}${shuffle(rnd, words).slice(0, k).join(" ")}`);
  }
  return out;
}

/** `count` distinct tool names per group, `groups` groups, never repeating a name across groups. */
export function nameGroups(tools: readonly GenTool[], groups: number, count: number, seed = 9): string[][] {
  const rnd = mulberry32(seed);
  const names = shuffle(
    rnd,
    tools.map((t) => t.name),
  );
  if (names.length < groups * count) throw new Error("nameGroups: catalog too small");
  return Array.from({ length: groups }, (_, g) => names.slice(g * count, (g + 1) * count));
}
