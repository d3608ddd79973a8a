// Bench 2 — turn time vs history length.
//
// A "turn" here: POST /v1/sessions/{id}/messages with Accept: application/json and a scripted 1-word reply,
// timed from send to the parsed JSON answer. Small sessions hold 10 messages (5 seeded turns; one timed turn
// per session so every timed turn sees exactly 10 prior messages); the big session holds 10,000 messages
// (5,000 seeded turns, seeded through the public API as fast as it answers). Timed turns alternate
// small/big. The mock's request log gives the provider request size and when the provider request arrived.
import { epochMs, log, makeAgent, newSession, pct, performance, round, standalone, table } from "./lib.mjs";

const BIG_TURNS = Number(process.env.BENCH_HISTORY_TURNS ?? 5000);
const SMALL_TURNS = 5;
const MEASURE = Number(process.env.BENCH_HISTORY_MEASURE ?? 20);
/**
 * Seeding stops after this many seconds even if BIG_TURNS is not reached (the size reached is then measured and
 * reported, with a projection of the full seeding time). Run on its own the bench seeds all 10,000 messages;
 * bench/run.mjs passes what is left of its overall budget instead.
 */
const SEED_BUDGET_S = Number(process.env.BENCH_HISTORY_SEED_BUDGET_S ?? 420);
const BATCH = 100;
const OK = { reply: { text: "ok" } };

/** One JSON-mode turn; returns ms and the turn result. */
async function timedTurn(env, sessionId, content) {
  const sentAt = epochMs();
  const t0 = performance.now();
  const result = await env.api.sendJson(env.key, sessionId, { content });
  const ms = performance.now() - t0;
  if (result.status !== "completed") throw new Error(`turn ${result.status}: ${JSON.stringify(result.error)}`);
  return { ms, sentAt };
}

/**
 * Seeds `turns` turns into one session, in batches: each batch resets the mock's records for the model (they
 * hold every request body, which grows with the history) and queues one "ok" reply per turn.
 */
async function seed(env, model, sessionId, turns, { budgetS = Infinity, progress = false } = {}) {
  const t0 = performance.now();
  const rates = [];
  let done = 0;
  while (done < turns) {
    const n = Math.min(BATCH, turns - done);
    await env.mock.reset(model);
    await env.mock.script(model, Array(n).fill(OK));
    const tb = performance.now();
    for (let i = 0; i < n; i++) await timedTurn(env, sessionId, `seed message ${done + i}`);
    done += n;
    rates.push({ at_messages: done * 2, ms_per_turn: (performance.now() - tb) / n });
    const elapsed = (performance.now() - t0) / 1000;
    if (progress && (done % 500 === 0 || done === turns)) {
      log(
        `seeding: ${done}/${turns} turns (${done * 2} messages), ${elapsed.toFixed(1)} s, ` +
          `last batch ${rates.at(-1).ms_per_turn.toFixed(1)} ms/turn`,
      );
    }
    if (elapsed > budgetS && done < turns) {
      log(`seeding: time budget of ${budgetS} s reached at ${done} turns; measuring at ${done * 2} messages`);
      break;
    }
  }
  await env.mock.reset(model);
  return { turns: done, seconds: (performance.now() - t0) / 1000, rates };
}

/** `opts.seedBudgetS` caps the big session's seeding time (default BENCH_HISTORY_SEED_BUDGET_S or 420 s). */
export async function run(env, opts = {}) {
  const budgetS = opts.seedBudgetS ?? SEED_BUDGET_S;
  const small = await makeAgent(env, "bench-hist-small");
  const big = await makeAgent(env, "bench-hist-big");

  // Small sessions: MEASURE sessions × 5 seeded turns (10 messages each).
  const smallSessions = [];
  for (let i = 0; i < MEASURE; i++) {
    const id = await newSession(env, small.agent);
    await seed(env, small.model, id, SMALL_TURNS);
    smallSessions.push(id);
  }

  // Big session: 5,000 turns (10,000 messages), within the seeding budget.
  const bigSession = await newSession(env, big.agent);
  log(`seeding ${BIG_TURNS} turns (${BIG_TURNS * 2} messages) into one session, budget ${Math.round(budgetS)} s`);
  const seeded = await seed(env, big.model, bigSession, BIG_TURNS, { budgetS, progress: true });
  const bigMessages = seeded.turns * 2;

  // Timed turns, alternating small/big.
  await env.mock.script(small.model, Array(MEASURE).fill(OK));
  await env.mock.script(big.model, Array(MEASURE).fill(OK));
  const smallMs = [];
  const bigSamples = [];
  for (let i = 0; i < MEASURE; i++) {
    smallMs.push((await timedTurn(env, smallSessions[i], `timed message ${i}`)).ms);
    bigSamples.push(await timedTurn(env, bigSession, `timed message ${i}`));
  }
  const bigMs = bigSamples.map((s) => s.ms);

  // Where the big turn's time goes: provider request size, and when the mock logged it.
  const records = (await env.mock.requests(big.model)).slice(-MEASURE);
  await env.mock.reset(big.model);
  const requestBytes = records.map((r) => Buffer.byteLength(r.raw));
  const toProvider = records.length === MEASURE ? records.map((r, i) => r.at_ms - bigSamples[i].sentAt) : [];
  // The mock's own cost for such a request: the same body posted to it directly (non-streaming, default brain).
  let mockDirectMs = null;
  if (records.length > 0) {
    const body = JSON.parse(records.at(-1).raw);
    body.stream = false;
    body.model = `${big.model}-direct`;
    const raw = JSON.stringify(body);
    const times = [];
    for (let i = 0; i < 6; i++) {
      const t0 = performance.now();
      const res = await fetch(`${env.mockUrl}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": "k", "anthropic-version": "2023-06-01" },
        body: raw,
      });
      await res.text();
      if (i > 0) times.push(performance.now() - t0);
    }
    await env.mock.reset(`${big.model}-direct`);
    mockDirectMs = pct(times, 50);
  }

  // Seeding doubles as a coarse curve: ms per turn of the 100-turn batch ending at each size.
  const curve = seeded.rates
    .filter((r) => r.at_messages % 1000 === 0 || r === seeded.rates.at(-1))
    .map((r) => ({ messages: r.at_messages, ms_per_turn: round(r.ms_per_turn, 1) }));
  // When seeding was cut short: a linear fit of ms/turn over history size, extrapolated to BIG_TURNS.
  let projectedSeedS = null;
  if (seeded.turns < BIG_TURNS && seeded.rates.length >= 3) {
    const xs = seeded.rates.map((r) => r.at_messages);
    const ys = seeded.rates.map((r) => r.ms_per_turn);
    const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
    const my = ys.reduce((a, b) => a + b, 0) / ys.length;
    const slope = xs.reduce((a, x, i) => a + (x - mx) * (ys[i] - my), 0) / xs.reduce((a, x) => a + (x - mx) ** 2, 0);
    let rest = 0;
    for (let t = seeded.turns; t < BIG_TURNS; t += BATCH) rest += (my + slope * ((t + BATCH) * 2 - mx)) * BATCH;
    projectedSeedS = seeded.seconds + rest / 1000;
  }

  // Cold: restart workerd on the same state, so each session's Durable Object wakes up and loads its history.
  // One turn on a small session first (it also warms the worker isolate), then one on the big session.
  let cold = null;
  if (opts.cold !== false) {
    await env.restartWorker();
    await env.mock.script(small.model, [OK, OK]);
    await env.mock.script(big.model, [OK]);
    const warmIsolate = await timedTurn(env, smallSessions[0], "cold message");
    const smallCold = await timedTurn(env, smallSessions[1], "cold message");
    const bigCold = await timedTurn(env, bigSession, "cold message");
    await env.mock.reset(big.model);
    cold = {
      first_turn_after_restart_ms: round(warmIsolate.ms, 1),
      small_ms: round(smallCold.ms, 1),
      big_ms: round(bigCold.ms, 1),
    };
  }

  const smallP50 = pct(smallMs, 50);
  const bigP50 = pct(bigMs, 50);
  const early = seeded.rates.slice(0, 3);
  const late = seeded.rates.slice(-3);
  const avg = (a) => a.reduce((x, r) => x + r.ms_per_turn, 0) / a.length;
  const figures = {
    small_messages: SMALL_TURNS * 2,
    big_messages: bigMessages,
    big_messages_target: BIG_TURNS * 2,
    seed_budget_s: round(budgetS, 0),
    turns_measured: MEASURE,
    small_p50_ms: round(smallP50, 2),
    small_p99_ms: round(pct(smallMs, 99), 2),
    big_p50_ms: round(bigP50, 2),
    big_p99_ms: round(pct(bigMs, 99), 2),
    ratio_p50: round(bigP50 / smallP50, 2),
    seed_seconds: round(seeded.seconds, 1),
    seed_turns: seeded.turns,
    seed_ms_per_turn_first_300: round(avg(early), 2),
    seed_ms_per_turn_last_300: round(avg(late), 2),
    seed_projected_seconds_full: round(projectedSeedS, 0),
    seed_curve: curve,
    cold_do: cold,
    big_request_bytes_p50: pct(requestBytes, 50),
    big_to_provider_request_p50_ms: toProvider.length ? pct(toProvider, 50) : null,
    mock_direct_same_body_p50_ms: round(mockDirectMs, 2),
  };
  table(
    "2. Turn time vs history length (JSON mode, 1-word scripted reply)",
    ["history", "turns", "p50 ms", "p99 ms"],
    [
      [`${SMALL_TURNS * 2} messages`, MEASURE, figures.small_p50_ms, figures.small_p99_ms],
      [`${bigMessages} messages`, MEASURE, figures.big_p50_ms, figures.big_p99_ms],
      ["ratio big/small (p50)", "", figures.ratio_p50, ""],
    ],
  );
  console.log(
    `   seeding ${seeded.turns} turns took ${figures.seed_seconds} s ` +
      `(${figures.seed_ms_per_turn_first_300} ms/turn for the first ${early.length * BATCH} turns, ` +
      `${figures.seed_ms_per_turn_last_300} ms/turn for the last ${late.length * BATCH})`,
  );
  if (cold) {
    console.log(
      `   cold Durable Object (after a workerd restart, one turn each): ${SMALL_TURNS * 2} messages ${cold.small_ms} ms, ` +
        `${bigMessages} messages ${cold.big_ms} ms (very first request after the restart: ${cold.first_turn_after_restart_ms} ms)`,
    );
  }
  if (projectedSeedS !== null) {
    console.log(
      `   seeding stopped at the time budget: ${bigMessages} of ${BIG_TURNS * 2} messages; ` +
        `projected time to seed all ${BIG_TURNS * 2}: ~${figures.seed_projected_seconds_full} s ` +
        "(run `node bench/history.mjs` alone for the full size)",
    );
  }
  console.log(`   seeding curve, ms/turn: ${curve.map((c) => `${c.messages}→${c.ms_per_turn}`).join("  ")}`);
  console.log(
    `   big turn: provider request ${(figures.big_request_bytes_p50 / 1024).toFixed(0)} KiB; ` +
      `client → provider request logged by mock p50 ${figures.big_to_provider_request_p50_ms} ms; ` +
      `the mock alone takes ${figures.mock_direct_same_body_p50_ms} ms for the same body (posted directly)`,
  );
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) await standalone("history", run);
