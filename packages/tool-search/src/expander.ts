// Word expansion against the catalog's own vocabulary: run-together name parts split into catalog words (at index
// time), and query words the catalog lacks split into catalog words or matched to terms one typo away (at query
// time). A word the catalog lacks costs one scan of the vocabulary words of similar length, memoised until the
// catalog changes.

import type { Catalog } from "./catalog.ts";
import { STOPWORDS } from "./tokenize.ts";
import { type Tuning, termOf } from "./tuning.ts";
import { LOWER_WORD } from "./vocab.ts";

/** One group per distinct query term (repeats counted); a group scores a tool by its best weighted alternative. */
export type QueryGroups = Map<string, { count: number; alts: Array<[string, number]> }>;

export class Expander {
  readonly #catalog: Catalog;
  readonly #tuning: Tuning;
  readonly #nearCache = new Map<string, Array<[string, number]>>();

  // (Plain fields, not parameter properties: Node's type stripping, used by the bench, rejects those.)
  constructor(catalog: Catalog, tuning: Tuning) {
    this.#catalog = catalog;
    this.#tuning = tuning;
  }

  /** Forgets memoised typo variants; called after every change to the catalog. */
  clear(): void {
    this.#nearCache.clear();
  }

  /**
   * The query's words as scoring groups: a catalog term stands for itself; a word the catalog lacks is split into
   * catalog words if it is run-together, else stands for its typo variants (weighted by `fuzzyWeight`).
   */
  queryGroups(words: readonly string[]): QueryGroups {
    const tuning = this.#tuning;
    const groups: QueryGroups = new Map();
    const addGroup = (term: string, alts: () => Array<[string, number]>) => {
      const g = groups.get(term);
      if (g) g.count++;
      else groups.set(term, { count: 1, alts: alts() });
    };
    for (const raw of words) {
      const term = termOf(tuning, raw);
      if (this.#catalog.postings.has(term)) {
        addGroup(term, () => [[term, 1]]);
        continue;
      }
      const parts = tuning.splitQuery ? this.#splitQueryWord(raw) : [];
      if (parts.length > 0) {
        for (const part of parts) addGroup(termOf(tuning, part), () => [[termOf(tuning, part), 1]]);
        continue;
      }
      if (tuning.fuzzyWeight > 0)
        addGroup(term, () => this.#variants(term).map(([w, sim]) => [w, sim * tuning.fuzzyWeight]));
    }
    return groups;
  }

  /**
   * Splits a run-together lowercase name part into catalog words ("diceroller" → dice, roller). Either every piece
   * is a catalog word, or all but one piece of 6+ letters that is one typo away from a prose word ("airqualityforeast"
   * → air, quality, forecast). Parts that are prose words themselves, or stem like one, are left alone.
   */
  splitCompound(chunk: string): string[] {
    const n = chunk.length;
    const { prose } = this.#catalog;
    if (n < 6 || n > 40 || !LOWER_WORD.test(chunk) || prose.has(chunk)) return [];
    const asTerm = termOf(this.#tuning, chunk);
    if (this.#catalog.terms.has(asTerm) && this.#catalog.termInProse(asTerm)) return [];
    // fwd[i]: fewest pieces covering chunk[0, i); bwd[i]: fewest covering chunk[i, n). Ties: longest first piece.
    const INF = 1 << 20;
    const fwd = new Array<number>(n + 1).fill(INF);
    const fwdCut = new Array<number>(n + 1).fill(-1);
    fwd[0] = 0;
    for (let i = 1; i <= n; i++) {
      for (let j = 0; j <= i - 3; j++) {
        if (fwd[j]! + 1 < fwd[i]! && this.#isPiece(chunk.slice(j, i))) {
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
        if (bwd[j]! + 1 < bwd[i]! && this.#isPiece(chunk.slice(i, j))) {
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
        const fix = prose.near(chunk.slice(j, k), false)[0]?.[0];
        if (fix) best = { cost, j, k, fix };
      }
    }
    if (!best) return [];
    const tail: string[] = [];
    for (let i = best.k; i < n; i = bwdCut[i]!) tail.push(chunk.slice(i, bwdCut[i]!));
    return [...pieces(best.j), best.fix, ...tail];
  }

  /** A catalog word usable as a piece of a compound: 3+ letters, not a stopword, seen in prose or in 2+ names. */
  #isPiece(w: string): boolean {
    return w.length >= 3 && !STOPWORDS.has(w) && (this.#catalog.prose.has(w) || this.#catalog.nameVocab.count(w) >= 2);
  }

  /** A query word the catalog lacks, split into two or three catalog words ("milesfrom" → miles, from); else []. */
  #splitQueryWord(raw: string): string[] {
    const n = raw.length;
    if (n < 5 || n > 40 || !LOWER_WORD.test(raw)) return [];
    const ok = (w: string) =>
      w.length >= 3 ? this.#catalog.prose.has(w) || this.#catalog.nameVocab.has(w) : w.length === 2 && STOPWORDS.has(w);
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
    return parts.filter((w) => !(this.#tuning.stopwords && STOPWORDS.has(w)));
  }

  /** Indexed terms standing in for a query term the catalog lacks: one edit away, or extending it (5+ letters). */
  #variants(term: string): Array<[string, number]> {
    let v = this.#nearCache.get(term);
    if (v) return v;
    v = term.length >= 4 && LOWER_WORD.test(term) ? this.#catalog.terms.near(term, term.length >= 5).slice(0, 8) : [];
    if (this.#nearCache.size >= 10_000) this.#nearCache.clear();
    this.#nearCache.set(term, v);
    return v;
  }
}
