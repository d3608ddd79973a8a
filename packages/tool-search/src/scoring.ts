// Ranking one keyword query: BM25F over the query's groups of terms, then name boosts (the query names a tool, or is
// its name), then the filters (exclude set, `+required` words) and the top `limit`, ties in catalog order.
// A query reads only the postings of its own terms.

import {
  type Catalog,
  FIELD_COUNT,
  FIELD_DESCRIPTION,
  FIELD_HINT,
  FIELD_NAME,
  fieldTf,
  type IndexedTool,
  type Posting,
} from "./catalog.ts";
import type { Expander } from "./expander.ts";
import { parseQuery } from "./query.ts";
import { STOPWORDS } from "./tokenize.ts";
import { type Tuning, termOf } from "./tuning.ts";

export interface SearchHit {
  name: string;
  score: number;
}

export interface SearchOptions {
  /** Most hits returned (default 5). */
  limit?: number;
  /** Tool names to leave out (the session's loaded set). */
  exclude?: ReadonlySet<string>;
}

/** Words of one query that are scored; the rest are ignored (bounds the work per query). */
const MAX_QUERY_WORDS = 64;
/** A score given to tools that only meet a `+required` word inside their name, so they can still be listed. */
const NAME_SUBSTRING_SCORE = 1e-3;

/** See `ToolIndex.search`. */
export function rank(
  catalog: Catalog,
  expander: Expander,
  tuning: Tuning,
  query: string,
  opts: SearchOptions,
): SearchHit[] {
  const limit = Math.max(0, Math.floor(opts.limit ?? 5));
  if (limit === 0 || catalog.live === 0) return [];
  const parsed = parseQuery(query);
  const tokens = parsed.terms.slice(0, MAX_QUERY_WORDS);
  // Stopwords are dropped unless nothing else is left.
  let words = tuning.stopwords ? tokens.filter((x) => !STOPWORDS.has(x)) : tokens;
  if (words.length === 0) words = tokens;
  if (words.length === 0) return [];

  // One group per distinct term (repeats weigh 1 + ln n); a group scores a tool by its best alternative.
  const groups = expander.queryGroups(words);

  const scores = new Float64Array(catalog.docs.length);
  const touched: number[] = [];
  const termScores = (term: string, weight: number, emit: (id: number, s: number) => void) => {
    const p = catalog.postings.get(term);
    if (!p) return;
    const sat = saturated(catalog, tuning, p);
    const w = weight * idf(catalog, p.docs.length);
    const docs = p.docs;
    for (let k = 0; k < docs.length; k++) emit(docs[k]!, w * sat[k]!);
  };
  const addScore = (id: number, s: number) => {
    if (!(s > 0)) return; // (a field weight of 0 gives 0; keeping those out keeps `touched` free of repeats)
    if (scores[id] === 0) touched.push(id);
    scores[id]! += s;
  };

  for (const { count, alts } of groups.values()) {
    const qw = 1 + Math.log(count);
    if (alts.length === 1) {
      termScores(alts[0]![0], qw * alts[0]![1], addScore);
      continue;
    }
    const best = new Map<number, number>();
    for (const [w, sim] of alts) {
      termScores(w, qw * sim, (id, s) => {
        if (s > (best.get(id) ?? 0)) best.set(id, s);
      });
    }
    for (const [id, s] of best) addScore(id, s);
  }

  // A required word may sit inside a name without being one of its terms ("+git" → mcp__github__*): such tools
  // are candidates too (one pass over the names, only for queries with +words).
  const required = parsed.required.slice(0, MAX_QUERY_WORDS).map((r) => ({ raw: r, term: termOf(tuning, r) }));
  for (const r of required) {
    for (const doc of catalog.docs) {
      if (doc && scores[doc.id] === 0 && doc.lower.includes(r.raw)) addScore(doc.id, NAME_SUBSTRING_SCORE);
    }
  }

  // Name boosts. Windows of up to 6 consecutive query tokens, joined, meet the tools' name keys, so "Able Style",
  // "able-style" and "AbleStyle" all name the tool `AbleStyle`.
  if (tuning.namePhraseBoost > 0) {
    const boosted = new Set<number>();
    for (let i = 0; i < tokens.length; i++) {
      let k = "";
      for (let j = i; j < tokens.length && j < i + 6; j++) {
        k += tokens[j]!;
        for (const id of catalog.byAnyKey.get(k) ?? []) {
          const doc = catalog.docs[id]!;
          if (!doc.mention || boosted.has(id)) continue;
          boosted.add(id);
          let idfSum = 0;
          for (const nt of doc.nameTerms) idfSum += idf(catalog, catalog.postings.get(nt)?.docs.length ?? catalog.live);
          addScore(id, tuning.namePhraseBoost * idfSum);
        }
      }
    }
  }
  if (tuning.exactNameBoost > 0) {
    const exact = catalog.byName.get(query.trim());
    for (const id of exact !== undefined ? [exact] : (catalog.byKey.get(tokens.join("")) ?? [])) {
      addScore(id, tuning.exactNameBoost);
    }
  }

  // Filters (exclude set, required words), then the top `limit` by score, ties in catalog order.
  const top: Array<[number, number]> = [];
  for (const id of touched) {
    const s = scores[id]!;
    if (!(s > 0)) continue;
    if (top.length === limit) {
      const last = top[limit - 1]!;
      if (s < last[1] || (s === last[1] && id > last[0])) continue;
    }
    const doc = catalog.docs[id]!;
    if (opts.exclude?.has(doc.name)) continue;
    if (required.length > 0 && !required.every((r) => contains(catalog, doc, r.term, r.raw))) continue;
    let at = top.length;
    while (at > 0 && (top[at - 1]![1] < s || (top[at - 1]![1] === s && top[at - 1]![0] > id))) at--;
    top.splice(at, 0, [id, s]);
    if (top.length > limit) top.pop();
  }
  return top.map(([id, score]) => ({ name: catalog.docs[id]!.name, score }));
}

/** The posting's cached saturated BM25F weights, recomputed if the catalog changed since. */
function saturated(catalog: Catalog, tuning: Tuning, p: Posting): Float64Array {
  if (p.sat && p.epoch === catalog.epoch) return p.sat;
  const norm = new Float64Array(FIELD_COUNT);
  for (let f = 0; f < FIELD_COUNT; f++) norm[f] = tuning.b[f]! / (catalog.lenSum[f]! / catalog.live || 1);
  const n = p.docs.length;
  const sat = p.sat && p.sat.length === n ? p.sat : new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const len = catalog.docs[p.docs[k]!]!.len;
    const packed = p.tf[k]!;
    let x = 0;
    for (let f = 0; f < FIELD_COUNT; f++) {
      const freq = fieldTf(packed, f);
      if (freq > 0) x += (tuning.weights[f]! * freq) / (1 - tuning.b[f]! + norm[f]! * len[f]!);
    }
    sat[k] = (x * (tuning.k1 + 1)) / (x + tuning.k1);
  }
  p.sat = sat;
  p.epoch = catalog.epoch;
  return sat;
}

function idf(catalog: Catalog, df: number): number {
  return Math.log(1 + (catalog.live - df + 0.5) / (df + 0.5));
}

/** Whether `term` is in the tool's name, search_hint or description, or `raw` is inside its lowercase name. */
function contains(catalog: Catalog, doc: IndexedTool, term: string, raw: string): boolean {
  const p = catalog.postings.get(term);
  if (p) {
    // Posting lists are in ascending tool id order (ids only grow; removal keeps the order): binary search.
    let lo = 0;
    let hi = p.docs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const id = p.docs[mid]!;
      if (id === doc.id) {
        const packed = p.tf[mid]!;
        if (
          fieldTf(packed, FIELD_NAME) > 0 ||
          fieldTf(packed, FIELD_HINT) > 0 ||
          fieldTf(packed, FIELD_DESCRIPTION) > 0
        )
          return true;
        break;
      }
      if (id < doc.id) lo = mid + 1;
      else hi = mid - 1;
    }
  }
  return doc.lower.includes(raw);
}
