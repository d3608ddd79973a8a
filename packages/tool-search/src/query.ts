// Query parsing for tool_search: `select:A,B` exact lookups and keyword queries with `+required` terms.

import { tokenize } from "./tokenize.ts";

const SELECT_PREFIX = /^\s*select\s*:/i;

/** Strips surrounding whitespace and one layer of matching quotes (and the whitespace inside them). */
function unquote(s: string): string {
  const t = s.trim();
  if (t.length >= 2) {
    const q = t[0];
    if ((q === '"' || q === "'") && t[t.length - 1] === q) return t.slice(1, -1).trim();
  }
  return t;
}

/** `"a, b"` → `a, b` when the quotes wrap the whole list (no such quote inside); otherwise unchanged. */
function unquoteList(s: string): string {
  const t = s.trim();
  const q = t[0];
  if (t.length >= 2 && (q === '"' || q === "'") && t[t.length - 1] === q && !t.slice(1, -1).includes(q)) {
    return t.slice(1, -1);
  }
  return t;
}

/**
 * `select:A,B` → ["A", "B"]; null when the query is not a select query. The prefix is case-insensitive; whitespace
 * around each name and one layer of matching `"…"` or `'…'` quotes around a name (or around the whole list) are
 * stripped; empty entries are dropped.
 * Case and duplicates are resolved by `selectTools`, which knows the catalog.
 */
export function parseSelect(query: string): string[] | null {
  const m = SELECT_PREFIX.exec(query);
  if (!m) return null;
  return unquoteList(query.slice(m[0].length))
    .split(",")
    .map(unquote)
    .filter((s) => s.length > 0);
}

/** Anything that can tell which tool names exist (a ToolIndex, an array or a set of names). */
export type NameSource = { names(): Iterable<string> } | Iterable<string>;

function namesOf(source: NameSource): Iterable<string> {
  return typeof (source as { names?: unknown }).names === "function"
    ? (source as { names(): Iterable<string> }).names()
    : (source as Iterable<string>);
}

/**
 * How a requested name resolves against one catalog, built once for it: the catalog's name for it, exact match
 * first, then case-insensitive (first catalog entry wins), after trimming; undefined for an unknown name. Resolving
 * N names through one resolver costs O(N + catalog size), where a resolver per name costs O(N × catalog size).
 */
export function nameResolver(source: NameSource): (name: string) => string | undefined {
  const exact = new Set<string>();
  const folded = new Map<string, string>();
  for (const n of namesOf(source)) {
    exact.add(n);
    const k = n.toLowerCase();
    if (!folded.has(k)) folded.set(k, n);
  }
  return (raw) => {
    const want = raw.trim();
    return exact.has(want) ? want : folded.get(want.toLowerCase());
  };
}

/**
 * Resolves requested names against the catalog (`nameResolver`): unknown names are dropped, duplicates removed
 * (request order kept), at most `limit` returned, each in its canonical casing.
 */
export function selectTools(source: NameSource, names: readonly string[], limit: number): string[] {
  const resolve = nameResolver(source);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const raw of names) {
    if (out.length >= limit) break;
    const hit = resolve(raw);
    if (hit === undefined || seen.has(hit)) continue;
    seen.add(hit);
    out.push(hit);
  }
  return out;
}

export interface ParsedQuery {
  /** Every token of the query, lowercased and split like tool names (required ones included), in query order. */
  terms: string[];
  /** Tokens of the `+word` items: a tool must contain each of them to be returned. */
  required: string[];
}

/**
 * Splits a keyword query. `+word` marks the word's tokens as required ("+github issue" → terms [github, issue],
 * required [github]); a lone `+` or a `+` inside a word is ignored.
 */
export function parseQuery(q: string): ParsedQuery {
  const terms: string[] = [];
  const required: string[] = [];
  for (const word of q.split(/\s+/)) {
    if (!word) continue;
    const req = word.startsWith("+");
    const toks = tokenize(req ? word.replace(/^\++/, "") : word);
    for (const t of toks) {
      terms.push(t);
      if (req && !required.includes(t)) required.push(t);
    }
  }
  return { terms, required };
}
