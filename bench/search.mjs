// Tool-search quality and latency. Runs the project's real search code (@switchboard/tool-search) — not a copy.
//
//   node bench/search.mjs --data <dir>     one dataset (<dir>/catalog.json + <dir>/queries.jsonl); the LAST line is
//                                          {"recall@1", "recall@5", "mrr@10", "bm25_recall@5", "queries"}
//   node bench/search.mjs                  both bundled datasets (bench/data/toolret/{metatool,bfcl}): a table,
//                                          the 5,000-tool latency figures, then one JSON line with everything
//   options: --ablate (one row per technique switched off), --latency (latency only), --no-latency,
//            --tools N (synthetic catalog size, default 5000)
//
// The baseline is plain BM25 (k1=1.2, b=0.75, name + description, identifier splitting, no stemming) computed in the
// same run by bench/search-lib.ts. Figures only; nothing here asserts.
import { existsSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { DEFAULT_TUNING, ToolIndex } from "@switchboard/tool-search";
import { evaluate, loadDataset, perturb, plainBm25For, syntheticCatalog } from "./search-lib.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const flag = (f) => args.includes(f);
const opt = (f, dflt) => {
  const i = args.indexOf(f);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
};

const r4 = (x) => Math.round(x * 10000) / 10000;
const toDocs = (catalog) =>
  catalog.map((t) => ({ name: t.name, description: t.description ?? "", input_schema: t.parameters }));

/** Ablations: each row switches one technique off (or changes one knob) from the defaults. */
const W = DEFAULT_TUNING.weights;
const ABLATIONS = [
  ["defaults", {}],
  ["no stemming", { stem: false }],
  ["no stopwords", { stopwords: false }],
  ["no parameter field", { weights: [W[0], W[1], W[2], 0] }],
  ["flat field weights (all 1)", { weights: [1, 1, 1, 1] }],
  ["no name-phrase boost", { namePhraseBoost: 0 }],
  ["no typo matching", { fuzzyWeight: 0 }],
  ["no query-word splitting", { splitQuery: false }],
  ["no compound-name splitting", { splitCompounds: false }],
];

function runQuality(dir, tuning = {}, noisy = false) {
  const { catalog, queries } = loadDataset(dir);
  const index = new ToolIndex(toDocs(catalog), tuning);
  const rank = (q) => index.search(q, { limit: 10 }).map((h) => h.name);
  const ours = evaluate(queries, rank);
  if (noisy) {
    ours.typo = evaluate(perturb(queries, "typo"), rank);
    ours.glue = evaluate(perturb(queries, "glue"), rank);
  }
  const bm25 = plainBm25For(catalog);
  const base = evaluate(queries, (q) => bm25.rank(q, 10));
  return { ours, base, queries: queries.length, tools: catalog.length };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function runLatency(n) {
  const { docs, queries } = syntheticCatalog(n);
  const searchDocs = toDocs(docs);
  const round3 = (x) => Math.round(x * 1000) / 1000;
  // Build three times (the first also warms the JIT); report the median.
  const builds = [];
  let index;
  const heapUsed = () => {
    globalThis.gc?.();
    return process.memoryUsage().heapUsed;
  };
  const heapBefore = heapUsed();
  for (let i = 0; i < 3; i++) {
    index = undefined;
    const t0 = performance.now();
    index = new ToolIndex(searchDocs);
    builds.push(performance.now() - t0);
  }
  // Meaningful only with `node --expose-gc` (otherwise garbage is counted too, so it is left out).
  const heapMb = globalThis.gc ? (heapUsed() - heapBefore) / 1e6 : undefined;
  builds.sort((a, b) => a - b);
  // Incremental: one more server's worth of tools (20) added to the built index, then removed.
  const extra = toDocs(syntheticCatalog(20, 7).docs).map((d) => ({ ...d, name: `extra_${d.name}` }));
  const t1 = performance.now();
  index.add(extra);
  const addMs = performance.now() - t1;
  const t2 = performance.now();
  index.remove(extra.map((d) => d.name));
  const removeMs = performance.now() - t2;
  // Warm-up on other queries, then every query once (distinct queries: first-use costs such as typo variants and
  // per-term weights after the catalog change are included).
  const warm = syntheticCatalog(20, 99).queries;
  for (let i = 0; i < 200; i++) index.search(warm[i % warm.length], { limit: 5 });
  const times = [];
  for (const q of queries) {
    const s = performance.now();
    index.search(q, { limit: 5 });
    times.push(performance.now() - s);
  }
  times.sort((a, b) => a - b);
  return {
    tools: n,
    queries: queries.length,
    build_ms: round3(builds[1]),
    add20_ms: round3(addMs),
    remove20_ms: round3(removeMs),
    p50_ms: round3(percentile(times, 50)),
    p99_ms: round3(percentile(times, 99)),
    max_ms: round3(times[times.length - 1]),
    ...(heapMb !== undefined ? { heap_mb: Math.round(heapMb * 10) / 10 } : {}),
  };
}

function row(cells, widths) {
  return cells.map((c, i) => String(c).padEnd(widths[i])).join("  ");
}

function printQualityTable(results) {
  const widths = [10, 8, 9, 9, 9, 9, 8];
  console.log(row(["dataset", "scorer", "R@1", "R@5", "R@10", "MRR@10", "queries"], widths));
  for (const [name, r] of results) {
    for (const [label, m] of [
      ["ours", r.ours],
      ["bm25", r.base],
    ]) {
      console.log(
        row(
          [name, label, r4(m["recall@1"]), r4(m["recall@5"]), r4(m["recall@10"]), r4(m["mrr@10"]), r.queries],
          widths,
        ),
      );
    }
    const d = r.ours["recall@5"] - r.base["recall@5"];
    console.log(`${name}: recall@5 ${d >= 0 ? "+" : ""}${r4(d * 100)} points over plain BM25`);
  }
}

const summary = (r) => ({
  "recall@1": r4(r.ours["recall@1"]),
  "recall@5": r4(r.ours["recall@5"]),
  "mrr@10": r4(r.ours["mrr@10"]),
  "bm25_recall@5": r4(r.base["recall@5"]),
  queries: r.queries,
});

const dataDir = opt("--data");
const nTools = Number(opt("--tools", 5000));

if (flag("--latency")) {
  const lat = runLatency(nTools);
  console.log(`latency over a synthetic ${lat.tools}-tool catalog, ${lat.queries} queries:`);
  console.log(JSON.stringify(lat));
} else if (dataDir) {
  const r = runQuality(dataDir);
  printQualityTable([[path.basename(path.resolve(dataDir)), r]]);
  if (flag("--ablate")) ablate([[path.basename(path.resolve(dataDir)), dataDir]]);
  console.log(JSON.stringify(summary(r)));
} else {
  const root = path.join(here, "data", "toolret");
  const sets = ["metatool", "bfcl"].map((s) => [s, path.join(root, s)]).filter(([, d]) => existsSync(d));
  if (sets.length === 0) {
    console.error(`no datasets under ${root}; pass --data <dir>`);
    process.exit(2);
  }
  const results = sets.map(([name, dir]) => [name, runQuality(dir)]);
  printQualityTable(results);
  if (flag("--ablate")) ablate(sets);
  const out = Object.fromEntries(results.map(([name, r]) => [name, summary(r)]));
  if (!flag("--no-latency")) {
    const lat = runLatency(nTools);
    console.log(
      `latency, synthetic ${lat.tools}-tool catalog: build ${lat.build_ms} ms, add 20 ${lat.add20_ms} ms, ` +
        `remove 20 ${lat.remove20_ms} ms; search p50 ${lat.p50_ms} ms, p99 ${lat.p99_ms} ms, max ${lat.max_ms} ms ` +
        `(${lat.queries} queries)${lat.heap_mb !== undefined ? `; index heap ${lat.heap_mb} MB` : ""}`,
    );
    out.latency = lat;
  }
  console.log(JSON.stringify(out));
}

function ablate(sets) {
  console.log("\nablations (typo / glue: the same queries with one typo, or one space removed, in a content word):");
  const widths = [28, 10, 8, 8, 8, 10, 10];
  console.log(row(["variant", "dataset", "R@1", "R@5", "MRR@10", "typo R@5", "glue R@5"], widths));
  for (const [label, tuning] of ABLATIONS) {
    for (const [name, dir] of sets) {
      const o = runQuality(dir, tuning, true).ours;
      console.log(
        row(
          [
            label,
            name,
            r4(o["recall@1"]),
            r4(o["recall@5"]),
            r4(o["mrr@10"]),
            r4(o.typo["recall@5"]),
            r4(o.glue["recall@5"]),
          ],
          widths,
        ),
      );
    }
  }
}
