// `npm run bench`: starts one mock model server and one `wrangler dev` (real workerd, local, offline), runs the
// benchmarks against them, prints a table per benchmark and, last, one JSON line with every figure.
// Figures only — nothing here asserts a timing.
//
//   node bench/run.mjs [ttfb] [turn-path] [peer] [stream-rows] [history] [load] [span-cost] [floor-memory]
//   (default: all but span-cost and floor-memory, in this order)
//
// Environment knobs: BENCH_BUDGET_S (whole run, default 235; the history bench's seeding gets what is left),
// BENCH_TTFB_C1, BENCH_TTFB_ROUNDS, BENCH_TTFB_PACED, BENCH_HISTORY_TURNS, BENCH_HISTORY_MEASURE,
// BENCH_HISTORY_SEED_BUDGET_S (overrides the derived seeding budget).
import os from "node:os";
import { log, performance, requireNode, round, startEnv } from "./lib.mjs";

requireNode();

const { run: ttfb } = await import("./ttfb.mjs");
const { run: streamRows } = await import("./stream-rows.mjs");
const { run: history } = await import("./history.mjs");
const { run: turnPath } = await import("./turn-path.mjs");
const { run: load } = await import("./load.mjs");
const { run: peer } = await import("./peer.mjs");
const { run: spanCost } = await import("./span-cost.mjs");
const { run: floorMemory } = await import("./floor-memory.mjs");

const BENCHES = {
  ttfb,
  "turn-path": turnPath,
  peer,
  "stream-rows": streamRows,
  history,
  load,
  "span-cost": spanCost,
  "floor-memory": floorMemory,
};
/** Run only when named (each starts workers of its own and takes minutes). */
const ON_REQUEST = new Set(["span-cost", "floor-memory"]);
const BUDGET_S = Number(process.env.BENCH_BUDGET_S ?? 235);
/** Kept back from the seeding budget for the history bench's timed turns and the shutdown. */
const HISTORY_RESERVE_S = 40;

const wanted = process.argv.slice(2);
for (const name of wanted) {
  if (!(name in BENCHES)) {
    console.error(`unknown bench "${name}"; known: ${Object.keys(BENCHES).join(", ")}`);
    process.exit(2);
  }
}
const selected = wanted.length > 0 ? wanted : Object.keys(BENCHES).filter((name) => !ON_REQUEST.has(name));

const started = performance.now();
const elapsedS = () => (performance.now() - started) / 1000;
console.log(
  `Switchboard benchmarks — ${selected.join(", ")}; node ${process.version}, ${os.cpus().length} CPUs, ` +
    "wrangler dev (local workerd) + mock model server on loopback",
);

const all = {
  meta: { node: process.version, cpus: os.cpus().length, started_at: new Date().toISOString() },
};
let failed = false;
const env = await startEnv();
try {
  for (const name of selected) {
    const t0 = performance.now();
    try {
      const opts = {};
      if (name === "history" && process.env.BENCH_HISTORY_SEED_BUDGET_S === undefined) {
        opts.seedBudgetS = Math.max(30, BUDGET_S - elapsedS() - HISTORY_RESERVE_S);
      }
      all[name] = await BENCHES[name](env, opts);
    } catch (error) {
      failed = true;
      const message = error instanceof Error ? error.message : String(error);
      console.log(`\n${name}: FAILED — ${message}`);
      all[name] = { error: message.slice(0, 2000) };
    }
    log(`${name} done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
} finally {
  await env.stop();
}
all.meta.seconds = round(elapsedS(), 1);
console.log(`\ntotal ${all.meta.seconds} s`);
console.log(JSON.stringify(all));
process.exit(failed ? 1 : 0);
