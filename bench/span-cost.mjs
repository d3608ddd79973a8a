// Bench — what the turn's spans cost with tracing off (issue 10). Printed, never asserted.
//
// 1. Per span, inside workerd: bench/span-cost/worker.mjs calls a tiny function N times through `inSpan`
//    (src/observability/tracing.ts as shipped: `tracing.enterSpan`, which under `wrangler dev`, exporting no
//    traces, is the runtime's tracing-off path) and with the helpers off (the function called directly, as
//    SWITCHBOARD_DEBUG_NO_SPANS does), each sync and async (a promise awaited, as the turn's spans are); requests
//    alternate on / off. The runtime's CPU for each request comes from /proc (workerd's clock may stand still in
//    synchronous code); µs per span = (on − off) / N. The worker says whether the runtime has the tracing API:
//    without it, "on" would measure the helpers' own fallback, and the bench prints so.
// 2. Per turn: two Switchboard workers of the same code on one mock, one as shipped, one with
//    SWITCHBOARD_DEBUG_NO_SPANS=true; text turns (3 spans: turn, step, provider request) alternate between them,
//    and the workerd CPU per turn of each (/proc, 10 ms ticks over all the turns) is compared. Noisier than 1:
//    it says whether the spans show at all in a whole turn's CPU.
import path from "node:path";
import { sleep } from "../scripts/lib/process.mjs";
import { repoRoot, startWrangler } from "../test/helpers/index.ts";
import { log, makeAgent, newSession, readTimedSse, round, standalone, table, workerdCpuMs } from "./lib.mjs";

/** Calls per micro-bench request (BENCH_SPAN_N), requests per variant (BENCH_SPAN_ROUNDS), turns per side. */
const N = Number(process.env.BENCH_SPAN_N ?? 200_000);
const ROUNDS = Number(process.env.BENCH_SPAN_ROUNDS ?? 6);
const TURNS = Number(process.env.BENCH_SPAN_TURNS ?? 200);
const WARMUP = 10;
const PROMPT = "hello there switchboard, please echo these few words back";

/** One micro-bench request; its workerd CPU (ms) from /proc, and what the worker answered. */
async function micro(worker, spans, shape) {
  const before = await workerdCpuMs(worker.pid);
  const res = await fetch(`${worker.url}/?spans=${spans}&shape=${shape}&n=${N}`);
  if (!res.ok) throw new Error(`span micro-bench → HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
  const answer = await res.json();
  // The counters of a process are updated at its next tick: let the last one land.
  await sleep(50);
  return { cpu_ms: (await workerdCpuMs(worker.pid)) - before, ...answer };
}

async function perSpan() {
  const worker = await startWrangler({
    extraArgs: ["--config", path.join(repoRoot, "bench", "span-cost", "wrangler.toml")],
    migrate: false,
  });
  try {
    if ((await workerdCpuMs(worker.pid)) === null) throw new Error("no workerd CPU readable from /proc (Linux only)");
    const figures = {};
    let tracing = null;
    for (const shape of ["sync", "async"]) {
      // Warm-up: the first requests compile the loop.
      await micro(worker, "on", shape);
      await micro(worker, "off", shape);
      const cpu = { on: 0, off: 0 };
      for (let r = 0; r < ROUNDS; r++) {
        for (const spans of r % 2 === 0 ? ["on", "off"] : ["off", "on"]) {
          const m = await micro(worker, spans, shape);
          if (m.calls !== N) throw new Error(`the worker made ${m.calls} calls, not ${N}`);
          tracing = m.tracing;
          cpu[spans] += m.cpu_ms;
        }
      }
      const calls = N * ROUNDS;
      figures[shape] = {
        on_us_per_call: round((cpu.on / calls) * 1000, 3),
        off_us_per_call: round((cpu.off / calls) * 1000, 3),
        span_us: round(((cpu.on - cpu.off) / calls) * 1000, 3),
      };
    }
    return { tracing_api: tracing, calls_per_variant: N * ROUNDS, ...figures };
  } finally {
    await worker.stop();
  }
}

async function perTurn(env) {
  const off = await env.startSibling({ SWITCHBOARD_DEBUG_NO_SPANS: "true" });
  try {
    const sides = [];
    for (const [name, side] of [
      ["on", env],
      ["off", off],
    ]) {
      const { agent } = await makeAgent(side, "bench-spans");
      const sessions = [];
      for (let i = 0; i < 5; i++) sessions.push(await newSession(side, agent));
      sides.push({ name, side, sessions });
    }
    const turn = async ({ side, sessions }, i) => {
      const res = await side.api.send(side.key, sessions[i % sessions.length], { content: PROMPT });
      if (!res.ok) throw new Error(`turn → HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
      await readTimedSse(res, performance.now(), () => false);
    };
    for (let i = 0; i < WARMUP; i++) for (const s of sides) await turn(s, i);
    const before = await Promise.all(sides.map((s) => workerdCpuMs(s.side.worker.pid)));
    for (let i = 0; i < TURNS; i++) {
      for (const s of i % 2 === 0 ? sides : [...sides].reverse()) await turn(s, i);
    }
    await sleep(300);
    const after = await Promise.all(sides.map((s) => workerdCpuMs(s.side.worker.pid)));
    const [on, offMs] = sides.map((_, k) => round((after[k] - before[k]) / TURNS, 3));
    return { turns: TURNS, on_cpu_ms_per_turn: on, off_cpu_ms_per_turn: offMs, difference_ms: round(on - offMs, 3) };
  } finally {
    await off.stop();
  }
}

export async function run(env) {
  log(`span cost: ${N} calls × ${ROUNDS} requests per variant in the micro-bench worker`);
  const span = await perSpan();
  if (!span.tracing_api) {
    log("span cost: this runtime has no tracing.enterSpan: 'on' measured the helpers' fallback, not the runtime's");
  }
  log(`span cost: ${TURNS} text turns alternating between a worker with spans and one without`);
  const turn = await perTurn(env);
  table(
    `Span cost with tracing off, in workerd: CPU per call (µs), ${span.calls_per_variant} calls per variant; tracing.enterSpan present: ${span.tracing_api}`,
    ["callback", "inSpan (helpers on)", "direct (helpers off)", "per span"],
    ["sync", "async"].map((shape) => [
      shape,
      span[shape].on_us_per_call,
      span[shape].off_us_per_call,
      span[shape].span_us,
    ]),
  );
  table(
    `Whole text turns (3 spans), ${turn.turns} per side, alternating: workerd CPU per turn (ms)`,
    ["spans on", "spans off", "difference"],
    [[turn.on_cpu_ms_per_turn, turn.off_cpu_ms_per_turn, turn.difference_ms]],
  );
  return { per_span: span, per_turn: turn };
}

if (import.meta.url === `file://${process.argv[1]}`) await standalone("span-cost", run);
