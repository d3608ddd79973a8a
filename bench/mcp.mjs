// MCP servers as tool sources: what deferring MCP tools saves, and what fetching tool lists costs a turn.
// Three real MCP server processes (the SDK's McpServer + Streamable HTTP, test/helpers/mcp-process.ts) with 50
// generated tools each (150 in all), the worker in real workerd (`wrangler dev`, see lib.mjs) and the mock model
// in its own process. Figures only; nothing here asserts. The last line printed is one JSON object.
//
//   node bench/mcp.mjs          (Node >= 22.18: node_modules/.bin/node)
//
// (a) Declaration tokens per request, deferred (the MCP default) vs upfront (`defer: false` on every server),
//     Anthropic and plain OpenAI projections. Tokens are o200k (gpt-tokenizer) over the JSON of the tools the
//     prompt carries (Anthropic `defer_loading` tools are left out: they are not in the model's context) plus the
//     system prompt's <deferred_tools> listing — the yardstick bench/disclosure.mjs uses.
// (b) Time to the first text-delta of a turn: cold tool lists (a new session: its Durable Object initializes the
//     three servers and lists their tools before admitting the turn) vs cached lists (later turns of a session),
//     vs an agent without MCP servers.
//
// Knobs: BENCH_MCP_ROUNDS (b, default 15).
import { randomUUID } from "node:crypto";
import os from "node:os";
import { spawnMcpServer } from "../test/helpers/mcp-process.ts";
import { deferredListing, systemText, tokens, wireTools } from "./disclosure-lib.ts";
import { log, pct, performance, readTimedSse, round, standalone, table } from "./lib.mjs";

const ROUNDS = Number(process.env.BENCH_MCP_ROUNDS ?? 15);
const SERVERS = [
  ["crm", "generated:50:0"],
  ["ops", "generated:50:5"],
  ["office", "generated:50:10"],
];

function modelConfig(projection, name) {
  if (projection === "anthropic") return { provider: "anthropic", name };
  return { provider: "openai", name, capabilities: { message_level_tools: false } };
}

async function newAgent(env, projection, mcpServers, prefix) {
  const model = `${prefix}-${randomUUID().slice(0, 8)}`;
  await env.api.putAgent(model, {
    model: modelConfig(projection, model),
    system: "You are the operations assistant of a mid-sized company.",
    max_steps: 4,
    tools: [],
    mcp_servers: mcpServers,
  });
  return model;
}

async function firstBody(env, model, session) {
  await env.mock.script(model, [{ reply: { text: "Hello." } }]);
  const result = await env.api.sendJson(env.key, session, { content: "Hi" });
  if (result.status !== "completed") throw new Error(`turn ended ${result.status}`);
  const [record] = await env.mock.requests(model);
  if (!record || record.rejected) throw new Error(`mock rejected the request: ${record?.rejected?.message}`);
  return record.body;
}

async function declarations(env, servers, projection) {
  const out = {};
  for (const defer of [true, false]) {
    const model = await newAgent(
      env,
      projection,
      servers.map((s) => ({ ...s, defer })),
      `mcp-a-${projection.slice(0, 4)}`,
    );
    const session = (await env.api.createSession(env.key, model)).id;
    const body = await firstBody(env, model, session);
    const all = wireTools(body);
    const inPrompt = all.filter((t) => t.defer_loading !== true);
    const listing = deferredListing(systemText(body));
    out[defer ? "deferred" : "upfront"] = {
      tools_in_array: all.length,
      tools_in_prompt: inPrompt.length,
      tools_tokens: tokens(JSON.stringify(inPrompt)),
      listing_tokens: tokens(listing),
      tokens: tokens(JSON.stringify(inPrompt)) + tokens(listing),
    };
  }
  const saved = out.upfront.tokens - out.deferred.tokens;
  return { ...out, saved_pct: round((100 * saved) / Math.max(1, out.upfront.tokens), 1) };
}

async function ttfb(env, model, session) {
  await env.mock.script(model, [{ reply: { text: "Hello there, how can I help?" } }]);
  const t0 = performance.now();
  const res = await env.api.send(env.key, session, { content: "Hi" });
  if (!res.ok) throw new Error(`POST /messages answered ${res.status}`);
  const r = await readTimedSse(res, t0, (f) => f.json?.type === "text-delta");
  if (r.firstContent === null) throw new Error("no text-delta in the turn stream");
  return r.firstContent;
}

async function timings(env, servers) {
  const withMcp = await newAgent(env, "anthropic", servers, "mcp-b");
  const without = await newAgent(env, "anthropic", [], "mcp-b0");
  const cold = [];
  const cached = [];
  const none = [];
  const warm = (await env.api.createSession(env.key, withMcp)).id;
  await ttfb(env, withMcp, warm);
  const plain = (await env.api.createSession(env.key, without)).id;
  await ttfb(env, without, plain);
  for (let i = 0; i < ROUNDS; i++) {
    const fresh = (await env.api.createSession(env.key, withMcp)).id;
    cold.push(await ttfb(env, withMcp, fresh));
    cached.push(await ttfb(env, withMcp, warm));
    none.push(await ttfb(env, without, plain));
  }
  const row = (v) => ({ p50_ms: round(pct(v, 50), 1), p90_ms: round(pct(v, 90), 1) });
  return { rounds: ROUNDS, cold: row(cold), cached: row(cached), no_mcp: row(none) };
}

export async function run(env) {
  const started = performance.now();
  const procs = [];
  try {
    for (const [, preset] of SERVERS) procs.push(await spawnMcpServer({ preset }));
    const servers = SERVERS.map(([name], i) => ({ name, url: procs[i].url }));
    log(`3 MCP servers with 150 tools in all: ${procs.map((p) => p.url).join(", ")}`);
    const tokensBy = {
      anthropic: await declarations(env, servers, "anthropic"),
      plain: await declarations(env, servers, "plain"),
    };
    table(
      "(a) declaration tokens per request, 3 MCP servers / 150 tools (o200k)",
      [
        "projection",
        "upfront tools",
        "upfront tokens",
        "deferred in prompt",
        "deferred tokens (incl. listing)",
        "saved",
      ],
      Object.entries(tokensBy).map(([p, t]) => [
        p,
        t.upfront.tools_in_prompt,
        t.upfront.tokens,
        t.deferred.tools_in_prompt,
        `${t.deferred.tokens} (${t.deferred.listing_tokens})`,
        `${t.saved_pct}%`,
      ]),
    );
    const ttfbFigures = await timings(env, servers);
    table(
      `(b) time to first text-delta, ${ROUNDS} rounds (ms)`,
      ["tool lists", "p50", "p90"],
      [
        ["cold (new session: initialize + tools/list ×3)", ttfbFigures.cold.p50_ms, ttfbFigures.cold.p90_ms],
        ["cached (same session, within TTL)", ttfbFigures.cached.p50_ms, ttfbFigures.cached.p90_ms],
        ["agent without MCP servers", ttfbFigures.no_mcp.p50_ms, ttfbFigures.no_mcp.p90_ms],
      ],
    );
    const seconds = round((performance.now() - started) / 1000, 1);
    const load = os.loadavg().map((l) => round(l, 2));
    console.log(`\nmcp bench: ${seconds} s; ${os.cpus().length} CPUs, load average ${load.join(" ")}`);
    return {
      meta: { node: process.version, cpus: os.cpus().length, loadavg: load },
      tokens: tokensBy,
      ttfb: ttfbFigures,
      seconds,
    };
  } finally {
    for (const p of procs) await p.kill();
  }
}

await standalone("mcp", run);
