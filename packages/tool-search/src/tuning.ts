// Scoring knobs of the tool-search index, and the word → term analysis two of them (stemming, stopwords) switch.

import { normalizeTerm, STOPWORDS } from "./tokenize.ts";

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

/** The indexed term of a raw token (stemmed unless stemming is off). */
export function termOf(tuning: Tuning, raw: string): string {
  return tuning.stem ? normalizeTerm(raw) : raw;
}

/** Terms of a token list, stopwords dropped unless that is off. */
export function analyzeList(tuning: Tuning, tokens: readonly string[]): string[] {
  const out: string[] = [];
  for (const tok of tokens) {
    if (tuning.stopwords && STOPWORDS.has(tok)) continue;
    out.push(termOf(tuning, tok));
  }
  return out;
}
