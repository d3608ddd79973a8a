// The tool-search index: BM25F over four fields of each tool — name parts, search_hint, description, parameter
// names + descriptions — with stemming, stopwords, name boosts, typo tolerance and compound-word splitting.
//
// `ToolIndex` ties the parts together: `fields.ts` analyses a tool, `catalog.ts` holds the postings and
// vocabularies, `expand.ts` splits and typo-matches words against the catalog, `scoring.ts` ranks a query.
// Built once per catalog and updated incrementally (`add`, `remove`). No Node built-ins, no eval, no I/O: it runs
// inside workerd as is. Deterministic: the same catalog (in the same order) and query give the same ranking; ties
// keep catalog order.

import { Catalog } from "./catalog.ts";
import { Expander } from "./expander.ts";
import { fieldTerms, fieldWords, type SearchDoc } from "./fields.ts";
import { rank, type SearchHit, type SearchOptions } from "./scoring.ts";
import { DEFAULT_TUNING, type Tuning } from "./tuning.ts";

export class ToolIndex {
  readonly #tuning: Tuning;
  readonly #catalog: Catalog;
  readonly #expander: Expander;

  constructor(docs: readonly SearchDoc[] = [], tuning: Partial<Tuning> = {}) {
    this.#tuning = { ...DEFAULT_TUNING, ...tuning };
    this.#catalog = new Catalog(this.#tuning);
    this.#expander = new Expander(this.#catalog, this.#tuning);
    this.add(docs);
  }

  /** Number of tools in the index. */
  get size(): number {
    return this.#catalog.live;
  }

  /** Tool names in catalog (insertion) order. */
  *names(): IterableIterator<string> {
    for (const doc of this.#catalog.docs) if (doc) yield doc.name;
  }

  has(name: string): boolean {
    return this.#catalog.byName.has(name);
  }

  /**
   * Adds tools; a tool whose name is already indexed is replaced (and moves to the end of the tie order). Cost is
   * proportional to the added text. The words of all tools in one call are known before any of them is split into
   * compound parts, so building in one call or in several can differ only in those splits.
   */
  add(docs: readonly SearchDoc[]): void {
    // A name given twice in one call: the last description wins, at the first one's place.
    const batch = new Map<string, SearchDoc>();
    for (const doc of docs) batch.set(doc.name, doc);
    for (const name of batch.keys()) if (this.#catalog.byName.has(name)) this.#catalog.remove(name);
    const prepared = [...batch.values()].map((doc) => this.#catalog.countWords(fieldWords(doc)));
    for (const words of prepared)
      this.#catalog.insert(
        words,
        fieldTerms(words, this.#tuning, (chunk) => this.splitCompound(chunk)),
      );
    this.#expander.clear();
  }

  /** Removes tools by exact name; unknown names are ignored. */
  remove(names: Iterable<string>): void {
    for (const n of names) this.#catalog.remove(n);
    this.#expander.clear();
  }

  /**
   * Splits a run-together lowercase name part into catalog words ("diceroller" → dice, roller), as indexing does;
   * [] when it is left alone. See `Expander.splitCompound`.
   */
  splitCompound(chunk: string): string[] {
    return this.#expander.splitCompound(chunk);
  }

  /**
   * Keyword search. Returns up to `limit` tools with a positive score, best first; ties keep catalog order.
   * Tools in `exclude` are left out. Each `+word` must occur in a returned tool's name, search_hint or description
   * (as a term, or as a substring of the lowercase name: "+git" admits `github_create_issue`).
   */
  search(query: string, opts: SearchOptions = {}): SearchHit[] {
    return rank(this.#catalog, this.#expander, this.#tuning, query, opts);
  }
}
