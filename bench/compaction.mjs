// Long sessions with compaction on (README "Long sessions"): provider request bytes and turn time at 10 vs
// ~10,000 messages of history, tokens per request saved, what the summary requests cost, and how many context-
// length 400s the provider answered. The mock model emulates a context window of WINDOW tokens (4 bytes each) and
// answers overflow with the providers' real 400 bodies. Figures only; nothing here asserts.
//
//   node bench/compaction.mjs      (or `npm run bench:compaction`)
//
// Knobs: BENCH_COMPACTION_TURNS (seeded turns of the big session, default 5000 = 10,000 messages),
// BENCH_COMPACTION_SEED_BUDGET_S (seeding stops after this many seconds, default 300), BENCH_COMPACTION_MEASURE
// (timed turns per size, default 20), BENCH_COMPACTION_WINDOW (tokens, default 16000).
import { randomUUID } from "node:crypto";
import { log, newSession, pct, performance, round, standalone, table, words } from "./lib.mjs";

const TURNS = Number(process.env.BENCH_COMPACTION_TURNS ?? 5000);
const SEED_BUDGET_S = Number(process.env.BENCH_COMPACTION_SEED_BUDGET_S ?? 300);
const MEASURE = Number(process.env.BENCH_COMPACTION_MEASURE ?? 20);
const WINDOW = Number(process.env.BENCH_COMPACTION_WINDOW ?? 16000);
const BATCH = 100;
const SUMMARY_MARKER = "Summarise the conversation transcript above";

async function agentWithWindow(env, prefix) {
  const model = `${prefix}-${randomUUID().slice(0, 8)}`;
  await env.api.putAgent(model, {
    model: { provider: "anthropic", name: model, context_window: WINDOW },
    system: "You are a benchmark agent.",
    max_steps: 4,
  });
  await env.mock.contextWindow(model, WINDOW);
  return model;
}

async function turn(env, session, content) {
  const t0 = performance.now();
  const result = await env.api.sendJson(env.key, session, { content });
  return { ms: performance.now() - t0, status: result.status };
}

/** Per-model totals gathered batch by batch (the mock forgets its records at each batch reset). */
function tally() {
  return { turns: 0, failed: 0, overflow: 0, summaries: 0, summaryInputTokens: [], stepRequests: 0 };
}

async function collect(env, model, t) {
  const stats = await env.mock.stats(model);
  t.overflow += stats.model?.overflow ?? 0;
  t.summaries += stats.model?.summaries ?? 0;
  for (const r of await env.mock.requests(model)) {
    if (r.raw.includes(SUMMARY_MARKER)) t.summaryInputTokens.push(Math.ceil(r.raw.length / 4));
    else if (r.served !== "error") t.stepRequests++;
  }
  await env.mock.reset(model);
  await env.mock.contextWindow(model, WINDOW);
}

async function seed(env, model, session, turns, budgetS, t) {
  const t0 = performance.now();
  let done = 0;
  while (done < turns) {
    const n = Math.min(BATCH, turns - done);
    for (let i = 0; i < n; i++) {
      // ~30 words per user message; the mock's default brain echoes it back.
      const r = await turn(env, session, `seed ${done + i}: ${words(30, done + i)}`);
      t.turns++;
      if (r.status !== "completed") t.failed++;
    }
    done += n;
    await collect(env, model, t);
    const elapsed = (performance.now() - t0) / 1000;
    if (done % 1000 === 0) log(`seeding: ${done}/${turns} turns, ${elapsed.toFixed(1)} s`);
    if (elapsed > budgetS && done < turns) {
      log(`seeding: budget of ${budgetS} s reached at ${done} turns`);
      break;
    }
  }
  return { turns: done, seconds: (performance.now() - t0) / 1000 };
}

/** Stored history of a session in bytes of message parts (what a request without compaction would carry). */
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

async function timed(env, model, session, label) {
  const ms = [];
  for (let i = 0; i < MEASURE; i++) ms.push((await turn(env, session, `${label} ${i}: ${words(30, 9000 + i)}`)).ms);
  const bytes = (await env.mock.requests(model))
    .filter((r) => !r.raw.includes(SUMMARY_MARKER) && r.served !== "error")
    .map((r) => Buffer.byteLength(r.raw));
  return { ms, bytes };
}

export async function run(env, opts = {}) {
  const budgetS = opts.seedBudgetS ?? SEED_BUDGET_S;
  const smallModel = await agentWithWindow(env, "bench-cmp-small");
  const bigModel = await agentWithWindow(env, "bench-cmp-big");
  const smallSession = await newSession(env, smallModel);
  const smallTally = tally();
  await seed(env, smallModel, smallSession, 5, Infinity, smallTally);
  const bigSession = await newSession(env, bigModel);
  const bigTally = tally();
  log(`seeding ${TURNS} turns (${TURNS * 2} messages), window ${WINDOW} tokens, budget ${budgetS} s`);
  const seeded = await seed(env, bigModel, bigSession, TURNS, budgetS, bigTally);

  const small = await timed(env, smallModel, smallSession, "timed");
  const big = await timed(env, bigModel, bigSession, "timed");
  await collect(env, bigModel, bigTally);
  const stored = await historyBytes(env, bigSession);
  const state = await env.api.ok("GET", `/v1/sessions/${bigSession}`, { key: env.key });

  const smallBytes = pct(small.bytes, 50);
  const bigBytes = pct(big.bytes, 50);
  const turnsAll = bigTally.turns + MEASURE;
  const figures = {
    window_tokens: WINDOW,
    small_messages: 10,
    big_messages: stored.count,
    seed_seconds: round(seeded.seconds, 1),
    small_request_bytes_p50: smallBytes,
    big_request_bytes_p50: bigBytes,
    big_request_tokens_p50: Math.ceil(bigBytes / 4),
    request_bytes_ratio: round(bigBytes / smallBytes, 2),
    small_turn_p50_ms: round(pct(small.ms, 50), 2),
    big_turn_p50_ms: round(pct(big.ms, 50), 2),
    turn_time_ratio_p50: round(pct(big.ms, 50) / pct(small.ms, 50), 2),
    stored_history_tokens: Math.ceil(stored.bytes / 4),
    tokens_saved_per_request: Math.max(0, Math.ceil((stored.bytes - bigBytes) / 4)),
    compactions: state.context?.compactions ?? null,
    summary_requests: bigTally.summaries,
    summary_input_tokens_p50: bigTally.summaryInputTokens.length ? pct(bigTally.summaryInputTokens, 50) : null,
    summary_input_tokens_per_1000_turns: Math.round(
      (bigTally.summaryInputTokens.reduce((a, b) => a + b, 0) / turnsAll) * 1000,
    ),
    overflow_400s_per_1000_turns: round((bigTally.overflow / turnsAll) * 1000, 2),
    failed_turns: bigTally.failed,
  };
  table(
    "Compaction: request size and turn time vs history length (JSON mode, echoing mock, compaction on)",
    ["history", "request bytes p50", "turn p50 ms"],
    [
      ["10 messages", smallBytes, figures.small_turn_p50_ms],
      [`${stored.count} messages`, bigBytes, figures.big_turn_p50_ms],
      ["ratio big/small", figures.request_bytes_ratio, figures.turn_time_ratio_p50],
    ],
  );
  console.log(
    `   window ${WINDOW} tokens; big request ~${figures.big_request_tokens_p50} tokens vs ${figures.stored_history_tokens} ` +
      `stored (${figures.tokens_saved_per_request} saved per request); ${figures.compactions} compactions, ` +
      `${figures.summary_requests} summary requests (p50 ${figures.summary_input_tokens_p50} input tokens, ` +
      `${figures.summary_input_tokens_per_1000_turns} per 1,000 turns); ` +
      `${figures.overflow_400s_per_1000_turns} overflow 400s per 1,000 turns; ${figures.failed_turns} failed turns`,
  );
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) await standalone("compaction", run);
