import type { OutputUnit } from "@cfworker/json-schema";

/** One problem with a value, phrased for a model (or a person) to fix it. */
export interface ValidationIssue {
  /** JSON pointer into the value ("/items/0/id"), or "(root)" for the value itself. */
  path: string;
  message: string;
}

/** A model repairs a call better from a few precise issues than from a wall of them. */
export const MAX_ISSUES = 10;

/**
 * Errors that only say "something below me failed". They are dropped when a more specific error at
 * the same place or below explains the failure, and kept otherwise (e.g. oneOf matching twice).
 */
const WRAPPERS = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "contains",
  "allOf",
  "anyOf",
  "oneOf",
  "$ref",
  "$recursiveRef",
  "dependentSchemas",
  "dependencies",
  "then",
  "else",
]);

/** The validator's locations are "#/a/b" with URI-encoded segments; ours are plain JSON pointers. */
function toPointer(location: string): string {
  const raw = location.startsWith("#") ? location.slice(1) : location;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function parent(pointer: string): string {
  return pointer.slice(0, Math.max(0, pointer.lastIndexOf("/")));
}

function lastSegment(pointer: string): string {
  return pointer
    .slice(pointer.lastIndexOf("/") + 1)
    .replaceAll("~1", "/")
    .replaceAll("~0", "~");
}

function show(value: unknown, limit = 60): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/** Shows an `enum` without flooding the message when it has hundreds of members. */
function showChoices(values: unknown[]): string {
  const shown = values.slice(0, 10).map((v) => show(v, 40));
  return values.length > 10 ? `${shown.join(", ")}, … (${values.length} allowed values)` : shown.join(", ");
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isInteger(value)) return "integer";
  return typeof value;
}

/** The part of the validated value an error points at, for "got …" hints. */
function valueAt(root: unknown, pointer: string): unknown {
  let cur = root;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (cur === null || typeof cur !== "object" || !Object.hasOwn(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

interface Draft {
  pointer: string;
  message: string;
  /** Types a `type` error accepts; type errors at one pointer merge ("expected string or null"). */
  types?: string[];
}

/** Bounds and sizes, rephrased as what the value must be. */
const REWRITES: Array<[RegExp, (m: RegExpExecArray) => string]> = [
  [
    /^(.*) is less than\s+(or equal to\s+)?(.*)\.$/,
    (m) => `must be ${m[2] ? "greater than" : "at least"} ${m[3]} (got ${m[1]})`,
  ],
  [
    /^(.*) is greater than\s+(or equal to\s+)?(.*)\.$/,
    (m) => `must be ${m[2] ? "less than" : "at most"} ${m[3]} (got ${m[1]})`,
  ],
  [/^String is too short \((\d+) < (\d+)\)\.$/, (m) => `must be at least ${m[2]} characters long (got ${m[1]})`],
  [/^String is too long \((\d+) > (\d+)\)\.$/, (m) => `must be at most ${m[2]} characters long (got ${m[1]})`],
  [/^Array has too few items \((\d+) < (\d+)\)\.$/, (m) => `must have at least ${m[2]} items (got ${m[1]})`],
  [/^Array has too many items \((\d+) > (\d+)\)\.$/, (m) => `must have at most ${m[2]} items (got ${m[1]})`],
  [/^String does not match format "(.*)"\.$/, (m) => `must be a valid ${m[1]} string`],
];

const PROPERTY_WRAPPERS = new Set(["properties", "patternProperties", "additionalProperties", "unevaluatedProperties"]);
const ITEM_WRAPPERS = new Set(["items", "prefixItems", "additionalItems", "unevaluatedItems"]);

/**
 * Rewrites one validator error in plain terms. `previous` is the error emitted just before: the
 * validator reports a `false` subschema with a useless keywordLocation, so the wrapper that precedes
 * it is the only way to tell "additionalProperties: false" from any other false schema.
 */
function describe(e: OutputUnit, previous: OutputUnit | undefined, value: unknown): Draft {
  const pointer = toPointer(e.instanceLocation);
  const got = valueAt(value, pointer);
  switch (e.keyword) {
    case "type": {
      const expected = /Expected (.*)\.$/.exec(e.error)?.[1] ?? "";
      const types = [...expected.matchAll(/"([a-z]+)"/g)].map((m) => m[1] ?? "");
      return { pointer, message: "", types };
    }
    case "required": {
      const key = /property "(.*)"\.$/.exec(e.error)?.[1] ?? "?";
      return { pointer, message: `missing required property "${key}"` };
    }
    case "enum": {
      const list = e.error.replace(/^Instance does not match any of /, "").replace(/\.$/, "");
      let choices: unknown;
      try {
        choices = JSON.parse(list);
      } catch {
        choices = undefined;
      }
      const allowed = Array.isArray(choices) ? showChoices(choices) : list;
      return { pointer, message: `must be one of ${allowed} (got ${show(got, 40)})` };
    }
    case "const":
      return { pointer, message: `must equal ${e.error.replace(/^Instance does not match /, "").replace(/\.$/, "")}` };
    case "false": {
      const wrapper = previous && toPointer(previous.instanceLocation) === parent(pointer) ? previous.keyword : "";
      if (PROPERTY_WRAPPERS.has(wrapper)) {
        return { pointer: parent(pointer), message: `property "${lastSegment(pointer)}" is not allowed` };
      }
      if (ITEM_WRAPPERS.has(wrapper)) {
        return { pointer: parent(pointer), message: `item ${lastSegment(pointer)} is not allowed (too many items)` };
      }
      return { pointer, message: "no value is allowed here" };
    }
    case "oneOf":
      return {
        pointer,
        message: e.error.includes("(0 matches)")
          ? "matches none of the allowed alternatives"
          : "matches more than one of the alternatives (exactly one must match)",
      };
    case "anyOf":
      return { pointer, message: "matches none of the allowed alternatives" };
    case "not":
      return { pointer, message: "matches a schema it must not match" };
    // The validator words these as "is less than N" although equality fails too.
    case "exclusiveMinimum":
    case "exclusiveMaximum": {
      const bound = /than (?:or equal to )?(.*)\.$/.exec(e.error)?.[1] ?? "?";
      const side = e.keyword === "exclusiveMinimum" ? "greater" : "less";
      return { pointer, message: `must be ${side} than ${bound} (got ${show(got, 40)})` };
    }
    case "pattern":
      return { pointer, message: `does not match the required pattern (got ${show(got, 40)})` };
    default: {
      for (const [re, rewrite] of REWRITES) {
        const m = re.exec(e.error);
        if (m) return { pointer, message: rewrite(m) };
      }
      return { pointer, message: e.error.replace(/^Instance /, "value ").replace(/\.$/, "") };
    }
  }
}

function isAtOrBelow(pointer: string, ancestor: string): boolean {
  return pointer === ancestor || pointer.startsWith(`${ancestor}/`);
}

/**
 * Turns raw validator output into a short list: specific errors first-class, wrapper errors only
 * where nothing more specific exists, type errors at one place merged, duplicates removed.
 */
export function toIssues(errors: OutputUnit[], value: unknown): { issues: ValidationIssue[]; omitted: number } {
  const drafts = errors.map((e, i) => ({ wrapper: WRAPPERS.has(e.keyword), draft: describe(e, errors[i - 1], value) }));
  const specific = drafts.filter((d) => !d.wrapper).map((d) => d.draft.pointer);
  // A wrapper survives only if nothing specific sits at or below it, and no surviving wrapper sits below it.
  const lonely = drafts.filter((d) => d.wrapper && !specific.some((p) => isAtOrBelow(p, d.draft.pointer)));
  const innermost = lonely.filter(
    (d) => !lonely.some((o) => o.draft.pointer !== d.draft.pointer && isAtOrBelow(o.draft.pointer, d.draft.pointer)),
  );
  const kept = drafts.filter((d) => !d.wrapper || innermost.includes(d)).map((d) => d.draft);

  // A type error at a place whose contents were also checked comes from an alternative that was
  // rejected (anyOf/oneOf): some other branch accepted the type and failed deeper, which is the news.
  const deeper = kept.map((d) => d.pointer);
  const relevant = kept.filter((d) => !d.types || !deeper.some((p) => p.startsWith(`${d.pointer}/`)));

  const types = new Map<string, Set<string>>();
  for (const d of relevant) {
    if (!d.types) continue;
    const set = types.get(d.pointer) ?? new Set<string>();
    for (const t of d.types) set.add(t);
    types.set(d.pointer, set);
  }
  const seen = new Set<string>();
  const all: ValidationIssue[] = [];
  for (const d of relevant) {
    const set = d.types ? types.get(d.pointer) : undefined;
    const message = set ? `expected ${[...set].join(" or ")}, got ${typeOf(valueAt(value, d.pointer))}` : d.message;
    const path = d.pointer === "" ? "(root)" : d.pointer;
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    all.push({ path, message });
  }
  return { issues: all.slice(0, MAX_ISSUES), omitted: Math.max(0, all.length - MAX_ISSUES) };
}

/** Renders issues as the text of an is_error tool_result: one line per issue. */
export function formatIssues(issues: readonly ValidationIssue[], omitted = 0): string {
  const lines = issues.map((i) => `- ${i.path}: ${i.message}`);
  if (omitted > 0) lines.push(`- …and ${omitted} more problem${omitted === 1 ? "" : "s"}`);
  return lines.join("\n");
}
