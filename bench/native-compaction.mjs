// Native (provider-side) compaction vs our own summary (README "Long sessions"): the same long session twice per
// protocol, once with `capabilities.native_compaction` (the mock emulates Anthropic `compact_20260112` and the
// OpenAI Responses API's `compact_threshold`: past the trigger the answer opens with a compaction block / item)
// and once without (our summary requests). Reports the bytes every provider
// request carried, the extra summary requests and their input tokens, the compaction iterations the provider
// billed instead, and the request size after a compaction. Figures only; nothing here asserts.
//
//   node bench/native-compaction.mjs      (or `npm run bench:native-compaction`)
//
// Knobs: BENCH_NATIVE_TURNS (turns per session, default 30), BENCH_NATIVE_WINDOW (tokens, default 70000: the
// Anthropic minimum trigger is 50,000, so smaller windows cannot compact natively there), BENCH_NATIVE_PROVIDERS
// (comma-separated, default "anthropic,openai-responses").
import { randomUUID } from "node:crypto";
import { log, newSession, pct, round, standalone, table, words } from "./lib.mjs";

const TURNS = Number(process.env.BENCH_NATIVE_TURNS ?? 30);
const WINDOW = Number(process.env.BENCH_NATIVE_WINDOW ?? 70000);
const PROVIDERS = (process.env.BENCH_NATIVE_PROVIDERS ?? "anthropic,openai-responses").split(",").filter(Boolean);
const SUMMARY_MARKER = "Summarise the conversation transcript above";

async function session(env, provider, native) {
  const model = `bench-native-${provider}-${native ? "on" : "off"}-${randomUUID().slice(0, 8)}`;
  await env.api.putAgent(model, {
    model: {
      provider,
      name: model,
      context_window: WINDOW,
      capabilities: { native_compaction: native },
    },
    system: "You are a benchmark agent.",
    max_steps: 4,
  });
  await env.mock.contextWindow(model, WINDOW);
  return { model, session: await newSession(env, model) };
}

async function measure(env, provider, native) {
  const s = await session(env, provider, native);
  let failed = 0;
  for (let i = 0; i < TURNS; i++) {
    // ~1,500 words (~6,000 tokens echoed back twice as large): a compaction every few turns.
    const r = await env.api.sendJson(env.key, s.session, { content: `turn ${i}: ${words(1500, i)}` });
    if (r.status !== "completed") failed++;
  }
  const requests = await env.mock.requests(s.model);
  const summaries = requests.filter((r) => r.raw.includes(SUMMARY_MARKER));
  const steps = requests.filter((r) => !r.raw.includes(SUMMARY_MARKER) && r.served !== "error");
  const bytes = (rs) => rs.reduce((n, r) => n + Buffer.byteLength(r.raw), 0);
  const events = (
    await env.api.ok("GET", `/v1/sessions/${s.session}/events?limit=1000`, { key: env.key })
  ).events.filter((e) => e.type === "context_compacted");
  const stats = (await env.mock.stats(s.model)).model ?? {};
  const lastSteps = steps.slice(-10).map((r) => Buffer.byteLength(r.raw));
  return {
    turns: TURNS,
    failed,
    compactions: events.length,
    step_requests: steps.length,
    step_request_bytes: bytes(steps),
    summary_requests: summaries.length,
    summary_request_bytes: bytes(summaries),
    summary_input_tokens: Math.ceil(bytes(summaries) / 4),
    // What the provider reads to compact natively (billed as a compaction iteration): the input at the trigger.
    compaction_iteration_input_tokens: native ? events.reduce((n, e) => n + Number(e.data.tokens_before), 0) : 0,
    provider_requests: requests.length,
    wire_bytes_total: bytes(requests),
    step_request_bytes_p50_last10: pct(lastSteps, 50),
    overflow_400s: stats.overflow ?? 0,
    rejected: stats.rejected ?? 0,
  };
}

export async function run(env) {
  log(`native vs own compaction: ${TURNS} turns per session, window ${WINDOW} tokens, ${PROVIDERS.join(" + ")}`);
  const figures = { window_tokens: WINDOW };
  for (const provider of PROVIDERS) figures[provider] = await compare(env, provider);
  return figures;
}

async function compare(env, provider) {
  const own = await measure(env, provider, false);
  const native = await measure(env, provider, true);
  const figures = {
    own,
    native,
    wire_bytes_saved: own.wire_bytes_total - native.wire_bytes_total,
    wire_bytes_saved_pct: round((1 - native.wire_bytes_total / own.wire_bytes_total) * 100, 1),
    extra_requests_saved: own.provider_requests - native.provider_requests,
    summary_input_tokens_saved: own.summary_input_tokens,
  };
  const how = provider === "anthropic" ? "Anthropic compact_20260112" : "OpenAI Responses compact_threshold";
  const row = (mode, m) => [
    mode,
    m.compactions,
    m.provider_requests,
    m.summary_requests,
    m.summary_input_tokens,
    m.wire_bytes_total,
    m.step_request_bytes_p50_last10,
  ];
  table(
    `Compaction on ${provider}: our summary requests vs the provider's (${how}, emulated by the mock)`,
    [
      "mode",
      "compactions",
      "provider requests",
      "summary reqs",
      "summary input tok",
      "wire bytes",
      "step p50 (last 10)",
    ],
    [row("our summary", own), row("native", native)],
  );
  console.log(
    `   ${provider}: native saves ${figures.wire_bytes_saved} bytes on the wire (${figures.wire_bytes_saved_pct}%), ` +
      `${figures.extra_requests_saved} requests and ${figures.summary_input_tokens_saved} summary input tokens; ` +
      `the provider instead read ${native.compaction_iteration_input_tokens} input tokens in compaction iterations; ` +
      `failed turns ${own.failed}/${native.failed}, rejected ${own.rejected}/${native.rejected}`,
  );
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) await standalone("native-compaction", run);
