/**
 * Turns one engine's raw errors, already translated into drafts (`cfworker-issues.ts`, `ajv-issues.ts`),
 * into the short list of issues both engines report: specific errors first-class, wrapper errors
 * ("something below me failed") only where nothing more specific exists, type errors at one place
 * merged, duplicates removed, at most MAX_ISSUES.
 */
import { headChars } from "../storage/fit";
import { MAX_ISSUES, type SchemaIssue } from "./issue";

/** One engine error in engine-neutral terms. */
export interface IssueDraft {
  /** JSON pointer into the value; "" is the value itself. */
  pointer: string;
  keyword: string;
  message: string;
  /** Types a `type` error accepts; type errors at one pointer merge ("expected string or null"). */
  types?: string[];
  /** An error that only says a subschema below failed (anyOf, oneOf with no match, properties, …). */
  wrapper: boolean;
}

export function show(value: unknown, limit = 60): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > limit ? `${headChars(text, limit - 1)}…` : text;
}

/**
 * A key of the validated value as an issue shows it: a key is as long as the value makes it, and an issue line is
 * read by a model, stored in events and put on spans, so a long one keeps its head (cut on a character boundary).
 */
export function showKey(key: string, limit = 60): string {
  return key.length > limit ? `${headChars(key, limit - 1)}…` : key;
}

/** A pointer with each of its segments shown by `showKey`. */
function showPointer(pointer: string): string {
  return pointer
    .split("/")
    .map((segment) => showKey(segment))
    .join("/");
}

/** Shows an `enum` without flooding the message when it has hundreds of members. */
export function showChoices(values: readonly unknown[]): string {
  const shown = values.slice(0, 10).map((v) => show(v, 40));
  return values.length > 10 ? `${shown.join(", ")}, … (${values.length} allowed values)` : shown.join(", ");
}

/** uniqueItems, worded the same whichever engine found the pair. */
export function duplicates(a: number, b: number): string {
  return `must not contain duplicates (items ${Math.min(a, b)} and ${Math.max(a, b)} are equal)`;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isInteger(value)) return "integer";
  return typeof value;
}

/** The part of the validated value a pointer names, for "got …" hints. */
export function valueAt(root: unknown, pointer: string): unknown {
  let cur = root;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (cur === null || typeof cur !== "object" || !Object.hasOwn(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** Every pointer strictly above `pointer` ("/a/b" → "", "/a"). */
function ancestors(pointer: string): string[] {
  const out: string[] = [];
  for (let i = pointer.lastIndexOf("/"); i >= 0; i = pointer.lastIndexOf("/", i - 1)) {
    out.push(pointer.slice(0, i));
    if (i === 0) break;
  }
  return out;
}

/**
 * The pointers strictly above any of `pointers`. Asking "is anything below P?" of this set instead of
 * scanning the list keeps the reduction linear: a value of 20,000 wrong items gives 40,000 drafts.
 */
function strictlyAbove(pointers: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const p of pointers) {
    for (const a of ancestors(p)) {
      if (out.has(a)) break; // its own ancestors are in already
      out.add(a);
    }
  }
  return out;
}

export function reduceIssues(
  drafts: readonly IssueDraft[],
  value: unknown,
): { issues: SchemaIssue[]; omitted: number } {
  const specific = new Set(drafts.filter((d) => !d.wrapper).map((d) => d.pointer));
  const aboveSpecific = strictlyAbove(specific);
  // A wrapper survives only if nothing specific sits at or below it, and no surviving wrapper sits below it.
  const lonely = drafts.filter((d) => d.wrapper && !specific.has(d.pointer) && !aboveSpecific.has(d.pointer));
  const aboveLonely = strictlyAbove(new Set(lonely.map((d) => d.pointer)));
  const innermost = new Set(lonely.filter((d) => !aboveLonely.has(d.pointer)));
  const kept = drafts.filter((d) => !d.wrapper || innermost.has(d));

  // A type error at a place whose contents were also checked comes from an alternative that was
  // rejected (anyOf/oneOf): some other branch accepted the type and failed deeper, which is the news.
  const deeper = strictlyAbove(new Set(kept.map((d) => d.pointer)));
  const relevant = kept.filter((d) => !d.types || !deeper.has(d.pointer));

  const types = new Map<string, Set<string>>();
  for (const d of relevant) {
    if (!d.types) continue;
    const set = types.get(d.pointer) ?? new Set<string>();
    for (const t of d.types) set.add(t);
    types.set(d.pointer, set);
  }
  const seen = new Set<string>();
  const all: SchemaIssue[] = [];
  for (const d of relevant) {
    const set = d.types ? types.get(d.pointer) : undefined;
    const message = set ? `expected ${[...set].join(" or ")}, got ${typeOf(valueAt(value, d.pointer))}` : d.message;
    const path = d.pointer === "" ? "(root)" : showPointer(d.pointer);
    // Told apart by the whole pointer: two long keys with one head are two issues.
    const key = `${d.pointer}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    all.push({ path, keyword: d.keyword, message });
  }
  if (all.length === 0) all.push({ path: "(root)", keyword: "schema", message: "does not match the schema" });
  // A type error where something else also failed came from a rejected alternative: the value has a type
  // some alternative accepts, and what that alternative says is the news, so it goes first.
  const failedOtherwise = new Set(all.filter((i) => i.keyword !== "type").map((i) => i.path));
  const also = (i: SchemaIssue) => i.keyword === "type" && failedOtherwise.has(i.path);
  const ordered = [...all.filter((i) => !also(i)), ...all.filter(also)];
  return { issues: ordered.slice(0, MAX_ISSUES), omitted: Math.max(0, ordered.length - MAX_ISSUES) };
}
