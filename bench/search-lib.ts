// Helpers for bench/search.mjs: dataset loading, metrics, the plain-BM25 reference scorer and a synthetic catalog.
// The reference scorer is deliberately separate from @switchboard/tool-search (it is the yardstick, not the product).
import { readFileSync } from "node:fs";
import path from "node:path";
import { mulberry32 } from "./random.ts";

export interface CatalogTool {
  name: string;
  description: string;
  parameters?: Record<string, unknown>;
}
export interface Query {
  query: string;
  relevant: string[];
}

export function loadDataset(dir: string): { catalog: CatalogTool[]; queries: Query[] } {
  const catalog = JSON.parse(readFileSync(path.join(dir, "catalog.json"), "utf8")) as CatalogTool[];
  const queries = readFileSync(path.join(dir, "queries.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Query);
  return { catalog, queries };
}

export interface Metrics {
  "recall@1": number;
  "recall@5": number;
  "recall@10": number;
  "mrr@10": number;
}

/** recall@k = mean |relevant ∩ top-k| / |relevant|; MRR@10 = mean 1/rank of the first relevant tool in the top 10. */
export function evaluate(queries: Query[], rank: (q: string) => string[]): Metrics {
  let r1 = 0;
  let r5 = 0;
  let r10 = 0;
  let mrr = 0;
  for (const q of queries) {
    const ranked = rank(q.query);
    if (new Set(ranked).size !== ranked.length) throw new Error(`duplicate names in the ranking for ${q.query}`);
    const rel = new Set(q.relevant);
    const hits = (k: number) => ranked.slice(0, k).filter((n) => rel.has(n)).length / rel.size;
    r1 += hits(1);
    r5 += hits(5);
    r10 += hits(10);
    const first = ranked.slice(0, 10).findIndex((n) => rel.has(n));
    if (first >= 0) mrr += 1 / (first + 1);
  }
  const n = queries.length || 1;
  return { "recall@1": r1 / n, "recall@5": r5 / n, "recall@10": r10 / n, "mrr@10": mrr / n };
}

// ---------------------------------------------------------------------------------------------------------------
// Plain BM25 (the README's baseline): k1=1.2, b=0.75; one field = name + description; names split on camelCase /
// snake_case / kebab-case; lowercase; no stemming, no stopwords; ties in catalog order.

export function plainTokens(text: string): string[] {
  const out: string[] = [];
  for (const chunk of text.match(/[A-Za-z0-9]+/g) ?? []) {
    for (const p of chunk.split(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/)) if (p) out.push(p.toLowerCase());
  }
  return out;
}

export class PlainBM25 {
  private readonly postings = new Map<string, Array<[number, number]>>();
  private readonly lengths: number[] = [];
  private readonly avgdl: number;
  private readonly names: string[];
  private readonly k1: number;
  private readonly b: number;
  constructor(names: string[], texts: string[], k1 = 1.2, b = 0.75) {
    this.names = names;
    this.k1 = k1;
    this.b = b;
    texts.forEach((text, doc) => {
      const toks = plainTokens(text);
      this.lengths.push(toks.length);
      const tf = new Map<string, number>();
      for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, f] of tf) {
        const p = this.postings.get(t);
        if (p) p.push([doc, f]);
        else this.postings.set(t, [[doc, f]]);
      }
    });
    this.avgdl = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, this.lengths.length);
  }
  rank(query: string, limit = 10): string[] {
    const n = this.names.length;
    const scores = new Float64Array(n);
    for (const t of plainTokens(query)) {
      const p = this.postings.get(t);
      if (!p) continue;
      const idf = Math.log(1 + (n - p.length + 0.5) / (p.length + 0.5));
      for (const [doc, f] of p) {
        const norm = 1 - this.b + (this.b * this.lengths[doc]!) / this.avgdl;
        scores[doc]! += (idf * f * (this.k1 + 1)) / (f + this.k1 * norm);
      }
    }
    const order: number[] = [];
    for (let i = 0; i < n; i++) if (scores[i]! > 0) order.push(i);
    order.sort((a, b) => scores[b]! - scores[a]! || a - b);
    return order.slice(0, limit).map((i) => this.names[i]!);
  }
}

export function plainBm25For(catalog: CatalogTool[], withParams = false): PlainBM25 {
  const texts = catalog.map((t) => {
    let s = `${t.name} ${t.description}`;
    if (withParams) {
      const props = (t.parameters?.properties ?? {}) as Record<string, { description?: string }>;
      for (const [k, v] of Object.entries(props)) s += ` ${k} ${v?.description ?? ""}`;
    }
    return s;
  });
  return new PlainBM25(
    catalog.map((t) => t.name),
    texts,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Noisy queries, to measure robustness: the same queries with one typo in a content word (a letter dropped, doubled,
// swapped with its neighbour or replaced), or with one space removed between two words. Deterministic.

const NOISE_STOP = new Set("the and for with that this from what have your about would could should there".split(" "));

export function perturb(queries: Query[], kind: "typo" | "glue", seed = 7): Query[] {
  const rnd = mulberry32(seed);
  return queries.map((q) => {
    const words = q.query.split(" ");
    const content = words
      .map((w, i) => [w, i] as const)
      .filter(([w]) => /^[A-Za-z]{5,}$/.test(w) && !NOISE_STOP.has(w.toLowerCase()));
    if (content.length === 0) return q;
    const [w, i] = content[Math.floor(rnd() * content.length)]!;
    if (kind === "glue") {
      const j = i + 1 < words.length ? i : i - 1;
      if (j < 0) return q;
      const glued = [...words.slice(0, j), words[j]! + words[j + 1]!, ...words.slice(j + 2)];
      return { ...q, query: glued.join(" ") };
    }
    const p = 1 + Math.floor(rnd() * (w.length - 2)); // never the first letter
    const op = Math.floor(rnd() * 4);
    const letter = "abcdefghijklmnopqrstuvwxyz"[Math.floor(rnd() * 26)]!;
    const typo =
      op === 0
        ? w.slice(0, p) + w.slice(p + 1)
        : op === 1
          ? w.slice(0, p) + w[p] + w.slice(p)
          : op === 2
            ? w.slice(0, p) + w[p + 1] + w[p] + w.slice(p + 2)
            : w.slice(0, p) + letter + w.slice(p + 1);
    const out = words.slice();
    out[i] = typo;
    return { ...q, query: out.join(" ") };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Synthetic catalog for the latency bench: deterministic (seeded PRNG), MCP-style names, Zipf-distributed words.

const COMMON =
  "get list create update delete search find send read write file user issue repository project message channel " +
  "email calendar event task ticket document page database table record query report invoice payment customer " +
  "order product price stock weather forecast city location map route flight hotel booking image video audio " +
  "transcript translate language text summary note comment review rating account team member permission role " +
  "token key secret config setting deploy build test log metric alert incident server cluster node pod container " +
  "branch commit pull request merge release tag label status priority date time zone currency exchange rate " +
  "chart graph dashboard folder drive sheet cell row column slide spreadsheet contact lead deal pipeline campaign";

export function syntheticCatalog(n: number, seed = 42): { docs: CatalogTool[]; queries: string[] } {
  const rnd = mulberry32(seed);
  const common = COMMON.split(" ");
  const syll = ["ka", "ro", "mi", "ta", "zen", "lo", "qui", "bar", "nex", "vo", "tri", "sa", "del", "fy", "po"];
  const rare: string[] = [];
  for (let i = 0; i < 6000; i++) {
    let w = "";
    const k = 2 + Math.floor(rnd() * 3);
    for (let j = 0; j < k; j++) w += syll[Math.floor(rnd() * syll.length)];
    rare.push(w);
  }
  const vocab = [...common, ...rare];
  // Zipf-ish: index = floor(V * u^3) favours the head.
  const word = () => vocab[Math.floor(vocab.length * rnd() ** 3)]!;
  const servers = Array.from({ length: 60 }, (_, i) => `${rare[i]}${i}`);
  const docs: CatalogTool[] = [];
  const seen = new Set<string>();
  while (docs.length < n) {
    const name = `mcp__${servers[Math.floor(rnd() * servers.length)]}__${word()}_${word()}`;
    if (seen.has(name)) continue;
    seen.add(name);
    const len = 8 + Math.floor(rnd() * 30);
    const description = Array.from({ length: len }, word).join(" ");
    const properties: Record<string, unknown> = {};
    const np = Math.floor(rnd() * 5);
    for (let i = 0; i < np; i++) {
      properties[`${word()}_${word()}`] = { type: "string", description: Array.from({ length: 6 }, word).join(" ") };
    }
    docs.push({ name, description, parameters: { type: "object", properties } });
  }
  const queries = Array.from({ length: 2000 }, () =>
    Array.from({ length: 3 + Math.floor(rnd() * 12) }, word).join(" "),
  );
  return { docs, queries };
}
