// Bench — what the turn's spans cost when tracing is off (issue 10). Printed, never asserted.
//
// The same one-step text turn at concurrency 1, with the span helpers of src/observability/tracing.ts as
// shipped (`tracing.enterSpan` of `cloudflare:workers`: `wrangler dev` exports no traces, so this is the
// runtime's tracing-off path) and with them replaced by plain calls (SWITCHBOARD_DEBUG_NO_SPANS=true, a
// restart of workerd). A text turn enters 3 spans (turn, step, provider request). Phases alternate
// (spans, none, spans, none, …) so a drift of the machine's load hits both alike; each phase reports the added
// time to the first text delta (through − direct, p50) and the whole turn's p50, and the table ends with the
// median over the phases of each kind.
import { makeAgent, newSession, pct, round, standalone, table } from "./lib.mjs";
import { directTurn, sequential, switchboardTurn } from "./ttfb.mjs";

const TURNS = Number(process.env.BENCH_SPAN_TURNS ?? 60);
const PHASES = Number(process.env.BENCH_SPAN_PHASES ?? 4);
const WARMUP = 10;

const median = (values) => pct(values, 50);

async function phase(env, model, sessions) {
  const direct = await sequential(TURNS, WARMUP, [model], (m) => directTurn(env, m));
  const through = await sequential(TURNS, WARMUP, sessions, (s) => switchboardTurn(env, s));
  const p50 = (xs, k) =>
    pct(
      xs.map((x) => x[k]),
      50,
    );
  return {
    added_ttfb_p50_ms: p50(through, "ttfb") - p50(direct, "ttfb"),
    turn_total_p50_ms: p50(through, "total"),
  };
}

export async function run(env) {
  const { agent, model } = await makeAgent(env, "bench-spans");
  const sessions = [];
  for (let i = 0; i < 5; i++) sessions.push(await newSession(env, agent));
  const results = { spans: [], none: [] };
  for (let i = 0; i < PHASES; i++) {
    const kind = i % 2 === 0 ? "spans" : "none";
    await env.restartWorker(kind === "none" ? { SWITCHBOARD_DEBUG_NO_SPANS: "true" } : {});
    results[kind].push(await phase(env, model, sessions));
  }
  await env.restartWorker();
  const rows = [];
  for (const kind of ["spans", "none"]) {
    results[kind].forEach((r, i) => {
      rows.push([
        kind === "spans" ? "span helpers (tracing off)" : "no-op",
        i + 1,
        round(r.added_ttfb_p50_ms, 2),
        round(r.turn_total_p50_ms, 2),
      ]);
    });
  }
  const summary = {};
  for (const kind of ["spans", "none"]) {
    summary[kind] = {
      added_ttfb_p50_ms: round(median(results[kind].map((r) => r.added_ttfb_p50_ms)), 2),
      turn_total_p50_ms: round(median(results[kind].map((r) => r.turn_total_p50_ms)), 2),
    };
    rows.push([
      `${kind === "spans" ? "span helpers" : "no-op"}: median of phases`,
      "",
      summary[kind].added_ttfb_p50_ms,
      summary[kind].turn_total_p50_ms,
    ]);
  }
  table(
    `Span cost with tracing off — one-step text turn, concurrency 1, ${TURNS} turns per phase (ms)`,
    ["spans", "phase", "added first-delta p50", "whole turn p50"],
    rows,
  );
  return { turns_per_phase: TURNS, phases: results, median: summary };
}

if (import.meta.url === `file://${process.argv[1]}`) await standalone("span-cost", run);
