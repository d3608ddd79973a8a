// Bench — what the turn's spans cost when tracing is off (issue 10). Printed, never asserted.
//
// Two workers from the same code, side by side on the same mock: one with the span helpers of
// src/observability/tracing.ts as shipped (`tracing.enterSpan` of `cloudflare:workers`; `wrangler dev` exports
// no traces, so this is the runtime's tracing-off path), one with them replaced by plain calls
// (SWITCHBOARD_DEBUG_NO_SPANS=true). Turns alternate between the two (one on each, then the next pair), so a
// drift of the machine's load hits both alike. A one-step text turn enters 3 spans (turn, step, provider
// request); a turn with one http tool call enters 6 (and a tool-call span). Reports the first-text-delta and
// whole-turn p50 / p90 of each, and the difference.
import { randomUUID } from "node:crypto";
import { Api, startWrangler } from "../test/helpers/index.ts";
import { ADMIN_KEY, log, pct, performance, readTimedSse, round, standalone, table, weatherToolAgent } from "./lib.mjs";

const TURNS = Number(process.env.BENCH_SPAN_TURNS ?? 150);
const WARMUP = 10;
const PROMPT = "hello there switchboard, please echo these few words back";

async function startSide(env, noSpans) {
  const worker = await startWrangler({
    vars: {
      SWITCHBOARD_ADMIN_KEY: ADMIN_KEY,
      ANTHROPIC_API_KEY: "bench-anthropic-key",
      ANTHROPIC_BASE_URL: env.mockUrl,
      SWITCHBOARD_ALLOW_PRIVATE_URLS: "true",
      SWITCHBOARD_RATE_LIMIT_PER_MIN: "0",
      ...(noSpans ? { SWITCHBOARD_DEBUG_NO_SPANS: "true" } : {}),
    },
  });
  const api = new Api(worker.url, ADMIN_KEY);
  const { key } = await api.createKey(`bench-spans-${randomUUID().slice(0, 8)}`);
  const model = `bench-spans-${randomUUID().slice(0, 8)}`;
  await api.putAgent(model, weatherToolAgent(model, env.mockUrl));
  const sessions = [];
  for (let i = 0; i < 5; i++) sessions.push((await api.createSession(key, model)).id);
  return { worker, api, key, model, sessions };
}

/** One streamed turn: time to its first text delta and to its end. */
async function turn(side, sessionId) {
  const t0 = performance.now();
  const res = await side.api.send(side.key, sessionId, { content: PROMPT });
  if (!res.ok) throw new Error(`turn → HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
  const r = await readTimedSse(res, t0, (f) => f.json?.type === "text-delta");
  return { ttfb: r.firstContent, total: r.end };
}

export async function run(env) {
  log("span cost: starting the two workers");
  const on = await startSide(env, false);
  const off = await startSide(env, true);
  try {
    const samples = { on: { text: [], tool: [] }, off: { text: [], tool: [] } };
    for (const kind of ["text", "tool"]) {
      for (let i = 0; i < TURNS + WARMUP; i++) {
        for (const [name, side] of i % 2 === 0
          ? [
              ["on", on],
              ["off", off],
            ]
          : [
              ["off", off],
              ["on", on],
            ]) {
          if (kind === "tool") {
            await env.mock.script(side.model, [
              { reply: { tool_calls: [{ name: "get_weather", input: { city: "Paris" } }] } },
              { reply: { text: "It is sunny." } },
            ]);
          }
          const r = await turn(side, side.sessions[i % side.sessions.length]);
          if (i >= WARMUP) samples[name][kind].push(r);
        }
      }
    }
    const stat = (xs, k, p) =>
      round(
        pct(
          xs.map((x) => x[k]),
          p,
        ),
        2,
      );
    const figures = {};
    const rows = [];
    for (const kind of ["text", "tool"]) {
      const f = {};
      for (const name of ["on", "off"]) {
        const xs = samples[name][kind];
        f[name] = {
          n: xs.length,
          first_delta_p50_ms: stat(xs, "ttfb", 50),
          first_delta_p90_ms: stat(xs, "ttfb", 90),
          turn_p50_ms: stat(xs, "total", 50),
          turn_p90_ms: stat(xs, "total", 90),
        };
        rows.push([
          kind === "text" ? "text turn (3 spans)" : "tool turn (6 spans)",
          name === "on" ? "span helpers" : "no-op",
          xs.length,
          f[name].first_delta_p50_ms,
          f[name].first_delta_p90_ms,
          f[name].turn_p50_ms,
          f[name].turn_p90_ms,
        ]);
      }
      f.difference_first_delta_p50_ms = round(f.on.first_delta_p50_ms - f.off.first_delta_p50_ms, 2);
      f.difference_turn_p50_ms = round(f.on.turn_p50_ms - f.off.turn_p50_ms, 2);
      rows.push([
        "",
        "difference (helpers − no-op)",
        "",
        f.difference_first_delta_p50_ms,
        "",
        f.difference_turn_p50_ms,
        "",
      ]);
      figures[kind] = f;
    }
    table(
      "Span cost with tracing off — two workers, turns alternating between them (ms)",
      ["turn", "spans", "n", "first delta p50", "p90", "whole turn p50", "p90"],
      rows,
    );
    return figures;
  } finally {
    await on.worker.stop();
    await off.worker.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await standalone("span-cost", run);
