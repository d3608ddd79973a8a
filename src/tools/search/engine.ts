// The tool-search index: BM25F over four fields of each tool (name parts, search_hint, description, parameter
// names + descriptions), with stemming, stopwords, name boosts, typo tolerance and compound-name splitting.
//
// Everything is plain data (Maps and arrays) built once per catalog and updated incrementally (`add`, `remove`);
// a query touches only the postings of its own terms (plus a scan of the distinct vocabulary for a term that is not
// in it, to find typo/prefix variants). No Node built-ins, no eval, no I/O: it runs inside workerd as is.

import { parseQuery } from "./query.ts";
import { normalizeTerm, STOPWORDS, tokenize } from "./tokenize.ts";

export interface SearchDoc {
  name: string;
  description: string;
  search_hint?: string;
  input_schema?: Record<string, unknown>;
}

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

/** Scoring knobs. The defaults are the tuned values; the bench passes variants to measure each technique. */
export interface Tuning {
  k1: number;
  /** Field weights and length-normalisation strengths, in field order: name, search_hint, description, parameters. */
  weights: [number, number, number, number];
  b: [number, number, number, number];
  stem: boolean;
  stopwords: boolean;
  /** Added when the whole query is the tool's name (any casing/separators): puts it first. */
  exactNameBoost: number;
  /** Added, times the summed idf of the name's parts, when the name's parts appear in order in the query. */
  namePhraseBoost: number;
  /** Weight of a vocabulary term one edit away from (or extending) a query term that the catalog lacks; 0 = off. */
  fuzzyWeight: number;
  /** Split lowercase concatenated name chunks ("airqualityforecast") with the catalog's own vocabulary. */
  splitCompounds: boolean;
  /** Weight of catalog terms sharing the first `prefixLength` letters with a query term (truncation stemming); 0 = off. */
  prefixWeight: number;
  prefixLength: number;
  /** Split a query word the catalog lacks into catalog words ("milesfrom" → miles from). */
  splitQuery: boolean;
  /** Weight of adjacent query-term pairs found adjacent in a tool's text; 0 = off. */
  bigramWeight: number;
}

export const DEFAULT_TUNING: Tuning = {
  k1: 1.2,
  weights: [3, 2, 1, 0.5],
  b: [0.5, 0.75, 0.75, 0.75],
  stem: true,
  stopwords: true,
  exactNameBoost: 1000,
  namePhraseBoost: 0.5,
  fuzzyWeight: 0.4,
  splitCompounds: false,
  prefixWeight: 0,
  prefixLength: 6,
  splitQuery: false,
  bigramWeight: 0,
};

const NF = 4;
const F_NAME = 0;
const F_HINT = 1;
const F_DESC = 2;

/** Caps on what one tool contributes, so a huge schema cannot blow up the index. */
const MAX_FIELD_CHARS = 8_000;
const MAX_SCHEMA_DEPTH = 4;
const MAX_SCHEMA_PROPS = 200;
/** Distinct words of one query that are scored; the rest are ignored (bounds the work per query). */
const MAX_QUERY_TERMS = 64;

interface Doc {
  id: number;
  name: string;
  /** Name tokens joined, lowercase ("mcp__github__create_issue" → "mcpgithubcreateissue"). */
  key: string;
  /** `key`, and for namespaced names (`server__tool`) the key of the part after the last `__` ("createissue"). */
  keys: string[];
  /** Whether a query containing the name is naming this tool: the name has several parts or is not a prose word. */
  mention: boolean;
  /** Distinct analysed name terms, in name order. */
  nameTerms: string[];
  /** Field lengths in terms. */
  len: Float64Array;
  /** Every distinct term of the tool with its per-field frequencies (for removal, filters and feedback). */
  tf: Map<string, Float64Array>;
}

interface Posting {
  docs: number[];
  /** NF frequencies per entry of `docs`. */
  tf: number[];
}

/** Text of a JSON Schema's properties: names (split) and descriptions, recursively, bounded. */
function schemaText(schema: unknown, depth = 0, budget = { props: 0 }): string {
  if (!schema || typeof schema !== "object" || depth > MAX_SCHEMA_DEPTH) return "";
  const s = schema as Record<string, unknown>;
  const parts: string[] = [];
  const props = s.properties;
  if (props && typeof props === "object") {
    for (const [k, v] of Object.entries(props as Record<string, unknown>)) {
      if (++budget.props > MAX_SCHEMA_PROPS) break;
      parts.push(k);
      if (v && typeof v === "object") {
        const d = (v as Record<string, unknown>).description;
        if (typeof d === "string") parts.push(d);
        parts.push(schemaText(v, depth + 1, budget));
      }
    }
  }
  for (const key of ["items", "additionalProperties"]) {
    const sub = s[key];
    if (sub && typeof sub === "object") parts.push(schemaText(sub, depth + 1, budget));
  }
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const arr = s[key];
    if (Array.isArray(arr)) for (const sub of arr) parts.push(schemaText(sub, depth + 1, budget));
  }
  return parts.filter(Boolean).join(" ").slice(0, MAX_FIELD_CHARS);
}

function keysOf(name: string, nameToks: readonly string[]): string[] {
  const keys = [nameToks.join("")];
  const at = name.lastIndexOf("__");
  if (at > 0) {
    const tail = tokenize(name.slice(at + 2)).join("");
    if (tail && tail !== keys[0]) keys.push(tail);
  }
  return keys;
}

/** Damerau–Levenshtein distance ≤ 1 (one insertion, deletion, substitution or adjacent transposition). */
function withinOneEdit(a: string, b: string): boolean {
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a[i] === b[i]) i++;
  if (i === la && i === lb) return true;
  if (la === lb) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

export class ToolIndex {
  private readonly tuning: Tuning;
  private readonly docs: Array<Doc | undefined> = [];
  private readonly byName = new Map<string, number>();
  /** Name key (tokens joined) → tools with it, for "the query is the name" matches. */
  private readonly byKey = new Map<string, number[]>();
  private readonly postings = new Map<string, Posting>();
  private readonly lenSum = new Float64Array(NF);
  private live = 0;
  /** Raw (unstemmed) word counts over descriptions, hints and parameters: the vocabulary for compound splitting. */
  private readonly proseWords = new Map<string, number>();
  private readonly nameWords = new Map<string, number>();
  private readonly fuzzyCache = new Map<string, Array<[string, number]>>();
  /** First `prefixLength` letters of a term → the indexed terms starting so. */
  private readonly prefixes = new Map<string, string[]>();

  constructor(docs: readonly SearchDoc[] = [], tuning: Partial<Tuning> = {}) {
    this.tuning = { ...DEFAULT_TUNING, ...tuning };
    this.add(docs);
  }

  /** Number of tools in the index. */
  get size(): number {
    return this.live;
  }

  /** Tool names in catalog (insertion) order. */
  *names(): IterableIterator<string> {
    for (const d of this.docs) if (d) yield d.name;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** Adds tools (a tool whose name is already indexed is replaced). Cost: proportional to the added text. */
  add(docs: readonly SearchDoc[]): void {
    for (const d of docs) if (this.byName.has(d.name)) this.removeOne(d.name);
    // Vocabulary first, so compound splitting sees every new tool's words.
    const texts = docs.map((d) => {
      const hint = (d.search_hint ?? "").slice(0, MAX_FIELD_CHARS);
      const desc = (d.description ?? "").slice(0, MAX_FIELD_CHARS);
      const params = d.input_schema ? schemaText(d.input_schema) : "";
      const toks = [tokenize(hint), tokenize(desc), tokenize(params)] as const;
      for (const list of toks) for (const t of list) this.proseWords.set(t, (this.proseWords.get(t) ?? 0) + 1);
      const nameToks = tokenize(d.name);
      for (const t of nameToks) this.nameWords.set(t, (this.nameWords.get(t) ?? 0) + 1);
      return { nameToks, toks };
    });
    docs.forEach((d, i) => {
      const { nameToks, toks } = texts[i]!;
      this.addOne(d, nameToks, toks[0], toks[1], toks[2]);
    });
    this.fuzzyCache.clear();
  }

  /** Removes tools by exact name; unknown names are ignored. */
  remove(names: Iterable<string>): void {
    for (const n of names) this.removeOne(n);
    this.fuzzyCache.clear();
  }

  private term(raw: string): string {
    return this.tuning.stem ? normalizeTerm(raw) : raw;
  }

  private analyzeList(tokens: readonly string[]): string[] {
    const t = this.tuning;
    const out: string[] = [];
    for (const tok of tokens) {
      if (t.stopwords && STOPWORDS.has(tok)) continue;
      out.push(t.stem ? normalizeTerm(tok) : tok);
    }
    return out;
  }

  /** Splits a lowercase name chunk into catalog words, or returns [] when no confident split exists. */
  private splitCompound(chunk: string): string[] {
    const n = chunk.length;
    if (n < 6 || !/^[a-z]+$/.test(chunk) || (this.proseWords.get(chunk) ?? 0) > 0) return [];
    const known = (w: string) =>
      w.length >= 2 &&
      w !== chunk &&
      !STOPWORDS.has(w) &&
      ((this.proseWords.get(w) ?? 0) > 0 || (this.nameWords.get(w) ?? 0) > 0);
    // best[i]: [cost, previous cut, known?] for chunk[0..i). A known word costs 1, an unknown letter 1.5.
    const cost = new Float64Array(n + 1).fill(Number.POSITIVE_INFINITY);
    const prev = new Int32Array(n + 1).fill(-1);
    cost[0] = 0;
    for (let i = 1; i <= n; i++) {
      const unk = cost[i - 1]! + 1.5;
      if (unk < cost[i]!) {
        cost[i] = unk;
        prev[i] = -(i - 1) - 2; // negative: one unknown letter
      }
      for (let j = Math.max(0, i - 20); j < i; j++) {
        const c = cost[j]! + 1;
        if (c < cost[i]! && known(chunk.slice(j, i))) {
          cost[i] = c;
          prev[i] = j;
        }
      }
    }
    const segs: Array<{ w: string; known: boolean }> = [];
    let i = n;
    while (i > 0) {
      const p = prev[i]!;
      if (p >= 0) {
        segs.push({ w: chunk.slice(p, i), known: true });
        i = p;
      } else {
        const j = -p - 2;
        const last = segs[segs.length - 1];
        if (last && !last.known) last.w = chunk[j] + last.w;
        else segs.push({ w: chunk[j]!, known: false });
        i = j;
      }
    }
    segs.reverse();
    const knownChars = segs.reduce((a, s) => a + (s.known ? s.w.length : 0), 0);
    const knownSegs = segs.filter((s) => s.known);
    if (knownSegs.length < 1 || segs.length < 2 || knownChars / n < 0.6) return [];
    const out: string[] = [];
    for (const s of segs) {
      if (s.known) out.push(s.w);
      else if (s.w.length >= 4) {
        // An unknown piece one typo away from a catalog word ("foreast" → "forecast").
        for (const w of this.proseWords.keys()) {
          if (w.length >= 4 && withinOneEdit(s.w, w)) {
            out.push(w);
            break;
          }
        }
      }
    }
    return out;
  }

  /** A query word the catalog lacks, split into two or three catalog words ("milesfrom" → miles, from); else []. */
  private splitQueryWord(raw: string): string[] {
    const n = raw.length;
    if (n < 5 || !/^[a-z]+$/.test(raw)) return [];
    const known = (w: string) => (this.proseWords.get(w) ?? 0) > 0 || (this.nameWords.get(w) ?? 0) > 0;
    // Fewest pieces, each a catalog word (stopwords allowed: "historyof" → history, of).
    const best: Array<string[] | null> = new Array(n + 1).fill(null);
    best[0] = [];
    for (let i = 1; i <= n; i++) {
      for (let j = Math.max(0, i - 24); j < i; j++) {
        const b = best[j];
        if (!b) continue;
        const w = raw.slice(j, i);
        if (!(w.length >= 3 ? known(w) : STOPWORDS.has(w) && w.length === 2)) continue;
        const cur = best[i];
        if (!cur || b.length + 1 < cur.length) best[i] = [...b, w];
      }
    }
    const parts = best[n];
    if (!parts || parts.length < 2 || parts.length > 3) return [];
    return parts.filter((w) => !(this.tuning.stopwords && STOPWORDS.has(w)));
  }

  private addOne(d: SearchDoc, nameToks: string[], hintToks: string[], descToks: string[], paramToks: string[]): void {
    const id = this.docs.length;
    let nameList = nameToks.slice();
    if (this.tuning.splitCompounds) {
      for (const chunk of nameToks) for (const w of this.splitCompound(chunk)) nameList.push(w);
    }
    let nameTerms = this.analyzeList(nameList);
    if (nameTerms.length === 0) nameTerms = this.analyzeList(nameToks.length ? nameToks : [d.name.toLowerCase()]);
    if (nameTerms.length === 0) nameList = nameToks;
    const fields = [nameTerms, this.analyzeList(hintToks), this.analyzeList(descToks), this.analyzeList(paramToks)];
    const tf = new Map<string, Float64Array>();
    const len = new Float64Array(NF);
    const bump = (term: string, f: number) => {
      let v = tf.get(term);
      if (!v) tf.set(term, (v = new Float64Array(NF)));
      v[f]! += 1;
    };
    fields.forEach((terms, f) => {
      len[f] = terms.length;
      for (const term of terms) bump(term, f);
      // Adjacent pairs ("air quality"), kept as extra terms that do not count towards the field length.
      if (this.tuning.bigramWeight > 0) for (let i = 1; i < terms.length; i++) bump(`${terms[i - 1]} ${terms[i]}`, f);
    });
    const doc: Doc = {
      id,
      name: d.name,
      key: nameToks.join(""),
      keys: keysOf(d.name, nameToks),
      mention: nameToks.length >= 2 || (nameToks.length === 1 && nameToks[0]!.length >= 3 && !this.proseWords.has(nameToks[0]!)),
      nameTerms: [...new Set(this.analyzeList(nameToks))],
      len,
      tf,
    };
    this.docs.push(doc);
    this.byName.set(d.name, id);
    if (doc.key) {
      const list = this.byKey.get(doc.key);
      if (list) list.push(id);
      else this.byKey.set(doc.key, [id]);
    }
    this.live++;
    for (let f = 0; f < NF; f++) this.lenSum[f]! += len[f]!;
    for (const [term, v] of tf) {
      let p = this.postings.get(term);
      if (!p) {
        this.postings.set(term, (p = { docs: [], tf: [] }));
        const L = this.tuning.prefixLength;
        if (term.length >= L && !term.includes(" ")) {
          const key = term.slice(0, L);
          const list = this.prefixes.get(key);
          if (list) list.push(term);
          else this.prefixes.set(key, [term]);
        }
      }
      p.docs.push(id);
      for (let f = 0; f < NF; f++) p.tf.push(v[f]!);
    }
  }

  private removeOne(name: string): void {
    const id = this.byName.get(name);
    if (id === undefined) return;
    const doc = this.docs[id]!;
    for (const term of doc.tf.keys()) {
      const p = this.postings.get(term);
      if (!p) continue;
      const at = p.docs.indexOf(id);
      if (at >= 0) {
        p.docs.splice(at, 1);
        p.tf.splice(at * NF, NF);
      }
      if (p.docs.length === 0) {
        this.postings.delete(term);
        const key = term.slice(0, this.tuning.prefixLength);
        const list = this.prefixes.get(key);
        if (list) {
          const at = list.indexOf(term);
          if (at >= 0) list.splice(at, 1);
          if (list.length === 0) this.prefixes.delete(key);
        }
      }
    }
    for (let f = 0; f < NF; f++) this.lenSum[f]! -= doc.len[f]!;
    this.docs[id] = undefined;
    this.byName.delete(name);
    const same = this.byKey.get(doc.key);
    if (same) {
      const at = same.indexOf(id);
      if (at >= 0) same.splice(at, 1);
      if (same.length === 0) this.byKey.delete(doc.key);
    }
    this.live--;
  }

  private idf(df: number): number {
    return Math.log(1 + (this.live - df + 0.5) / (df + 0.5));
  }

  /** Vocabulary terms standing in for a query term the catalog lacks: one edit away, or extending it. */
  private variants(term: string): Array<[string, number]> {
    let v = this.fuzzyCache.get(term);
    if (v) return v;
    v = [];
    if (term.length >= 4 && /^[a-z]+$/.test(term)) {
      for (const w of this.postings.keys()) {
        if (w.includes(" ")) continue;
        if (w.length >= 4 && withinOneEdit(term, w)) v.push([w, 1]);
        else if (term.length >= 5 && w.length > term.length && w.startsWith(term)) v.push([w, 0.8]);
      }
      v.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
      v = v.slice(0, 8);
    }
    if (this.fuzzyCache.size > 10_000) this.fuzzyCache.clear();
    this.fuzzyCache.set(term, v);
    return v;
  }

  /**
   * Keyword search. Returns up to `limit` tools with a positive score, best first; ties keep catalog order.
   * Tools in `exclude` are left out; `+term` words must occur in a returned tool's name, hint or description
   * (as a term, or as a substring of the name).
   */
  search(query: string, opts: SearchOptions = {}): SearchHit[] {
    const limit = Math.max(0, Math.floor(opts.limit ?? 5));
    if (limit === 0 || this.live === 0) return [];
    const t = this.tuning;
    const parsed = parseQuery(query);
    // Query words → index terms; stopwords dropped unless nothing else is left.
    let words = parsed.terms.filter((x) => !(t.stopwords && STOPWORDS.has(x)));
    if (words.length === 0) words = parsed.terms;
    if (words.length === 0) return [];

    // One group per distinct term (repeats weigh sub-linearly); a group scores a tool by its best alternative.
    const groups = new Map<string, { count: number; alts: Array<[string, number]> }>();
    const addGroup = (term: string, alts: () => Array<[string, number]>) => {
      const g = groups.get(term);
      if (g) g.count++;
      else groups.set(term, { count: 1, alts: alts() });
    };
    for (const raw of words.slice(0, MAX_QUERY_TERMS)) {
      const term = this.term(raw);
      if (this.postings.has(term)) {
        addGroup(term, () => {
          const alts: Array<[string, number]> = [[term, 1]];
          if (t.prefixWeight > 0 && term.length >= t.prefixLength) {
            for (const w of this.prefixes.get(term.slice(0, t.prefixLength)) ?? []) {
              if (w !== term) alts.push([w, t.prefixWeight]);
            }
          }
          return alts;
        });
        continue;
      }
      const parts = t.splitQuery ? this.splitQueryWord(raw) : [];
      if (parts.length > 0) {
        for (const part of parts) addGroup(this.term(part), () => [[this.term(part), 1]]);
        continue;
      }
      if (t.fuzzyWeight > 0) addGroup(term, () => this.variants(term).map(([w, sim]) => [w, sim * t.fuzzyWeight]));
    }
    if (t.bigramWeight > 0) {
      const seq = words.slice(0, MAX_QUERY_TERMS).map((w) => this.term(w));
      for (let i = 1; i < seq.length; i++) {
        const bi = `${seq[i - 1]} ${seq[i]}`;
        if (this.postings.has(bi) && !groups.has(bi)) groups.set(bi, { count: 1, alts: [[bi, t.bigramWeight]] });
      }
    }

    const scores = new Map<number, number>();
    const avg = new Float64Array(NF);
    for (let f = 0; f < NF; f++) avg[f] = this.lenSum[f]! / this.live || 1;

    const addTerm = (term: string, weight: number, into: Map<number, number>) => {
      const p = this.postings.get(term);
      if (!p) return;
      const idf = this.idf(p.docs.length);
      for (let k = 0; k < p.docs.length; k++) {
        const id = p.docs[k]!;
        const doc = this.docs[id]!;
        let x = 0;
        for (let f = 0; f < NF; f++) {
          const freq = p.tf[k * NF + f]!;
          if (freq > 0) x += (t.weights[f]! * freq) / (1 - t.b[f]! + (t.b[f]! * doc.len[f]!) / avg[f]!);
        }
        const s = (weight * idf * x * (t.k1 + 1)) / (x + t.k1);
        const prev = into.get(id);
        if (prev === undefined || s > prev) into.set(id, s);
      }
    };

    for (const { count, alts } of groups.values()) {
      const qw = 1 + Math.log(count);
      const per = new Map<number, number>();
      for (const [w, sim] of alts) addTerm(w, qw * sim, per);
      for (const [id, s] of per) scores.set(id, (scores.get(id) ?? 0) + s);
    }

    // Name boosts. Windows of up to 6 consecutive query tokens, joined, are compared with each tool's name key
    // (tokens joined), so "Able Style", "able-style" and "AbleStyle" all meet the tool `AbleStyle`.
    const windows = new Set<string>();
    const qt = parsed.terms;
    for (let i = 0; i < qt.length && i < MAX_QUERY_TERMS; i++) {
      let k = "";
      for (let j = i; j < qt.length && j < i + 6; j++) windows.add((k += qt[j]!));
    }
    for (const [id, s] of scores) {
      const doc = this.docs[id]!;
      let boosted = s;
      if (t.namePhraseBoost > 0 && doc.mention && doc.keys.some((k) => windows.has(k))) {
        let idfSum = 0;
        for (const nt of doc.nameTerms) idfSum += this.idf(this.postings.get(nt)?.docs.length ?? 0);
        boosted += t.namePhraseBoost * idfSum;
      }
      scores.set(id, boosted);
    }
    if (t.exactNameBoost > 0) {
      const exact = this.byName.get(query.trim());
      const ids = exact !== undefined ? [exact] : (this.byKey.get(qt.join("")) ?? []);
      for (const id of ids) scores.set(id, (scores.get(id) ?? 0) + t.exactNameBoost);
    }

    // Filters: exclude set, required terms.
    const required = parsed.required.map((r) => ({ raw: r, term: t.stem ? normalizeTerm(r) : r }));
    const hits: Array<[number, number]> = [];
    for (const [id, s] of scores) {
      if (!(s > 0)) continue;
      const doc = this.docs[id]!;
      if (opts.exclude?.has(doc.name)) continue;
      if (required.length > 0 && !required.every((r) => this.contains(doc, r.term, r.raw))) continue;
      hits.push([id, s]);
    }
    hits.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    return hits.slice(0, limit).map(([id, score]) => ({ name: this.docs[id]!.name, score }));
  }

  private contains(doc: Doc, term: string, raw: string): boolean {
    const v = doc.tf.get(term);
    if (v && (v[F_NAME]! > 0 || v[F_HINT]! > 0 || v[F_DESC]! > 0)) return true;
    return doc.name.toLowerCase().includes(raw);
  }
}
