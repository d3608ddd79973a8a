/**
 * The serialized JSON body of one step request, built once per request
 * object: the context budget's size estimate (before the request) and the adapter
 * that sends it share the same text, so a long history is not projected and
 * stringified twice on the way to the provider.
 *
 * A tool's wire form is serialized once, not once per step: the adapters build
 * it with `wireOnce`, which returns the same frozen object for the same schema
 * and fields, and `bodyText` reuses that object's text wherever it sits in a
 * top-level array (tools[]). An agent of 200 tools sends ~276 KB of schemas in
 * every Anthropic request (`defer_loading` requires all of them).
 */
import { toolsReferencedIn } from "../model/message";
import type { StepRequest } from "./types";

const bodies = new WeakMap<StepRequest, Record<string, unknown>>();
const texts = new WeakMap<StepRequest, string>();

/** `build(req)`, remembered for as long as `req` lives (the adapter reads it for headers, e.g. Anthropic betas). */
export function bodyOf(
  req: StepRequest,
  build: (req: StepRequest) => Record<string, unknown>,
): Record<string, unknown> {
  let body = bodies.get(req);
  if (body === undefined) {
    body = build(req);
    bodies.set(req, body);
  }
  return body;
}

/**
 * `JSON.stringify(build(req))`, remembered for as long as `req` lives (a request is never changed once built).
 * The same text, byte for byte, but for lone surrogates (`wellFormed`); the elements `wireOnce` built are not
 * serialized again.
 */
export function bodyText(req: StepRequest, build: (req: StepRequest) => Record<string, unknown>): string {
  let text = texts.get(req);
  if (text === undefined) {
    text = wellFormed(stringifyBody(bodyOf(req, build)));
    texts.set(req, text);
  }
  return text;
}

/** An escaped surrogate not itself behind an escaping backslash (`\\ud83d` is the text "\ud83d", left alone). */
const LONE_SURROGATE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;

/**
 * JSON text with each lone surrogate replaced by U+FFFD. JSON.stringify writes a lone half (a string cut inside
 * a surrogate pair) as a `\udXXX` escape and a whole pair as itself, so every such escape is a lone half; the
 * provider refuses the request that carries one (Anthropic: "no low surrogate in string"), and a value kept in
 * history would refuse every later request. Cuts avoid splitting pairs (`headChars`); this catches any other.
 * The usual body has no `\ud` at all: one scan.
 */
function wellFormed(json: string): string {
  return json.includes("\\ud") ? json.replace(LONE_SURROGATE, "$1\\ufffd") : json;
}

/**
 * The size, by `measure` (e.g. an estimate of its tokens), of the part of `bodyText(req, build)` that reaches the
 * model's prompt: all of it but the tools the provider keeps out until they are referenced (Anthropic's
 * `defer_loading: true` with no `tool_reference` in the request's history: a reference expands the tool's whole
 * definition into the context), so 200 deferred schemas on the wire are not counted as ~70k tokens of context (the
 * context budget's estimate, compaction/run-budgeted-step.ts), and the ones the model loaded are. `measure` adds up
 * over concatenated text (rounding aside).
 */
export function promptSize(
  req: StepRequest,
  build: (req: StepRequest) => Record<string, unknown>,
  measure: (text: string) => number,
): number {
  const total = measure(bodyText(req, build));
  const tools = bodyOf(req, build).tools;
  if (!Array.isArray(tools)) return total;
  let loaded: ReadonlySet<string> | null = null;
  let deferred = 0;
  for (const tool of tools) {
    const wire = tool as { defer_loading?: unknown; name?: unknown } | null;
    if (wire?.defer_loading !== true) continue;
    loaded ??= toolsReferencedIn(req.messages);
    if (typeof wire.name === "string" && loaded.has(wire.name)) continue;
    // Its text as the body holds it (bodyText filled it for a `wireOnce` object), and a comma.
    deferred += measure(`${onceTexts.get(tool as object) ?? JSON.stringify(tool)},`);
  }
  return Math.max(0, total - deferred);
}

/**
 * The forms kept per schema; a schema has a handful (per wire protocol: deferred or loaded, with or without the
 * cache breakpoint).
 */
const MAX_VARIANTS = 8;
/** A wire object's variants, by the schema object it carries. */
const variants = new WeakMap<object, Array<{ kind: string; fields: readonly unknown[]; wire: object }>>();
/** Each object `wireOnce` returned, with its JSON text once a body has held it (null until then). */
const onceTexts = new WeakMap<object, string | null>();

/**
 * The wire object `build()` makes for `schema` in the shape `kind` (one per wire protocol) with these `fields`
 * (the wire's other values; all compared with `===`): the same frozen object every time they are the same, so
 * `bodyText` serializes it once. `schema` must not change once built (a registry's tool schemas do not).
 */
export function wireOnce<T extends object>(
  kind: string,
  schema: object,
  fields: readonly unknown[],
  build: () => T,
): T {
  let list = variants.get(schema);
  if (list === undefined) {
    list = [];
    variants.set(schema, list);
  }
  for (const v of list) {
    if (v.kind === kind && v.fields.length === fields.length && v.fields.every((f, i) => f === fields[i])) {
      return v.wire as T;
    }
  }
  const wire = Object.freeze(build());
  if (list.length >= MAX_VARIANTS) list.shift();
  list.push({ kind, fields, wire });
  onceTexts.set(wire, null);
  return wire;
}

/** `JSON.stringify(body)` for a plain object of JSON values, reusing the text of `wireOnce` objects. */
function stringifyBody(body: Record<string, unknown>): string {
  const keys = Object.keys(body);
  // A body without tools[] (or with tools made elsewhere) is one native call, as before.
  if (!keys.some((key) => onceArray(body[key]))) return JSON.stringify(body);
  const members: string[] = [];
  for (const key of keys) {
    const value = body[key];
    const text = onceArray(value) ? arrayText(value) : JSON.stringify(value);
    // A member JSON leaves out (undefined) is left out here too.
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(",")}}`;
}

function onceArray(value: unknown): value is unknown[] {
  return Array.isArray(value) && onceTexts.has(value[0]);
}

/** The last array text built from each first `wireOnce` element, with the elements it was built from. */
const arrays = new WeakMap<object, { values: readonly unknown[]; text: string }>();

/**
 * A top-level array whose first element came from `wireOnce` (tools[]); its other elements may not have. The same
 * elements as last time give the same text without joining it again.
 */
function arrayText(values: unknown[]): string {
  const head = values[0] as object;
  const last = arrays.get(head);
  if (last && last.values.length === values.length && last.values.every((v, i) => v === values[i])) return last.text;
  const parts = values.map((value) => {
    const known = onceTexts.get(value as object);
    if (known) return known;
    const text = JSON.stringify(value) ?? "null";
    if (known === null) onceTexts.set(value as object, text);
    return text;
  });
  const text = `[${parts.join(",")}]`;
  // Only when every element came from `wireOnce` (frozen): another object could change under the same identity.
  if (values.every((v) => onceTexts.has(v as object))) arrays.set(head, { values: [...values], text });
  return text;
}
