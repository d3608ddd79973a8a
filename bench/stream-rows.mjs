// Bench 3 — SQLite stream-log rows written per streamed token.
//
// Each turn gets a scripted reply of N words; the mock streams it as one Anthropic text_delta per word, with
// `event_delay_ms` between frames. Every config runs once in JSON mode (gives usage.output_tokens) and once in
// SSE mode (gives the frames a client actually receives: one SSE frame per stream-log row). The row count is
// `stream_rows` of the turn's `turn_finished` event (GET /v1/sessions/{id}/events).
import { makeAgent, newSession, performance, round, standalone, table, words } from "./lib.mjs";

const CONFIGS = [
  { words: 300, delay: 0 },
  { words: 1000, delay: 0 },
  { words: 300, delay: 5 },
  { words: 1000, delay: 5 },
  { words: 200, delay: 20 },
];

async function turnFinished(env, sessionId, turnId) {
  for (let attempt = 0; attempt < 20; attempt++) {
    const { events } = await env.api.events(env.key, sessionId);
    const ev = events.find((e) => e.type === "turn_finished" && (turnId === null || e.turn_id === turnId));
    if (ev) return ev;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no turn_finished event for turn ${turnId} in session ${sessionId}`);
}

async function oneTurn(env, model, agent, cfg, mode) {
  const sessionId = await newSession(env, agent);
  const text = words(cfg.words);
  await env.mock.script(model, [{ reply: { text }, faults: { event_delay_ms: cfg.delay } }]);
  const t0 = performance.now();
  const out = { mode, words: cfg.words, delay: cfg.delay, deltas: cfg.words, chars: text.length };
  let turnId;
  if (mode === "json") {
    const result = await env.api.sendJson(env.key, sessionId, { content: "write a long answer" });
    if (result.status !== "completed") throw new Error(`turn ${result.status}: ${JSON.stringify(result.error)}`);
    turnId = result.turn_id;
    out.output_tokens = result.usage?.output_tokens ?? null;
  } else {
    const read = await env.api.sendSse(env.key, sessionId, { content: "write a long answer" });
    const frames = read.frames.filter((f) => f.data !== "[DONE]");
    out.sse_frames = frames.length;
    out.sse_text_delta_frames = frames.filter((f) => f.json?.type === "text-delta").length;
    const turnFrame = frames.find((f) => f.json?.type === "data-turn");
    turnId = turnFrame?.json?.data?.turn_id ?? null;
  }
  out.ms = performance.now() - t0;
  const ev = await turnFinished(env, sessionId, turnId);
  out.stream_rows = ev.data.stream_rows;
  out.text_chars = ev.data.text_chars;
  return out;
}

const ratio = (a, b) => (b ? a / b : null);

export async function run(env) {
  const { agent, model } = await makeAgent(env, "bench-rows");
  const t0 = performance.now();
  const turns = [];
  for (const cfg of CONFIGS) {
    for (const mode of ["json", "sse"]) turns.push(await oneTurn(env, model, agent, cfg, mode));
  }
  const seconds = (performance.now() - t0) / 1000;

  const rows = turns.map((t) => [
    t.mode,
    t.words,
    t.delay,
    t.deltas,
    t.mode === "json" ? t.output_tokens : "",
    t.stream_rows,
    t.mode === "sse" ? t.sse_frames : "",
    t.mode === "sse" ? t.sse_text_delta_frames : "",
    t.mode === "json" ? round(ratio(t.stream_rows, t.output_tokens), 4) : "",
    round(ratio(t.stream_rows, t.deltas), 4),
    round(t.ms, 0),
  ]);
  table(
    "3. Stream-log rows per streamed token (scripted replies, one mock delta per word)",
    [
      "mode",
      "words",
      "delay ms",
      "deltas",
      "out tokens",
      "stream_rows",
      "sse frames",
      "text-delta frames",
      "rows/token",
      "rows/delta",
      "turn ms",
    ],
    rows,
  );

  const sum = (list, f) => list.reduce((a, t) => a + (f(t) ?? 0), 0);
  const json = turns.filter((t) => t.mode === "json");
  const sse = turns.filter((t) => t.mode === "sse");
  const byDelay = {};
  for (const d of [...new Set(CONFIGS.map((c) => c.delay))]) {
    const j = json.filter((t) => t.delay === d);
    const all = turns.filter((t) => t.delay === d);
    byDelay[`delay_${d}ms`] = {
      rows_per_token: round(
        ratio(
          sum(j, (t) => t.stream_rows),
          sum(j, (t) => t.output_tokens),
        ),
        4,
      ),
      rows_per_delta: round(
        ratio(
          sum(all, (t) => t.stream_rows),
          sum(all, (t) => t.deltas),
        ),
        4,
      ),
      rows_per_turn: round(sum(all, (t) => t.stream_rows) / all.length, 1),
    };
  }
  const figures = {
    turns: turns.length,
    seconds: round(seconds, 1),
    rows_per_token: round(
      ratio(
        sum(json, (t) => t.stream_rows),
        sum(json, (t) => t.output_tokens),
      ),
      4,
    ),
    rows_per_delta: round(
      ratio(
        sum(turns, (t) => t.stream_rows),
        sum(turns, (t) => t.deltas),
      ),
      4,
    ),
    rows_per_turn_mean: round(sum(turns, (t) => t.stream_rows) / turns.length, 1),
    tokens_per_delta: round(
      ratio(
        sum(json, (t) => t.output_tokens),
        sum(json, (t) => t.deltas),
      ),
      3,
    ),
    sse_frames_minus_stream_rows: sum(sse, (t) => t.sse_frames - t.stream_rows) / (sse.length || 1),
    by_delay: byDelay,
    per_turn: turns.map((t) => ({ ...t, ms: round(t.ms, 1) })),
  };
  table(
    "   Totals",
    ["scope", "rows/token", "rows/delta", "rows/turn"],
    [
      ["all turns", figures.rows_per_token, figures.rows_per_delta, figures.rows_per_turn_mean],
      ...Object.entries(byDelay).map(([k, v]) => [k, v.rows_per_token, v.rows_per_delta, v.rows_per_turn]),
    ],
  );
  console.log(
    `   rows/token uses usage.output_tokens of the JSON turns (the mock counts ~4 chars/token: ${figures.tokens_per_delta} tokens/delta); ` +
      `SSE turns: frames received − stream_rows = ${figures.sse_frames_minus_stream_rows} per turn; ${figures.seconds} s`,
  );
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) await standalone("stream-rows", run);
