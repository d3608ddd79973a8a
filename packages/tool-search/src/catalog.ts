// The index's data: one record per tool, postings per term (packed per-field frequencies), name-key maps and the
// catalog's vocabularies, kept up to date incrementally as tools are added and removed.
//
// Everything is plain data (Maps and arrays). Tool ids only grow (removal leaves a hole until `compact`), so posting
// lists stay in ascending id order, i.e. catalog order, which is what ties are broken by.

import { type FieldWords, keysOf } from "./fields.ts";
import { type Tuning, termOf } from "./tuning.ts";
import { Vocab } from "./vocab.ts";

/** Number of fields: name, search_hint, description, parameters. */
export const FIELD_COUNT = 4;
export const FIELD_NAME = 0;
export const FIELD_HINT = 1;
export const FIELD_DESCRIPTION = 2;
/** Per-field term frequencies are packed 7 bits a field into one small integer (capped at 127 per field). */
const TF_BITS = 7;
const TF_MAX = 127;
export const fieldTf = (packed: number, f: number): number => (packed >>> (f * TF_BITS)) & TF_MAX;
const addTf = (packed: number, f: number): number =>
  fieldTf(packed, f) < TF_MAX ? packed + (1 << (f * TF_BITS)) : packed;

export interface IndexedTool {
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

export interface Posting {
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

/** A tool's raw field words plus the vocabularies' copies of its distinct words (see `Catalog.countWords`). */
export interface CountedWords extends FieldWords {
  proseWords: string[];
  nameWords: string[];
}

export class Catalog {
  readonly docs: Array<IndexedTool | undefined> = [];
  readonly byName = new Map<string, number>();
  /** Name key (tokens joined) → tools with it, for "the query is the name" matches. */
  readonly byKey = new Map<string, number[]>();
  /** Every key of `IndexedTool.keys` → tools with it, for "the query contains the name" matches. */
  readonly byAnyKey = new Map<string, number[]>();
  readonly postings = new Map<string, Posting>();
  readonly lenSum = new Float64Array(FIELD_COUNT);
  /** Number of tools (changed only by `insert` and `remove`). */
  live = 0;
  /** Bumped by every change to the catalog; cached per-posting weights older than this are stale. */
  epoch = 0;
  /** Raw words of descriptions, hints and parameters (counted per tool): the catalog's own dictionary. */
  readonly prose = new Vocab();
  /** Raw words of names (counted per tool). */
  readonly nameVocab = new Vocab();
  /** Indexed terms (the postings' keys), for typo variants. */
  readonly terms = new Vocab();

  readonly #tuning: Tuning;

  constructor(tuning: Tuning) {
    this.#tuning = tuning;
  }

  /** Counts a tool's distinct prose and name words into the vocabularies (before any tool of the batch is inserted). */
  countWords(words: FieldWords): CountedWords {
    const proseSet = new Set(words.hint);
    for (const x of words.desc) proseSet.add(x);
    for (const x of words.params) proseSet.add(x);
    const proseWords = Array.from(proseSet, (x) => this.prose.add(x));
    const nameWords = Array.from(new Set(words.name), (x) => this.nameVocab.add(x));
    return { ...words, proseWords, nameWords };
  }

  /** Adds a tool with its analysed terms per field (field order); its name must not be indexed yet. */
  insert(words: CountedWords, fields: readonly string[][]): void {
    const { doc: input, name } = words;
    const id = this.docs.length;
    const slot = new Map<string, number>();
    const len = [0, 0, 0, 0];
    for (let f = 0; f < FIELD_COUNT; f++) {
      const list = fields[f]!;
      len[f] = list.length;
      for (const term of list) slot.set(term, addTf(slot.get(term) ?? 0, f));
    }
    const terms = [...slot.keys()];
    const tf = [...slot.values()];
    const doc: IndexedTool = {
      id,
      name: input.name,
      lower: input.name.toLowerCase(),
      key: name.join(""),
      keys: keysOf(input.name, name),
      mention: name.length >= 2 || (name.length === 1 && name[0]!.length >= 3 && !this.prose.has(name[0]!)),
      nameTerms: [...new Set(name.map((w) => termOf(this.#tuning, w)))],
      len,
      terms,
      proseWords: words.proseWords,
      nameWords: words.nameWords,
    };
    this.docs.push(doc);
    this.byName.set(input.name, id);
    if (doc.key) pushTo(this.byKey, doc.key, id);
    for (const k of doc.keys) if (k) pushTo(this.byAnyKey, k, id);
    this.live++;
    for (let f = 0; f < FIELD_COUNT; f++) this.lenSum[f]! += len[f]!;
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

  /** Removes a tool by exact name; an unknown name is ignored. */
  remove(name: string): void {
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
    for (let f = 0; f < FIELD_COUNT; f++) this.lenSum[f]! -= doc.len[f]!;
    pullFrom(this.byKey, doc.key, id);
    for (const k of doc.keys) pullFrom(this.byAnyKey, k, id);
    this.docs[id] = undefined;
    this.byName.delete(name);
    this.live--;
    if (this.docs.length - this.live > Math.max(64, this.live)) this.#compact();
  }

  /** Whether some tool has `term` in a field other than its name. */
  termInProse(term: string): boolean {
    const p = this.postings.get(term);
    if (!p) return false;
    for (let k = 0; k < p.docs.length; k++) {
      if (fieldTf(p.tf[k]!, FIELD_NAME) < p.tf[k]!) return true; // some field other than the name
    }
    return false;
  }

  /** Renumbers tools densely (same order) once removals have left more holes than tools. */
  #compact(): void {
    const newId = new Int32Array(this.docs.length).fill(-1);
    const kept: IndexedTool[] = [];
    for (const doc of this.docs) {
      if (!doc) continue;
      newId[doc.id] = kept.length;
      doc.id = kept.length;
      kept.push(doc);
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
}

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
