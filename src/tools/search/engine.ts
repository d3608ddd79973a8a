// The tool-search index: BM25F over four fields of each tool — name parts, search_hint, description, parameter
// names + descriptions — with stemming, stopwords, name boosts, typo tolerance and compound-word splitting.
//
// Everything is plain data (Maps and arrays) built once per catalog and updated incrementally (`add`, `remove`).
// A query reads only the postings of its own terms; a word the catalog lacks costs one scan of the vocabulary words
// of similar length (typo variants). No Node built-ins, no eval, no I/O: it runs inside workerd as is.
// Deterministic: the same catalog (in the same order) and query give the same ranking; ties keep catalog order.

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
  /** BM25 term-frequency saturation. */
  k1: number;
  /** Field weights, in field order: name, search_hint, description, parameters. */
  weights: readonly [number, number, number, number];
  /** Length normalisation per field (BM25 b), same order. */
  b: readonly [number, number, number, number];
  /** Porter stemming of index and query terms. */
  stem: boolean;
  /** Drop English function words (from the query and the index). */
  stopwords: boolean;
  /** Added when the whole query is a tool's name (any casing/separators): puts that tool first. */
  exactNameBoost: number;
  /** Added, times the summed idf of the name's parts, when the query contains the tool's name ("… able style …"). */
  namePhraseBoost: number;
  /** Weight of catalog terms one edit away from (or extending) a query word the catalog lacks; 0 = off. */
  fuzzyWeight: number;
  /** Split lowercase run-together name parts ("airqualityforeast") into the catalog's own words. */
  splitCompounds: boolean;
  /** Split a run-together query word the catalog lacks ("milesfrom") into catalog words. */
  splitQuery: boolean;
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
  splitCompounds: true,
  splitQuery: true,
};

const NF = 4;
/** Per-field term frequencies are packed 7 bits a field into one small integer (capped at 127 per field). */
const TF_BITS = 7;
const TF_MAX = 127;
const fieldTf = (packed: number, f: number): number => (packed >>> (f * TF_BITS)) & TF_MAX;
const addTf = (packed: number, f: number): number =>
  fieldTf(packed, f) < TF_MAX ? packed + (1 << (f * TF_BITS)) : packed;
const F_NAME = 0;
const F_HINT = 1;
const F_DESC = 2;

/** Caps on what one tool contributes, so a huge schema cannot blow up the index. */
const MAX_FIELD_CHARS = 8_000;
const MAX_SCHEMA_DEPTH = 4;
const MAX_SCHEMA_PROPS = 200;
/** Words of one query that are scored; the rest are ignored (bounds the work per query). */
const MAX_QUERY_WORDS = 64;
/** A score given to tools that only meet a `+required` word inside their name, so they can still be listed. */
const NAME_SUBSTRING_SCORE = 1e-3;

interface Doc {
  id: number;
  name: string;
  /** The name, lowercase (for `+word` substring matches). */
  lower: string;
  /** Name tokens joined, lowercase ("mcp__github__create_issue" → "mcpgithubcreateissue"). */
  key: string;
  /** `key`, and for namespaced names (`server__tool`) the key of the part after the last `__` ("createissue"). */
  keys: string[];
  /** Whether a query containing the name is naming this tool: the name has several parts or is not a prose word. */
  mention: boolean;
  /** Distinct analysed name terms. */
  nameTerms: string[];
  /** Field lengths in terms. */
  len: number[];
  /** Distinct terms of the tool (their frequencies live in the postings). */
  terms: string[];
  /** Distinct raw words of the prose fields and of the name (vocabulary bookkeeping on removal). */
  proseWords: string[];
  nameWords: string[];
}

interface Posting {
  docs: number[];
  /** Packed per-field frequencies (see `fieldTf`) per entry of `docs`. */
  tf: number[];
  /**
   * Per entry of `docs`: the saturated BM25F term weight x(k1+1)/(x+k1) without idf, where x is the field-weighted,
   * length-normalised frequency. Depends on average field lengths, so it is recomputed lazily, per term, the first
   * time the term is queried after the catalog changed (`epoch`).
   */
  sat: Float64Array | null;
  epoch: number;
}

/** A counted word set; length buckets for "one edit away" look-ups are built on first use after a change. */
class Vocab {
  private readonly counts = new Map<string, { word: string; n: number }>();
  private byLen: Map<number, string[]> | null = null;

  has(w: string): boolean {
    return this.counts.has(w);
  }

  count(w: string): number {
    return this.counts.get(w)?.n ?? 0;
  }

  /** Counts `w` once more; returns the vocabulary's own copy of the string (so callers keep one copy per word). */
  add(w: string): string {
    const e = this.counts.get(w);
    if (e) {
      e.n++;
      return e.word;
    }
    this.counts.set(w, { word: w, n: 1 });
    this.byLen = null;
    return w;
  }

  delete(w: string): void {
    const e = this.counts.get(w);
    if (!e) return;
    if (e.n > 1) e.n--;
    else {
      this.counts.delete(w);
      this.byLen = null;
    }
  }

  /** Words within one edit of `w` (and, with `extensions`, words of up to 4 more letters that start with `w`). */
  near(w: string, extensions: boolean): Array<[string, number]> {
    if (!this.byLen) {
      const byLen = new Map<number, string[]>();
      for (const word of this.counts.keys()) {
        const bucket = byLen.get(word.length);
        if (bucket) bucket.push(word);
        else byLen.set(word.length, [word]);
      }
      this.byLen = byLen;
    }
    const out: Array<[string, number]> = [];
    const L = w.length;
    for (let len = L - 1; len <= L + (extensions ? 4 : 1); len++) {
      for (const cand of this.byLen.get(len) ?? []) {
        if (len <= L + 1 && withinOneEdit(w, cand)) out.push([cand, 1]);
        else if (extensions && len > L && cand.startsWith(w)) out.push([cand, 0.8]);
      }
    }
    out.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return out;
  }
}

/** Damerau–Levenshtein distance ≤ 1 (one insertion, deletion, substitution or adjacent transposition), a ≠ b. */
function withinOneEdit(a: string, b: string): boolean {
  const la = a.length;
  const lb = b.length;
  if (la - lb > 1 || lb - la > 1 || a === b) return false;
  let i = 0;
  while (i < la && i < lb && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  const rest = (ai: number, bi: number): boolean => {
    while (ai < la && bi < lb) if (a.charCodeAt(ai++) !== b.charCodeAt(bi++)) return false;
    return ai === la && bi === lb;
  };
  if (la === lb) {
    if (rest(i + 1, i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && rest(i + 2, i + 2);
  }
  return la > lb ? rest(i + 1, i) : rest(i, i + 1);
}

/** Text of a JSON Schema's properties: names, titles, descriptions and string enum/examples values; bounded. */
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
        const prop = v as Record<string, unknown>;
        for (const key of ["title", "description"]) if (typeof prop[key] === "string") parts.push(prop[key]);
        // Allowed values name the domain ("genre": Horror, Comedy; "format": PNG, JPEG).
        for (const key of ["enum", "examples"]) {
          const list = prop[key];
          if (Array.isArray(list)) for (const x of list.slice(0, 50)) if (typeof x === "string") parts.push(x);
        }
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

const LOWER_WORD = /^[a-z]+$/;

function pushTo(map: Map<string, number[]>, key: string, id: number): void {
  const list = map.get(key);
  if (list) list.push(id);
  else map.set(key, [id]);
}

function pullFrom(map: Map<string, number[]>, key: string, id: number): void {
  const list = map.get(key);
  if (!list) return;
  const at = list.indexOf(id);
  if (at >= 0) list.splice(at, 1);
  if (list.length === 0) map.delete(key);
}

export class ToolIndex {
  private readonly tuning: Tuning;
  private readonly docs: Array<Doc | undefined> = [];
  private readonly byName = new Map<string, number>();
  /** Name key (tokens joined) → tools with it, for "the query is the name" matches. */
  private readonly byKey = new Map<string, number[]>();
  /** Every key of `Doc.keys` → tools with it, for "the query contains the name" matches. */
  private readonly byAnyKey = new Map<string, number[]>();
  private readonly postings = new Map<string, Posting>();
  private readonly lenSum = new Float64Array(NF);
  private live = 0;
  /** Bumped by every change to the catalog; cached per-posting weights older than this are stale. */
  private epoch = 0;
  /** Raw words of descriptions, hints and parameters (counted per tool): the catalog's own dictionary. */
  private readonly prose = new Vocab();
  /** Raw words of names (counted per tool). */
  private readonly nameVocab = new Vocab();
  /** Indexed terms (the postings' keys), for typo variants. */
  private readonly terms = new Vocab();
  private readonly nearCache = new Map<string, Array<[string, number]>>();

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

  /**
   * Adds tools; a tool whose name is already indexed is replaced (and moves to the end of the tie order). Cost is
   * proportional to the added text. The words of all tools in one call are known before any of them is split into
   * compound parts, so building in one call or in several can differ only in those splits.
   */
  add(docs: readonly SearchDoc[]): void {
    // A name given twice in one call: the last description wins, at the first one's place.
    const batch = new Map<string, SearchDoc>();
    for (const d of docs) batch.set(d.name, d);
    for (const name of batch.keys()) if (this.byName.has(name)) this.removeOne(name);
    const prepared = [...batch.values()].map((d) => {
      const hint = tokenize((d.search_hint ?? "").slice(0, MAX_FIELD_CHARS));
      const desc = tokenize((d.description ?? "").slice(0, MAX_FIELD_CHARS));
      const params = d.input_schema ? tokenize(schemaText(d.input_schema)) : [];
      const name = tokenize(d.name);
      const proseSet = new Set(hint);
      for (const w of desc) proseSet.add(w);
      for (const w of params) proseSet.add(w);
      const proseWords = Array.from(proseSet, (w) => this.prose.add(w));
      const nameWords = Array.from(new Set(name), (w) => this.nameVocab.add(w));
      return { d, name, hint, desc, params, proseWords, nameWords };
    });
    for (const p of prepared) this.addOne(p);
    this.nearCache.clear();
  }

  /** Removes tools by exact name; unknown names are ignored. */
  remove(names: Iterable<string>): void {
    for (const n of names) this.removeOne(n);
    this.nearCache.clear();
  }

  private term(raw: string): string {
    return this.tuning.stem ? normalizeTerm(raw) : raw;
  }

  private analyzeList(tokens: readonly string[]): string[] {
    const out: string[] = [];
    for (const tok of tokens) {
      if (this.tuning.stopwords && STOPWORDS.has(tok)) continue;
      out.push(this.term(tok));
    }
    return out;
  }

  /** A catalog word usable as a piece of a compound: 3+ letters, not a stopword, seen in prose or in 2+ names. */
  private isPiece(w: string): boolean {
    return w.length >= 3 && !STOPWORDS.has(w) && (this.prose.has(w) || this.nameVocab.count(w) >= 2);
  }

  /**
   * Splits a run-together lowercase name part into catalog words ("diceroller" → dice, roller). Either every piece
   * is a catalog word, or all but one piece of 6+ letters that is one typo away from a prose word ("airqualityforeast"
   * → air, quality, forecast). Parts that are prose words themselves, or stem like one, are left alone.
   */
  splitCompound(chunk: string): string[] {
    const n = chunk.length;
    if (n < 6 || n > 40 || !LOWER_WORD.test(chunk) || this.prose.has(chunk)) return [];
    if (this.terms.has(this.term(chunk)) && this.termInProse(this.term(chunk))) return [];
    // fwd[i]: fewest pieces covering chunk[0, i); bwd[i]: fewest covering chunk[i, n). Ties: longest first piece.
    const INF = 1 << 20;
    const fwd = new Array<number>(n + 1).fill(INF);
    const fwdCut = new Array<number>(n + 1).fill(-1);
    fwd[0] = 0;
    for (let i = 1; i <= n; i++) {
      for (let j = 0; j <= i - 3; j++) {
        if (fwd[j]! + 1 < fwd[i]! && this.isPiece(chunk.slice(j, i))) {
          fwd[i] = fwd[j]! + 1;
          fwdCut[i] = j;
        }
      }
    }
    const pieces = (end: number): string[] => {
      const out: string[] = [];
      for (let i = end; i > 0; i = fwdCut[i]!) out.unshift(chunk.slice(fwdCut[i]!, i));
      return out;
    };
    if (fwd[n]! >= 2 && fwd[n]! < INF) return pieces(n);

    const bwd = new Array<number>(n + 1).fill(INF);
    const bwdCut = new Array<number>(n + 1).fill(-1);
    bwd[n] = 0;
    for (let i = n - 1; i >= 0; i--) {
      for (let j = i + 3; j <= n; j++) {
        if (bwd[j]! + 1 < bwd[i]! && this.isPiece(chunk.slice(i, j))) {
          bwd[i] = bwd[j]! + 1;
          bwdCut[i] = j;
        }
      }
    }
    // One unknown piece chunk[j, k), 6+ letters (shorter words have too many one-edit neighbours), between a covered
    // prefix and a covered suffix.
    let best: { cost: number; j: number; k: number; fix: string } | undefined;
    let tries = 0;
    for (let j = 0; j < n && tries < 64; j++) {
      if (fwd[j]! >= INF) continue;
      for (let k = n; k >= j + 6 && tries < 64; k--) {
        if (bwd[k]! >= INF || fwd[j]! + bwd[k]! === 0) continue;
        const cost = fwd[j]! + bwd[k]! + 1;
        if (best && cost >= best.cost) continue;
        tries++;
        const fix = this.prose.near(chunk.slice(j, k), false)[0]?.[0];
        if (fix) best = { cost, j, k, fix };
      }
    }
    if (!best) return [];
    const tail: string[] = [];
    for (let i = best.k; i < n; i = bwdCut[i]!) tail.push(chunk.slice(i, bwdCut[i]!));
    return [...pieces(best.j), best.fix, ...tail];
  }

  private termInProse(term: string): boolean {
    const p = this.postings.get(term);
    if (!p) return false;
    for (let k = 0; k < p.docs.length; k++) {
      if (fieldTf(p.tf[k]!, F_NAME) < p.tf[k]!) return true; // some field other than the name
    }
    return false;
  }

  /** A query word the catalog lacks, split into two or three catalog words ("milesfrom" → miles, from); else []. */
  private splitQueryWord(raw: string): string[] {
    const n = raw.length;
    if (n < 5 || n > 40 || !LOWER_WORD.test(raw)) return [];
    const ok = (w: string) =>
      w.length >= 3 ? this.prose.has(w) || this.nameVocab.has(w) : w.length === 2 && STOPWORDS.has(w);
    // Fewest pieces, each a catalog word or a two-letter function word ("historyof" → history, of).
    const best: Array<string[] | null> = new Array(n + 1).fill(null);
    best[0] = [];
    for (let i = 2; i <= n; i++) {
      for (let j = Math.max(0, i - 24); j <= i - 2; j++) {
        const b = best[j];
        if (!b) continue;
        const cur = best[i];
        if (cur && b.length + 1 >= cur.length) continue;
        const w = raw.slice(j, i);
        if (ok(w)) best[i] = [...b, w];
      }
    }
    const parts = best[n];
    if (!parts || parts.length < 2 || parts.length > 3) return [];
    return parts.filter((w) => !(this.tuning.stopwords && STOPWORDS.has(w)));
  }

  private addOne(p: {
    d: SearchDoc;
    name: string[];
    hint: string[];
    desc: string[];
    params: string[];
    proseWords: string[];
    nameWords: string[];
  }): void {
    const { d, name } = p;
    const id = this.docs.length;
    const nameList = name.slice();
    if (this.tuning.splitCompounds) for (const chunk of name) nameList.push(...this.splitCompound(chunk));
    let nameTerms = this.analyzeList(nameList);
    if (nameTerms.length === 0) nameTerms = name.map((w) => this.term(w)); // a name made only of stopwords
    const fields = [nameTerms, this.analyzeList(p.hint), this.analyzeList(p.desc), this.analyzeList(p.params)];
    const slot = new Map<string, number>();
    const len = [0, 0, 0, 0];
    for (let f = 0; f < NF; f++) {
      const list = fields[f]!;
      len[f] = list.length;
      for (const term of list) slot.set(term, addTf(slot.get(term) ?? 0, f));
    }
    const terms = [...slot.keys()];
    const tf = [...slot.values()];
    const doc: Doc = {
      id,
      name: d.name,
      lower: d.name.toLowerCase(),
      key: name.join(""),
      keys: keysOf(d.name, name),
      mention: name.length >= 2 || (name.length === 1 && name[0]!.length >= 3 && !this.prose.has(name[0]!)),
      nameTerms: [...new Set(name.map((w) => this.term(w)))],
      len,
      terms,
      proseWords: p.proseWords,
      nameWords: p.nameWords,
    };
    this.docs.push(doc);
    this.byName.set(d.name, id);
    if (doc.key) pushTo(this.byKey, doc.key, id);
    for (const k of doc.keys) if (k) pushTo(this.byAnyKey, k, id);
    this.live++;
    for (let f = 0; f < NF; f++) this.lenSum[f]! += len[f]!;
    this.epoch++;
    for (let i = 0; i < terms.length; i++) {
      const term = terms[i]!;
      let posting = this.postings.get(term);
      if (!posting) {
        posting = { docs: [], tf: [], sat: null, epoch: -1 };
        this.postings.set(term, posting);
        this.terms.add(term);
      }
      posting.docs.push(id);
      posting.tf.push(tf[i]!);
    }
  }

  private removeOne(name: string): void {
    const id = this.byName.get(name);
    if (id === undefined) return;
    const doc = this.docs[id]!;
    this.epoch++;
    for (const term of doc.terms) {
      const p = this.postings.get(term);
      if (!p) continue;
      const at = p.docs.indexOf(id);
      if (at >= 0) {
        p.docs.splice(at, 1);
        p.tf.splice(at, 1);
      }
      if (p.docs.length === 0) {
        this.postings.delete(term);
        this.terms.delete(term);
      }
    }
    for (const w of doc.proseWords) this.prose.delete(w);
    for (const w of doc.nameWords) this.nameVocab.delete(w);
    for (let f = 0; f < NF; f++) this.lenSum[f]! -= doc.len[f]!;
    pullFrom(this.byKey, doc.key, id);
    for (const k of doc.keys) pullFrom(this.byAnyKey, k, id);
    this.docs[id] = undefined;
    this.byName.delete(name);
    this.live--;
    if (this.docs.length - this.live > Math.max(64, this.live)) this.compact();
  }

  /** Renumbers tools densely (same order) once removals have left more holes than tools. */
  private compact(): void {
    const newId = new Int32Array(this.docs.length).fill(-1);
    const kept: Doc[] = [];
    for (const d of this.docs) {
      if (!d) continue;
      newId[d.id] = kept.length;
      d.id = kept.length;
      kept.push(d);
    }
    this.docs.length = 0;
    this.docs.push(...kept);
    for (const p of this.postings.values()) for (let k = 0; k < p.docs.length; k++) p.docs[k] = newId[p.docs[k]!]!;
    for (const map of [this.byName]) for (const [k, v] of map) map.set(k, newId[v]!);
    for (const map of [this.byKey, this.byAnyKey])
      for (const list of map.values()) {
        for (let i = 0; i < list.length; i++) list[i] = newId[list[i]!]!;
      }
    this.epoch++;
  }

  /** The posting's cached saturated BM25F weights, recomputed if the catalog changed since. */
  private saturated(p: Posting): Float64Array {
    if (p.sat && p.epoch === this.epoch) return p.sat;
    const t = this.tuning;
    const norm = new Float64Array(NF);
    for (let f = 0; f < NF; f++) norm[f] = t.b[f]! / (this.lenSum[f]! / this.live || 1);
    const n = p.docs.length;
    const sat = p.sat && p.sat.length === n ? p.sat : new Float64Array(n);
    for (let k = 0; k < n; k++) {
      const len = this.docs[p.docs[k]!]!.len;
      const packed = p.tf[k]!;
      let x = 0;
      for (let f = 0; f < NF; f++) {
        const freq = fieldTf(packed, f);
        if (freq > 0) x += (t.weights[f]! * freq) / (1 - t.b[f]! + norm[f]! * len[f]!);
      }
      sat[k] = (x * (t.k1 + 1)) / (x + t.k1);
    }
    p.sat = sat;
    p.epoch = this.epoch;
    return sat;
  }

  private idf(df: number): number {
    return Math.log(1 + (this.live - df + 0.5) / (df + 0.5));
  }

  /** Indexed terms standing in for a query term the catalog lacks: one edit away, or extending it (5+ letters). */
  private variants(term: string): Array<[string, number]> {
    let v = this.nearCache.get(term);
    if (v) return v;
    v = term.length >= 4 && LOWER_WORD.test(term) ? this.terms.near(term, term.length >= 5).slice(0, 8) : [];
    if (this.nearCache.size >= 10_000) this.nearCache.clear();
    this.nearCache.set(term, v);
    return v;
  }

  /**
   * Keyword search. Returns up to `limit` tools with a positive score, best first; ties keep catalog order.
   * Tools in `exclude` are left out. Each `+word` must occur in a returned tool's name, search_hint or description
   * (as a term, or as a substring of the lowercase name: "+git" admits `github_create_issue`).
   */
  search(query: string, opts: SearchOptions = {}): SearchHit[] {
    const limit = Math.max(0, Math.floor(opts.limit ?? 5));
    if (limit === 0 || this.live === 0) return [];
    const t = this.tuning;
    const parsed = parseQuery(query);
    const tokens = parsed.terms.slice(0, MAX_QUERY_WORDS);
    // Stopwords are dropped unless nothing else is left.
    let words = t.stopwords ? tokens.filter((x) => !STOPWORDS.has(x)) : tokens;
    if (words.length === 0) words = tokens;
    if (words.length === 0) return [];

    // One group per distinct term (repeats weigh 1 + ln n); a group scores a tool by its best alternative.
    const groups = new Map<string, { count: number; alts: Array<[string, number]> }>();
    const addGroup = (term: string, alts: () => Array<[string, number]>) => {
      const g = groups.get(term);
      if (g) g.count++;
      else groups.set(term, { count: 1, alts: alts() });
    };
    for (const raw of words) {
      const term = this.term(raw);
      if (this.postings.has(term)) {
        addGroup(term, () => [[term, 1]]);
        continue;
      }
      const parts = t.splitQuery ? this.splitQueryWord(raw) : [];
      if (parts.length > 0) {
        for (const part of parts) addGroup(this.term(part), () => [[this.term(part), 1]]);
        continue;
      }
      if (t.fuzzyWeight > 0) addGroup(term, () => this.variants(term).map(([w, sim]) => [w, sim * t.fuzzyWeight]));
    }

    const scores = new Float64Array(this.docs.length);
    const touched: number[] = [];
    const termScores = (term: string, weight: number, emit: (id: number, s: number) => void) => {
      const p = this.postings.get(term);
      if (!p) return;
      const sat = this.saturated(p);
      const w = weight * this.idf(p.docs.length);
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
    const required = parsed.required.slice(0, MAX_QUERY_WORDS).map((r) => ({ raw: r, term: this.term(r) }));
    for (const r of required) {
      for (const d of this.docs) {
        if (d && scores[d.id] === 0 && d.lower.includes(r.raw)) addScore(d.id, NAME_SUBSTRING_SCORE);
      }
    }

    // Name boosts. Windows of up to 6 consecutive query tokens, joined, meet the tools' name keys, so "Able Style",
    // "able-style" and "AbleStyle" all name the tool `AbleStyle`.
    if (t.namePhraseBoost > 0) {
      const boosted = new Set<number>();
      for (let i = 0; i < tokens.length; i++) {
        let k = "";
        for (let j = i; j < tokens.length && j < i + 6; j++) {
          k += tokens[j]!;
          for (const id of this.byAnyKey.get(k) ?? []) {
            const doc = this.docs[id]!;
            if (!doc.mention || boosted.has(id)) continue;
            boosted.add(id);
            let idfSum = 0;
            for (const nt of doc.nameTerms) idfSum += this.idf(this.postings.get(nt)?.docs.length ?? this.live);
            addScore(id, t.namePhraseBoost * idfSum);
          }
        }
      }
    }
    if (t.exactNameBoost > 0) {
      const exact = this.byName.get(query.trim());
      for (const id of exact !== undefined ? [exact] : (this.byKey.get(tokens.join("")) ?? [])) {
        addScore(id, t.exactNameBoost);
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
      const doc = this.docs[id]!;
      if (opts.exclude?.has(doc.name)) continue;
      if (required.length > 0 && !required.every((r) => this.contains(doc, r.term, r.raw))) continue;
      let at = top.length;
      while (at > 0 && (top[at - 1]![1] < s || (top[at - 1]![1] === s && top[at - 1]![0] > id))) at--;
      top.splice(at, 0, [id, s]);
      if (top.length > limit) top.pop();
    }
    return top.map(([id, score]) => ({ name: this.docs[id]!.name, score }));
  }

  private contains(doc: Doc, term: string, raw: string): boolean {
    const p = this.postings.get(term);
    if (p) {
      // Posting lists are in ascending tool id order (ids only grow; removal keeps the order): binary search.
      let lo = 0;
      let hi = p.docs.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const id = p.docs[mid]!;
        if (id === doc.id) {
          const packed = p.tf[mid]!;
          if (fieldTf(packed, F_NAME) > 0 || fieldTf(packed, F_HINT) > 0 || fieldTf(packed, F_DESC) > 0) return true;
          break;
        }
        if (id < doc.id) lo = mid + 1;
        else hi = mid - 1;
      }
    }
    return doc.lower.includes(raw);
  }
}
