// Bench 1 — added time to first byte of model content: through Switchboard vs the mock model directly.
//
// TTFB = from just before fetch() to the arrival of the body chunk holding the first content frame:
//   Switchboard: the first UI-message-stream frame of type `text-delta` (POST /v1/sessions/{id}/messages, SSE);
//   direct:      the first Anthropic `content_block_delta` (POST {mock}/v1/messages, stream: true).
// The mock answers with its default brain ("You said: …", one delta per word, no delay between frames).
// Concurrency 1: sequential turns over a few sessions. Concurrency 50: 50 sessions, one turn each per round.
import { epochMs, makeAgent, newSession, pct, performance, readTimedSse, round, standalone, table } from "./lib.mjs";

const C1_TURNS = Number(process.env.BENCH_TTFB_C1 ?? 120);
const C50_ROUNDS = Number(process.env.BENCH_TTFB_ROUNDS ?? 5);
const C1_SESSIONS = 10;
const WARMUP_C1 = 10;
const PACED_TURNS = Number(process.env.BENCH_TTFB_PACED ?? 30);
const PACED_DELAY_MS = 10;
const PACED_REPLY = "a paced reply of eight words, like a model";
const PROMPT = "hello there switchboard, please echo these few words back";

export async function switchboardTurn(env, sessionId) {
  const sentAt = epochMs();
  const t0 = performance.now();
  const res = await env.api.send(env.key, sessionId, { content: PROMPT });
  const headers = performance.now() - t0;
  if (!res.ok) throw new Error(`turn → HTTP ${res.status}: ${(await res.text()).slice(0, 500)}`);
  const r = await readTimedSse(res, t0, (f) => f.json?.type === "text-delta");
  if (r.firstContent === null) throw new Error(`no text-delta in the turn stream (${JSON.stringify(r.kinds)})`);
  // D1 statements of this request (debug counters only; null otherwise).
  const d1 = res.headers.get("x-debug-d1-statements");
  return { ttfb: r.firstContent, headers, total: r.end, sentAt, d1: d1 === null ? null : Number(d1) };
}

export async function directTurn(env, model) {
  const t0 = performance.now();
  const res = await fetch(`${env.mockUrl}/v1/messages`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": "bench-anthropic-key",
      "anthropic-version": "2023-06-01",
    },
    body: JSON.stringify({
      model: `${model}-direct`,
      max_tokens: 1024,
      stream: true,
      system: "You are a benchmark agent.",
      messages: [{ role: "user", content: PROMPT }],
    }),
  });
  const headers = performance.now() - t0;
  if (!res.ok) throw new Error(`direct → HTTP ${res.status}: ${(await res.text()).slice(0, 500)}`);
  const r = await readTimedSse(res, t0, (f) => f.event === "content_block_delta");
  if (r.firstContent === null) throw new Error("no content_block_delta from the mock");
  return { ttfb: r.firstContent, headers, total: r.end };
}

/** Runs `count` turns one at a time, rotating over `targets`; the first `warmup` are not kept. */
export async function sequential(count, warmup, targets, turn) {
  const out = [];
  for (let i = 0; i < count + warmup; i++) {
    const r = await turn(targets[i % targets.length]);
    if (i >= warmup) out.push(r);
  }
  return out;
}

/** `rounds` rounds of one concurrent turn per target; a first round (warm-up) is not kept. */
export async function concurrent(rounds, targets, turn) {
  const out = [];
  for (let round = 0; round <= rounds; round++) {
    const results = await Promise.all(targets.map((t) => turn(t)));
    if (round > 0) out.push(...results);
  }
  return out;
}

export function summary(samples) {
  const ttfb = samples.map((s) => s.ttfb);
  const headers = samples.map((s) => s.headers);
  const total = samples.map((s) => s.total);
  return {
    n: samples.length,
    ttfb_p50_ms: round(pct(ttfb, 50), 2),
    ttfb_p99_ms: round(pct(ttfb, 99), 2),
    headers_p50_ms: round(pct(headers, 50), 2),
    total_p50_ms: round(pct(total, 50), 2),
    total_p99_ms: round(pct(total, 99), 2),
  };
}

/** Plain requests through the same stack: wrangler dev's proxy only, and auth + D1 + session DO RPC. */
async function baselines(env, sessions) {
  const healthz = async () => {
    const t0 = performance.now();
    await (await fetch(`${env.workerUrl}/healthz`)).text();
    return performance.now() - t0;
  };
  const getSession = async (id) => {
    const t0 = performance.now();
    const res = await env.api.getSession(env.key, id);
    if (res.status !== 200) throw new Error(`GET session → ${res.status}`);
    return performance.now() - t0;
  };
  const seq = async (fn) => {
    const out = [];
    for (let i = 0; i < 110; i++) {
      const ms = await fn(sessions[i % sessions.length]);
      if (i >= 10) out.push(ms);
    }
    return out;
  };
  const conc = async (fn) => {
    const out = [];
    for (let r = 0; r <= 3; r++) {
      const ms = await Promise.all(sessions.map((s) => fn(s)));
      if (r > 0) out.push(...ms);
    }
    return out;
  };
  const stats = (a) => ({ n: a.length, p50_ms: round(pct(a, 50), 2), p99_ms: round(pct(a, 99), 2) });
  return {
    healthz_c1: stats(await seq(healthz)),
    get_session_c1: stats(await seq(getSession)),
    healthz_c50: stats(await conc(healthz)),
    get_session_c50: stats(await conc(getSession)),
  };
}

/** Splits c=1 Switchboard TTFB at the moment the mock logged the provider request (ms clock of the host). */
export async function splitAtProvider(env, model, samples) {
  const records = (await env.mock.requests(model)).slice(-samples.length);
  if (records.length !== samples.length) return null;
  const before = [];
  const after = [];
  samples.forEach((s, i) => {
    const at = records[i].at_ms;
    before.push(at - s.sentAt);
    after.push(s.ttfb - (at - s.sentAt));
  });
  return {
    to_provider_request_p50_ms: round(pct(before, 50), 2),
    provider_request_to_first_delta_p50_ms: round(pct(after, 50), 2),
  };
}

export async function run(env) {
  const { agent, model } = await makeAgent(env, "bench-ttfb");
  const c1Sessions = [];
  for (let i = 0; i < C1_SESSIONS; i++) c1Sessions.push(await newSession(env, agent));
  const c50Sessions = await Promise.all(Array.from({ length: 50 }, () => newSession(env, agent)));

  const t0 = performance.now();
  // Direct first, then Switchboard, at each concurrency (both warmed up).
  const direct1 = await sequential(C1_TURNS, WARMUP_C1, [model], (m) => directTurn(env, m));
  const sb1 = await sequential(C1_TURNS, WARMUP_C1, c1Sessions, (s) => switchboardTurn(env, s));
  const split = await splitAtProvider(env, model, sb1);
  // Paced variant (c=1): the mock waits PACED_DELAY_MS before every frame after the first, like a real model.
  const paced = { reply: { text: PACED_REPLY }, faults: { event_delay_ms: PACED_DELAY_MS } };
  await env.mock.script(`${model}-direct`, Array(PACED_TURNS + 5).fill(paced));
  const directPaced = await sequential(PACED_TURNS, 5, [model], (m) => directTurn(env, m));
  await env.mock.script(model, Array(PACED_TURNS + 5).fill(paced));
  const sbPaced = await sequential(PACED_TURNS, 5, c1Sessions, (s) => switchboardTurn(env, s));
  const direct50 = await concurrent(C50_ROUNDS, Array(50).fill(model), (m) => directTurn(env, m));
  const sb50 = await concurrent(C50_ROUNDS, c50Sessions, (s) => switchboardTurn(env, s));
  const base = await baselines(env, c50Sessions);
  const seconds = (performance.now() - t0) / 1000;

  const rows = [];
  const figures = { seconds: round(seconds, 1) };
  for (const [c, d, s] of [
    ["1", direct1, sb1],
    ["1-paced", directPaced, sbPaced],
    ["50", direct50, sb50],
  ]) {
    const ds = summary(d);
    const ss = summary(s);
    const added50 = round(ss.ttfb_p50_ms - ds.ttfb_p50_ms, 2);
    const added99 = round(ss.ttfb_p99_ms - ds.ttfb_p99_ms, 2);
    rows.push([
      `c=${c}`,
      "direct (mock)",
      ds.n,
      ds.ttfb_p50_ms,
      ds.ttfb_p99_ms,
      ds.headers_p50_ms,
      ds.total_p50_ms,
      "",
      "",
    ]);
    rows.push([
      `c=${c}`,
      "switchboard",
      ss.n,
      ss.ttfb_p50_ms,
      ss.ttfb_p99_ms,
      ss.headers_p50_ms,
      ss.total_p50_ms,
      added50,
      added99,
    ]);
    figures[`c${c.replace("-", "_")}`] = {
      direct: ds,
      switchboard: ss,
      added_ttfb_p50_ms: added50,
      added_ttfb_p99_ms: added99,
    };
  }
  table(
    `1. Time to first model content (ms) — Anthropic protocol, default mock reply (${PROMPT.split(" ").length + 2} deltas)`,
    ["conc", "path", "n", "ttfb p50", "ttfb p99", "headers p50", "turn end p50", "added p50", "added p99"],
    rows,
  );
  table(
    "   Same stack, no model: plain requests (ms)",
    ["request", "c=1 p50", "c=1 p99", "c=50 p50", "c=50 p99"],
    [
      [
        "GET /healthz (wrangler dev proxy + worker)",
        base.healthz_c1.p50_ms,
        base.healthz_c1.p99_ms,
        base.healthz_c50.p50_ms,
        base.healthz_c50.p99_ms,
      ],
      [
        "GET /v1/sessions/{id} (+ auth, D1, DO RPC)",
        base.get_session_c1.p50_ms,
        base.get_session_c1.p99_ms,
        base.get_session_c50.p50_ms,
        base.get_session_c50.p99_ms,
      ],
    ],
  );
  figures.baselines = base;
  if (split) {
    figures.c1.switchboard_split = split;
    console.log(
      `   c=1 switchboard TTFB split at the mock's request log (1 ms clock): client → provider request p50 ${split.to_provider_request_p50_ms} ms, ` +
        `provider request → first text-delta at client p50 ${split.provider_request_to_first_delta_p50_ms} ms`,
    );
  }
  console.log(
    `   c=1-paced: scripted ${PACED_REPLY.split(" ").length}-word reply with event_delay_ms ${PACED_DELAY_MS} (3 frames precede the first delta)`,
  );
  console.log(
    `   added = switchboard − direct at the same percentile; headers = time to response headers; ${round(seconds, 1)} s`,
  );
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) await standalone("ttfb", run);
