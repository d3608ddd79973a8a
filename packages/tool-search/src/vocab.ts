// Counted word sets of the catalog, and the "one edit away" matching that typo tolerance and compound repair use.

/** Words that compound splitting and typo variants consider: lowercase ASCII letters only. */
export const LOWER_WORD = /^[a-z]+$/;

/** A counted word set; length buckets for "one edit away" look-ups are built on first use after a change. */
export class Vocab {
  readonly #counts = new Map<string, { word: string; n: number }>();
  #byLen: Map<number, string[]> | null = null;

  has(w: string): boolean {
    return this.#counts.has(w);
  }

  count(w: string): number {
    return this.#counts.get(w)?.n ?? 0;
  }

  /** Counts `w` once more; returns the vocabulary's own copy of the string (so callers keep one copy per word). */
  add(w: string): string {
    const e = this.#counts.get(w);
    if (e) {
      e.n++;
      return e.word;
    }
    this.#counts.set(w, { word: w, n: 1 });
    this.#byLen = null;
    return w;
  }

  delete(w: string): void {
    const e = this.#counts.get(w);
    if (!e) return;
    if (e.n > 1) e.n--;
    else {
      this.#counts.delete(w);
      this.#byLen = null;
    }
  }

  /** Words within one edit of `w` (and, with `extensions`, words of up to 4 more letters that start with `w`). */
  near(w: string, extensions: boolean): Array<[string, number]> {
    if (!this.#byLen) {
      const byLen = new Map<number, string[]>();
      for (const word of this.#counts.keys()) {
        const bucket = byLen.get(word.length);
        if (bucket) bucket.push(word);
        else byLen.set(word.length, [word]);
      }
      this.#byLen = byLen;
    }
    const out: Array<[string, number]> = [];
    const L = w.length;
    for (let len = L - 1; len <= L + (extensions ? 4 : 1); len++) {
      for (const cand of this.#byLen.get(len) ?? []) {
        if (len <= L + 1 && withinOneEdit(w, cand)) out.push([cand, 1]);
        else if (extensions && len > L && cand.startsWith(w)) out.push([cand, 0.8]);
      }
    }
    out.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return out;
  }
}

/** Damerau–Levenshtein distance ≤ 1 (one insertion, deletion, substitution or adjacent transposition), a ≠ b. */
export function withinOneEdit(a: string, b: string): boolean {
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
