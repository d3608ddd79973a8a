/**
 * Turns one engine's raw errors, already translated into drafts (`cfworker-issues.ts`, `ajv-issues.ts`),
 * into the short list of issues both engines report: specific errors first-class, wrapper errors
 * ("something below me failed") only where nothing more specific exists, type errors at one place
 * merged, duplicates removed, at most MAX_ISSUES.
 */
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
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
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

export function typeOf(value: unknown): string {
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

function isAtOrBelow(pointer: string, ancestor: string): boolean {
  return pointer === ancestor || pointer.startsWith(`${ancestor}/`);
}

export function reduceIssues(
  drafts: readonly IssueDraft[],
  value: unknown,
): { issues: SchemaIssue[]; omitted: number } {
  const specific = drafts.filter((d) => !d.wrapper).map((d) => d.pointer);
  // A wrapper survives only if nothing specific sits at or below it, and no surviving wrapper sits below it.
  const lonely = drafts.filter((d) => d.wrapper && !specific.some((p) => isAtOrBelow(p, d.pointer)));
  const innermost = lonely.filter(
    (d) => !lonely.some((o) => o.pointer !== d.pointer && isAtOrBelow(o.pointer, d.pointer)),
  );
  const kept = drafts.filter((d) => !d.wrapper || innermost.includes(d));

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
  const all: SchemaIssue[] = [];
  for (const d of relevant) {
    const set = d.types ? types.get(d.pointer) : undefined;
    const message = set ? `expected ${[...set].join(" or ")}, got ${typeOf(valueAt(value, d.pointer))}` : d.message;
    const path = d.pointer === "" ? "(root)" : d.pointer;
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    all.push({ path, keyword: d.keyword, message });
  }
  if (all.length === 0) all.push({ path: "(root)", keyword: "schema", message: "does not match the schema" });
  // A type error where something else also failed came from a rejected alternative: the value has a type
  // some alternative accepts, and what that alternative says is the news, so it goes first.
  const also = (i: SchemaIssue) => i.keyword === "type" && all.some((o) => o.path === i.path && o.keyword !== "type");
  const ordered = [...all.filter((i) => !also(i)), ...all.filter(also)];
  return { issues: ordered.slice(0, MAX_ISSUES), omitted: Math.max(0, ordered.length - MAX_ISSUES) };
}
