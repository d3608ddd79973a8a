// Bench — the turn path (issue 10). Printed, never asserted.
//
// 1. Added time to the first text delta (Switchboard − the mock called directly, same percentile) at
//    concurrency 1 and 20, with D1 as it is and again after a restart with every D1 call delayed by 50 ms
//    (SWITCHBOARD_DEBUG_D1_DELAY_MS: a primary in another region). A turn that read D1 would pay 50 ms per
//    statement; the steady-state turn reads none, so the two rows should barely differ.
// 2. Storage work per request from the debug counters (on in the delayed run): D1 statements per steady-state
//    turn and for the first turn of a cold isolate; SQLite statements and rows written per one-step text turn
//    (JSON mode: the whole turn) and per tool step (a turn with one http tool call minus a text turn).
import { makeAgent, newSession, round, standalone, table, weatherToolAgent } from "./lib.mjs";
import { concurrent, directTurn, sequential, summary, switchboardTurn } from "./ttfb.mjs";

const C1_TURNS = Number(process.env.BENCH_TURNPATH_C1 ?? 100);
const C20_ROUNDS = Number(process.env.BENCH_TURNPATH_ROUNDS ?? 5);
const C1_SESSIONS = 10;
const WARMUP_C1 = 10;
const DELAY_MS = 50;

function pair(direct, through) {
  const d = summary(direct);
  const s = summary(through);
  const d1 = through.map((t) => t.d1).filter((n) => n !== null);
  return {
    direct: d,
    switchboard: s,
    added_ttfb_p50_ms: round(s.ttfb_p50_ms - d.ttfb_p50_ms, 2),
    added_ttfb_p99_ms: round(s.ttfb_p99_ms - d.ttfb_p99_ms, 2),
    d1_statements_max: d1.length ? Math.max(...d1) : null,
    d1_statements_total: d1.length ? d1.reduce((a, b) => a + b, 0) : null,
  };
}

async function ttfbRows(env, model, c1Sessions, c20Sessions) {
  const direct1 = await sequential(C1_TURNS, WARMUP_C1, [model], (m) => directTurn(env, m));
  const sb1 = await sequential(C1_TURNS, WARMUP_C1, c1Sessions, (s) => switchboardTurn(env, s));
  const direct20 = await concurrent(C20_ROUNDS, Array(20).fill(model), (m) => directTurn(env, m));
  const sb20 = await concurrent(C20_ROUNDS, c20Sessions, (s) => switchboardTurn(env, s));
  return { c1: pair(direct1, sb1), c20: pair(direct20, sb20) };
}

/** Debug counters of one JSON-mode turn (the whole turn's SQLite work). */
async function countedTurn(env, sessionId, content) {
  const res = await env.api.send(env.key, sessionId, { content }, { json: true });
  const body = await res.json();
  if (!res.ok || body.status !== "completed") throw new Error(`counted turn: ${res.status} ${JSON.stringify(body)}`);
  const n = (h) => Number(res.headers.get(h));
  return {
    d1: n("x-debug-d1-statements"),
    sql_statements: n("x-debug-sql-statements"),
    sql_rows_written: n("x-debug-sql-rows-written"),
  };
}

async function storageCounts(env, textAgent) {
  // A text turn: the second turn of a fresh session (the first turn of a session is the same work); its end
  // schedules the retention sweep for the first turn's stream log, once per session.
  const textSession = await newSession(env, textAgent);
  await countedTurn(env, textSession, "warm up");
  const text = await countedTurn(env, textSession, "count this turn");
  // From the third on a turn's end leaves the sweep job as it is; the third's start still reads the earliest due
  // job once (the second's end moved the sweep job), so the fourth is the steady state.
  await countedTurn(env, textSession, "third");
  const steady = await countedTurn(env, textSession, "fourth");
  // The fifth also sweeps the stream-log row of the turn it pushes out of replay.
  const swept = await countedTurn(env, textSession, "fifth");
  // A tool step: one http tool call (served by the mock) then text, minus a text turn.
  const toolModel = `bench-tool-${Date.now().toString(36)}`;
  await env.api.putAgent(toolModel, weatherToolAgent(toolModel, env.mockUrl));
  const toolSession = await newSession(env, toolModel);
  await env.mock.script(toolModel, [
    { reply: { text: "warm" } },
    { reply: { text: "warm again" } },
    { reply: { text: "warm a third time" } },
    { reply: { text: "plain" } },
    { reply: { tool_calls: [{ name: "get_weather", input: { city: "Paris" } }] } },
    { reply: { text: "It is sunny." } },
  ]);
  // Both compared turns are steady-state ones that push an old stream log out of replay (the fourth and the
  // fifth), so the difference is the tool step's.
  await countedTurn(env, toolSession, "warm up");
  await countedTurn(env, toolSession, "warm up again");
  await countedTurn(env, toolSession, "warm up a third time");
  const plain = await countedTurn(env, toolSession, "plain text");
  const tool = await countedTurn(env, toolSession, "weather in Paris?");
  return {
    text_turn: text,
    text_turn_steady: steady,
    text_turn_with_sweep: swept,
    tool_turn: tool,
    per_tool_step: {
      sql_statements: tool.sql_statements - plain.sql_statements,
      sql_rows_written: tool.sql_rows_written - plain.sql_rows_written,
    },
  };
}

export async function run(env) {
  const { agent, model } = await makeAgent(env, "bench-turnpath");
  const c1Sessions = [];
  for (let i = 0; i < C1_SESSIONS; i++) c1Sessions.push(await newSession(env, agent));
  const c20Sessions = await Promise.all(Array.from({ length: 20 }, () => newSession(env, agent)));

  const plain = await ttfbRows(env, model, c1Sessions, c20Sessions);
  await env.restartWorker({ SWITCHBOARD_DEBUG_D1_DELAY_MS: String(DELAY_MS) });
  // The first turn of a cold isolate: its key and the agent-config epoch are not cached yet.
  const cold = await switchboardTurn(env, c1Sessions[0]);
  const delayed = await ttfbRows(env, model, c1Sessions, c20Sessions);
  const counts = await storageCounts(env, agent);
  await env.restartWorker();

  const rows = [];
  for (const [label, r] of [
    ["D1 as is", plain],
    [`D1 +${DELAY_MS} ms per call`, delayed],
  ]) {
    for (const c of ["c1", "c20"]) {
      const x = r[c];
      rows.push([
        label,
        c === "c1" ? "1" : "20",
        x.switchboard.n,
        x.direct.ttfb_p50_ms,
        x.direct.ttfb_p99_ms,
        x.switchboard.ttfb_p50_ms,
        x.switchboard.ttfb_p99_ms,
        x.added_ttfb_p50_ms,
        x.added_ttfb_p99_ms,
        x.d1_statements_max,
      ]);
    }
  }
  table(
    "Turn path — time to the first text delta (ms), Anthropic protocol, default mock reply",
    [
      "D1",
      "conc",
      "n",
      "direct p50",
      "direct p99",
      "through p50",
      "through p99",
      "added p50",
      "added p99",
      "D1 stmts/turn (max)",
    ],
    rows,
  );
  console.log(
    `   first turn of a cold isolate with D1 +${DELAY_MS} ms: ${cold.d1} D1 statements, first delta at ${round(cold.ttfb, 1)} ms`,
  );
  table(
    "Turn path — storage work per turn (debug counters, JSON mode = the whole turn)",
    ["turn", "D1 statements", "SQLite statements", "SQLite rows written"],
    [
      [
        "one-step text turn (a session's second)",
        counts.text_turn.d1,
        counts.text_turn.sql_statements,
        counts.text_turn.sql_rows_written,
      ],
      [
        "one-step text turn (the fourth: steady state)",
        counts.text_turn_steady.d1,
        counts.text_turn_steady.sql_statements,
        counts.text_turn_steady.sql_rows_written,
      ],
      [
        "… the fifth, which also sweeps an old stream log",
        counts.text_turn_with_sweep.d1,
        counts.text_turn_with_sweep.sql_statements,
        counts.text_turn_with_sweep.sql_rows_written,
      ],
      [
        "tool turn (1 http tool step + text)",
        counts.tool_turn.d1,
        counts.tool_turn.sql_statements,
        counts.tool_turn.sql_rows_written,
      ],
      ["per tool step (difference)", "", counts.per_tool_step.sql_statements, counts.per_tool_step.sql_rows_written],
    ],
  );
  return { plain, delayed, cold_isolate_first_turn: { d1: cold.d1, ttfb_ms: round(cold.ttfb, 2) }, counts };
}

if (import.meta.url === `file://${process.argv[1]}`) await standalone("turn-path", run);
