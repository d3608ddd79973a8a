// Long sessions with compaction on (README "Long sessions", issue 9): provider request bytes and turn time of a
// session with 10,000 messages of history vs a short session in the same steady state, and vs a fresh session of
// 10 messages; tokens per request saved; what the summary requests cost; context-length 400s per 1,000 turns.
// The mock model emulates a context window of WINDOW tokens (4 bytes each) and answers overflow with the
// providers' real 400 bodies. Figures only; nothing here asserts.
//
//   node bench/compaction.mjs      (or `npm run bench:compaction`)
//
// How the long session gets its history: the worker runs with SWITCHBOARD_DEBUG_SEED=true, and the bench writes
// SEED_CHUNK finished text turns at a time through POST /v1/sessions/{id}/debug/seed (the write path of a real
// turn, without the model), then runs one real turn, which compacts when the view is over the threshold — as the
// turn after those turns would have. The stored history and its compaction records are those of a session that
// grew turn by turn (the seeded turns have the shape of the real ones: the mock's echo of a ~30-word message).
//
// What is compared (the steady state): with compaction on, a session's provider request grows one turn at a time
// up to the threshold, is compacted down to the summary plus the kept turns, and grows again — a sawtooth whose
// shape depends on the window and the turn size, not on how much history lies behind it. So the long session and
// a short one are each measured over CYCLES whole compaction cycles (from the first request after one compaction
// to the last before the next, after a warm-up cycle), turn by turn alternately (fresh sessions' timed turns
// interleaved too, so load on the shared machine hits all alike): "ratio" is long/short of the same statistic. The fresh
// 10-message session is the bottom of the sawtooth before any compaction; the long session's first request after
// a compaction ("floor") is compared with it.
//
// Knobs: BENCH_COMPACTION_MESSAGES (stored messages of the long session, default 10000), BENCH_COMPACTION_WINDOW
// (tokens, default 16000), BENCH_COMPACTION_CYCLES (measured compaction cycles per session, default 2),
// BENCH_COMPACTION_SEED_CHUNK (turns per seeding call, default 20), BENCH_COMPACTION_FRESH (fresh 10-message
// sessions, default 10), BENCH_COMPACTION_WORDS (words per user message, default 30; the reply echoes it).
import { randomUUID } from "node:crypto";
import { log, mean, newSession, pct, performance, round, standalone, table, words } from "./lib.mjs";

const MESSAGES = Number(process.env.BENCH_COMPACTION_MESSAGES ?? 10000);
const WINDOW = Number(process.env.BENCH_COMPACTION_WINDOW ?? 16000);
const CYCLES = Number(process.env.BENCH_COMPACTION_CYCLES ?? 2);
const SEED_CHUNK = Number(process.env.BENCH_COMPACTION_SEED_CHUNK ?? 20);
const FRESH = Number(process.env.BENCH_COMPACTION_FRESH ?? 10);
const WORDS = Number(process.env.BENCH_COMPACTION_WORDS ?? 30);
/** A measured cycle that has not ended after this many turns is cut there (a policy that never compacts). */
const MAX_CYCLE_TURNS = 1000;
const SUMMARY_MARKER = "Summarise the conversation transcript above";
const THRESHOLD = 0.8; // the agent's compaction threshold (the default)

async function agentWithWindow(env, prefix) {
  const model = `${prefix}-${randomUUID().slice(0, 8)}`;
  await env.api.putAgent(model, {
    model: { provider: "anthropic", name: model, context_window: WINDOW },
    system: "You are a benchmark agent.",
    max_steps: 4,
    compaction: { threshold: THRESHOLD },
  });
  await env.mock.contextWindow(model, WINDOW);
  return model;
}

/** The user text of turn `i` (WORDS words); the mock's default brain answers "You said: " + it. */
const userText = (label, i) => `${label} ${i}: ${words(WORDS, i)}`;

/**
 * Counts what the mock saw for a model since the last call, then clears its records (they hold every request
 * body): step requests (bytes), summary requests (input tokens), context-length 400s.
 */
async function drain(env, model, t) {
  const stats = await env.mock.stats(model);
  const records = await env.mock.requests(model);
  await env.mock.reset(model);
  await env.mock.contextWindow(model, WINDOW);
  const steps = [];
  const summaryTokens = [];
  for (const r of records) {
    if (r.raw.includes(SUMMARY_MARKER)) summaryTokens.push(Math.ceil(Buffer.byteLength(r.raw) / 4));
    else if (r.served !== "error") steps.push(Buffer.byteLength(r.raw));
  }
  t.overflow += stats.model?.overflow ?? 0;
  t.summaries += summaryTokens.length;
  t.summaryInputTokens.push(...summaryTokens);
  return { steps, summaries: summaryTokens.length, summaryTokens };
}

function tally() {
  return { turns: 0, failed: 0, overflow: 0, summaries: 0, summaryInputTokens: [] };
}

/** One real JSON-mode turn; returns its time, the step requests' bytes and the summary requests it made. */
async function turn(env, model, session, content, t) {
  const t0 = performance.now();
  const result = await env.api.sendJson(env.key, session, { content });
  const ms = performance.now() - t0;
  t.turns++;
  if (result.status !== "completed") t.failed++;
  const seen = await drain(env, model, t);
  return { ms, ...seen };
}

async function seedCall(env, session, from, n) {
  const turns = Array.from({ length: n }, (_, k) => {
    const user = userText("seed", from + k);
    return { user, assistant: `You said: ${user}` };
  });
  const res = await fetch(`${env.workerUrl}/v1/sessions/${session}/debug/seed`, {
    method: "POST",
    headers: { authorization: `Bearer ${env.key}`, "content-type": "application/json" },
    body: JSON.stringify({ turns }),
  });
  const body = await res.text();
  if (res.status !== 200) {
    throw new Error(`debug seed: ${res.status} ${body} (the worker needs SWITCHBOARD_DEBUG_SEED=true)`);
  }
}

/** Seeds the long session to `messages` stored messages: SEED_CHUNK seeded turns, then one real turn, repeated. */
async function seedLong(env, model, session, messages, t) {
  const t0 = performance.now();
  let stored = 0;
  let i = 0;
  while (stored < messages) {
    const n = Math.max(0, Math.min(SEED_CHUNK, (messages - stored) / 2 - 1));
    if (n > 0) await seedCall(env, session, i, n);
    i += n;
    await turn(env, model, session, userText("seed", i), t);
    i++;
    stored += 2 * (n + 1);
    if (stored % 2000 < 2 * (SEED_CHUNK + 1)) {
      log(`seeding: ${stored}/${messages} messages, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
  }
  return (performance.now() - t0) / 1000;
}

/**
 * A session measured over `cycles` whole compaction cycles, one turn per `step()`: real turns until one compacts
 * (warm-up: the cycle in progress is not measured), then that compacting turn (whose step request is the first
 * after the compaction) and every turn up to the one before the `cycles`-th next compaction. Two of them are
 * stepped alternately, so a load change on the machine hits both alike.
 */
function cycler(env, model, session, label, cycles, t) {
  const st = { samples: [], messages: null, finished: false };
  let i = 0;
  let warm = false;
  let done = 0;
  st.step = async () => {
    const r = await turn(env, model, session, userText(label, i++), t);
    if (!warm) {
      if (r.summaries > 0) {
        warm = true;
        st.samples.push(r);
        // Stored messages when the measured cycles start (the opener's own two included).
        st.messages = (await env.api.ok("GET", `/v1/sessions/${session}`, { key: env.key })).messages;
      } else if (i > MAX_CYCLE_TURNS) st.finished = true;
      return;
    }
    if (r.summaries > 0 && ++done === cycles) {
      st.finished = true;
      return;
    }
    st.samples.push(r);
    if (st.samples.length >= MAX_CYCLE_TURNS * cycles) st.finished = true;
  };
  return st;
}

function stats(samples) {
  const bytes = samples.flatMap((s) => s.steps);
  const ms = samples.map((s) => s.ms);
  const plain = samples.filter((s) => s.summaries === 0).map((s) => s.ms);
  const compacting = samples.filter((s) => s.summaries > 0).map((s) => s.ms);
  const floors = samples.filter((s) => s.summaries > 0).map((s) => s.steps[0]);
  const summaryTokens = samples.flatMap((s) => s.summaryTokens);
  return {
    summary_requests: summaryTokens.length,
    summary_input_tokens: summaryTokens.reduce((a, b) => a + b, 0),
    turns: samples.length,
    compactions: compacting.length,
    bytes_p50: pct(bytes, 50),
    bytes_mean: Math.round(mean(bytes)),
    bytes_max: Math.max(...bytes),
    floor_bytes: floors.length ? pct(floors, 50) : null,
    turn_p50_ms: round(pct(ms, 50), 1),
    turn_p99_ms: round(pct(ms, 99), 1),
    turn_mean_ms: round(mean(ms), 1),
    plain_turn_p50_ms: round(pct(plain, 50), 1),
    compacting_turn_p50_ms: compacting.length ? round(pct(compacting, 50), 1) : null,
  };
}

/** Stored history of a session: messages and bytes of their parts (what a request without compaction carries). */
async function historyBytes(env, session) {
  let after = 0;
  let bytes = 0;
  let count = 0;
  for (;;) {
    const page = await env.api.ok("GET", `/v1/sessions/${session}/messages?after=${after}&limit=1000`, {
      key: env.key,
    });
    for (const m of page.messages) bytes += JSON.stringify(m.parts).length;
    count += page.messages.length;
    if (page.next === null) return { bytes, count };
    after = page.next;
  }
}

export async function run(env) {
  const t0 = performance.now();
  // 1. The long session: seeded to MESSAGES stored messages.
  const longModel = await agentWithWindow(env, "bench-cmp-long");
  const longSession = await newSession(env, longModel);
  const longTally = tally();
  log(`seeding ${MESSAGES} messages (${SEED_CHUNK} seeded turns per real turn), window ${WINDOW} tokens`);
  const seedSeconds = await seedLong(env, longModel, longSession, MESSAGES, longTally);

  // 2. Fresh sessions with 5 real turns each (10 messages); their timed turn runs during the measurement.
  const freshModel = await agentWithWindow(env, "bench-cmp-fresh");
  const freshTally = tally();
  const freshSessions = [];
  for (let s = 0; s < FRESH; s++) {
    const session = await newSession(env, freshModel);
    for (let i = 0; i < 5; i++) await turn(env, freshModel, session, userText("fresh", i), freshTally);
    freshSessions.push(session);
  }

  // 3. The short session (real turns from the start) and the long one, measured turn by turn alternately.
  const shortModel = await agentWithWindow(env, "bench-cmp-short");
  const shortSession = await newSession(env, shortModel);
  const shortTally = tally();
  const shortRun = cycler(env, shortModel, shortSession, "short", CYCLES, shortTally);
  const longRun = cycler(env, longModel, longSession, "long", CYCLES, longTally);
  const fresh = [];
  while (!shortRun.finished || !longRun.finished) {
    if (!shortRun.finished) await shortRun.step();
    if (!longRun.finished) await longRun.step();
    const next = freshSessions[fresh.length];
    if (next) fresh.push(await turn(env, freshModel, next, userText("fresh", 5), freshTally));
  }
  const freshBytes = pct(
    fresh.map((r) => r.steps[0]),
    50,
  );
  const freshMs = round(
    pct(
      fresh.map((r) => r.ms),
      50,
    ),
    1,
  );
  const shortStored = await historyBytes(env, shortSession);
  const longStored = await historyBytes(env, longSession);
  const state = await env.api.ok("GET", `/v1/sessions/${longSession}`, { key: env.key });

  const short = stats(shortRun.samples);
  const long = stats(longRun.samples);
  const realTurns = freshTally.turns + shortTally.turns + longTally.turns;
  const overflow = freshTally.overflow + shortTally.overflow + longTally.overflow;
  const failed = freshTally.failed + shortTally.failed + longTally.failed;
  const summaryTokens = [...shortTally.summaryInputTokens, ...longTally.summaryInputTokens];
  const summaryRequests = shortTally.summaries + longTally.summaries;
  const ratio = (a, b) => (a && b ? round(a / b, 2) : null);
  const figures = {
    window_tokens: WINDOW,
    threshold: THRESHOLD,
    bound_bytes: WINDOW * THRESHOLD * 4,
    fresh_messages: 10,
    fresh_request_bytes_p50: freshBytes,
    fresh_turn_p50_ms: freshMs,
    short_messages_at_start: shortRun.messages,
    short_messages_at_end: shortStored.count,
    long_messages_at_start: longRun.messages,
    long_messages_at_end: longStored.count,
    seed_seconds: round(seedSeconds, 1),
    short,
    long,
    request_bytes_ratio_p50: ratio(long.bytes_p50, short.bytes_p50),
    request_bytes_ratio_mean: ratio(long.bytes_mean, short.bytes_mean),
    request_bytes_ratio_max: ratio(long.bytes_max, short.bytes_max),
    turn_time_ratio_p50: ratio(long.turn_p50_ms, short.turn_p50_ms),
    floor_vs_fresh_ratio: ratio(long.floor_bytes, freshBytes),
    long_vs_fresh_ratio_p50: ratio(long.bytes_p50, freshBytes),
    long_max_vs_bound: ratio(long.bytes_max, WINDOW * THRESHOLD * 4),
    stored_history_tokens: Math.ceil(longStored.bytes / 4),
    long_request_tokens_mean: Math.ceil(long.bytes_mean / 4),
    tokens_saved_per_request: Math.max(0, Math.ceil((longStored.bytes - long.bytes_mean) / 4)),
    compactions_long_session: state.context?.compactions ?? null,
    summary_requests: summaryRequests,
    summary_requests_per_compaction: long.compactions ? round(long.summary_requests / long.compactions, 2) : null,
    summary_input_tokens_p50: summaryTokens.length ? pct(summaryTokens, 50) : null,
    // Steady state of the long session: what summarising costs per 1,000 turns, and per turn vs its requests.
    summary_input_tokens_per_1000_turns: long.turns
      ? Math.round((long.summary_input_tokens / long.turns) * 1000)
      : null,
    summary_share_of_input_tokens: long.turns
      ? round(long.summary_input_tokens / (long.summary_input_tokens + (long.bytes_mean / 4) * long.turns), 3)
      : null,
    real_turns: realTurns,
    overflow_400s_per_1000_turns: round((overflow / realTurns) * 1000, 2),
    failed_turns: failed,
    total_seconds: round((performance.now() - t0) / 1000, 1),
  };
  const row = (name, msgs, s) => [
    name,
    msgs,
    s.turns,
    s.compactions,
    s.bytes_p50,
    s.bytes_mean,
    s.bytes_max,
    s.floor_bytes,
    s.turn_p50_ms,
    s.turn_p99_ms,
    s.compacting_turn_p50_ms,
  ];
  table(
    `Compaction: provider request bytes and turn time over ${CYCLES} whole compaction cycles (window ${WINDOW} tokens, threshold ${THRESHOLD}; JSON mode, echoing mock)`,
    [
      "session",
      "messages",
      "turns",
      "compactions",
      "req B p50",
      "req B mean",
      "req B max",
      "floor B",
      "turn p50 ms",
      "turn p99 ms",
      "compacting turn p50 ms",
    ],
    [
      ["fresh (no compaction yet)", 10, FRESH, 0, freshBytes, freshBytes, null, null, freshMs, null, null],
      row("short, steady state", `${figures.short_messages_at_start}-${figures.short_messages_at_end}`, short),
      row("long, steady state", `${figures.long_messages_at_start}-${figures.long_messages_at_end}`, long),
      [
        "ratio long/short",
        null,
        null,
        null,
        figures.request_bytes_ratio_p50,
        figures.request_bytes_ratio_mean,
        figures.request_bytes_ratio_max,
        ratio(long.floor_bytes, short.floor_bytes),
        figures.turn_time_ratio_p50,
        ratio(long.turn_p99_ms, short.turn_p99_ms),
        ratio(long.compacting_turn_p50_ms, short.compacting_turn_p50_ms),
      ],
    ],
  );
  console.log(
    `   bound: threshold x window = ${figures.bound_bytes} bytes; long max / bound ${figures.long_max_vs_bound}; ` +
      `long floor / fresh 10-message request ${figures.floor_vs_fresh_ratio}; long p50 / fresh ${figures.long_vs_fresh_ratio_p50}\n` +
      `   long request ~${figures.long_request_tokens_mean} tokens (mean) vs ${figures.stored_history_tokens} stored: ` +
      `${figures.tokens_saved_per_request} tokens saved per request; ${figures.compactions_long_session} compactions stored\n` +
      `   summary requests: ${figures.summary_requests} (${figures.summary_requests_per_compaction} per compaction, ` +
      `p50 ${figures.summary_input_tokens_p50} input tokens; ${figures.summary_input_tokens_per_1000_turns} summary input tokens ` +
      `per 1,000 turns in steady state = ${figures.summary_share_of_input_tokens} of all input tokens)\n` +
      `   ${figures.overflow_400s_per_1000_turns} overflow 400s per 1,000 turns (${realTurns} real turns); ${failed} failed turns; ` +
      `seeding ${figures.seed_seconds} s, total ${figures.total_seconds} s`,
  );
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await standalone("compaction", run, { SWITCHBOARD_DEBUG_SEED: "true" });
}
