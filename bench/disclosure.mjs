// Tool disclosure (DESIGN §5): what deferring tools saves, whether the prompt-cache prefix stays byte-stable, and
// what tool_search costs inside workerd. Everything goes through the running system — the mock model server in its
// own process and the worker in real workerd (`wrangler dev`, see lib.mjs) — and reads the exact request bodies the
// mock recorded. Figures only; nothing here asserts. The last line printed is one JSON object.
//
//   node bench/disclosure.mjs          (Node >= 22.18: `npm run bench:disclosure` or node_modules/.bin/node)
//
// (a) Declaration tokens per request, 200 realistic tools, all upfront vs all deferred (Anthropic, plain OpenAI).
//     Tokens are o200k (gpt-tokenizer) over the JSON of tools[] plus the <deferred_tools> listing of the system
//     prompt: an approximation of each provider's own count, the same yardstick on both sides of the comparison.
// (b) Prompt-prefix stability over a scripted 10-turn session that loads 5 deferred tools (turns 2, 3, 5, 7, 9 each
//     run tool_search with keywords, then call the tool found): the share of steps whose tools[] + system bytes
//     equal the previous step's, per projection (anthropic, message-level, plain).
// (c) tool_search latency for a large deferred catalog, client-side (Date.now() does not advance during synchronous
//     code in workerd): N turns whose model runs a keyword tool_search vs N turns with `select:` (no scoring).
// (d) What one tool_search costs a session, per projection, over the 200 tools of (a): the tokens of its result
//     text (kept in history, so sent with every later request) and of the request after it against the one before
//     (tools in the prompt, Anthropic's referenced ones included, system and messages), for a keyword search with
//     the default max_results (5 loaded) and a `select:` of one tool.
//
// Knobs: BENCH_DISCLOSURE_TURNS (c, default 30), BENCH_DISCLOSURE_CATALOG (c, default 5000).
import { randomUUID } from "node:crypto";
import os from "node:os";
import { ToolIndex } from "@switchboard/tool-search";
import { HttpError } from "../test/helpers/index.ts";
import {
  compactTools,
  deferredListing,
  exampleArgs,
  isObject,
  keywordQueries,
  nameGroups,
  prefixStability,
  realisticTools,
  requestTokens,
  systemText,
  tokens,
  wireTools,
} from "./disclosure-lib.ts";
import { log, pct, performance, round, standalone, table } from "./lib.mjs";

const SYSTEM =
  "You are the operations assistant of a mid-sized company. Act on the user's behalf with the tools you have; " +
  "ask before deleting anything.";
const CATALOG_TOOLS = 200;
const SEARCH_TURNS = Number(process.env.BENCH_DISCLOSURE_TURNS ?? 30);
const SEARCH_CATALOG = Number(process.env.BENCH_DISCLOSURE_CATALOG ?? 5000);
const LOAD_TURNS = [2, 3, 5, 7, 9];
const TURNS = 10;

const bytes = (value) => Buffer.byteLength(JSON.stringify(value));
const pctOf = (part, whole) => (whole > 0 ? round((100 * part) / whole, 1) : null);

function modelConfig(projection, name) {
  if (projection === "anthropic") return { provider: "anthropic", name };
  return { provider: "openai", name, capabilities: { message_level_tools: projection === "message_level" } };
}

function agentTools(catalog, defer, url) {
  return catalog.map((t) => ({ ...t, defer, execution: { type: "http", url } }));
}

/** A fresh agent (its own model name, so the mock's script queue and records are private); returns its names. */
async function newAgent(env, projection, tools, prefix) {
  const model = `${prefix}-${randomUUID().slice(0, 8)}`;
  await env.api.putAgent(model, { model: modelConfig(projection, model), system: SYSTEM, max_steps: 8, tools });
  const session = (await env.api.createSession(env.key, model)).id;
  return { model, session };
}

async function turn(env, session, content) {
  const result = await env.api.sendJson(env.key, session, { content });
  if (result.status !== "completed")
    throw new Error(`turn ended ${result.status}: ${JSON.stringify(result.error ?? null)}`);
  return result;
}

async function loadedTools(env, session) {
  const res = await env.api.getSession(env.key, session);
  return isObject(res.body) && Array.isArray(res.body.loaded_tools) ? res.body.loaded_tools : [];
}

/** Recorded bodies of a model's requests; throws when the mock rejected any. */
async function bodies(env, model) {
  const records = await env.mock.requests(model);
  const rejected = records.filter((r) => r.rejected !== null);
  if (rejected.length > 0)
    throw new Error(`mock rejected ${rejected.length} request(s): ${rejected[0].rejected.message}`);
  return records.map((r) => r.body);
}

/** Text of a tool_result's content. */
function resultText(content) {
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.map((b) => (b?.type === "text" ? b.text : "")).join("") : "";
}

// ---------------------------------------------------------------------------------------------------------------
// (b) scripted sessions; (a) reads their first request for the deferred side.

/**
 * Five deferred tools to load, from different services, each with a keyword query that ranks it first — checked
 * with the project's own search code (@switchboard/tool-search) on the catalog the worker indexes, minus the tools
 * loaded before it (tool_search leaves those out).
 */
function planLoads(catalog) {
  const index = new ToolIndex(
    catalog.map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema })),
  );
  const seen = new Set();
  const loaded = new Set();
  const plan = [];
  for (const t of catalog) {
    if (plan.length === LOAD_TURNS.length) break;
    const service = t.name.split("_")[0];
    if (seen.has(service)) continue;
    const firstSentence = t.description.split(/(?<=\.)\s/)[0].replace(/\.$/, "");
    const candidates = [firstSentence.toLowerCase(), t.name.replaceAll("_", " ")];
    const query = candidates.find((q) => index.search(q, { limit: 1, exclude: loaded })[0]?.name === t.name);
    if (!query) continue;
    seen.add(service);
    loaded.add(t.name);
    plan.push({ tool: t, query });
  }
  return plan;
}

function sessionScript(projection, plan) {
  const steps = [];
  let load = 0;
  for (let n = 1; n <= TURNS; n++) {
    if (LOAD_TURNS.includes(n)) {
      const { tool, query } = plan[load++];
      const id = `${projection === "anthropic" ? "toolu" : "call"}_t${n}`;
      steps.push(
        { reply: { tool_calls: [{ id: `${id}_search`, name: "tool_search", input: { query, max_results: 1 } }] } },
        { reply: { tool_calls: [{ id: `${id}_call`, name: tool.name, input: exampleArgs(tool.input_schema) }] } },
        { reply: { text: `Done with ${tool.name}.` } },
      );
    } else {
      steps.push({ reply: { text: `Turn ${n}: nothing to do.` } });
    }
  }
  return steps;
}

async function scriptedSession(env, projection, catalog, plan) {
  const { model, session } = await newAgent(
    env,
    projection,
    agentTools(catalog, true, `${env.mockUrl}/_tool`),
    `disc-b-${projection.replace("_", "")}`,
  );
  await env.mock.script(model, sessionScript(projection, plan));
  let toolErrors = 0;
  for (let n = 1; n <= TURNS; n++) {
    const result = await turn(env, session, `Turn ${n}: please help.`);
    for (const m of result.messages) for (const p of m.parts) if (p.type === "tool_result" && p.is_error) toolErrors++;
  }
  const wire = await bodies(env, model);
  const loaded = await loadedTools(env, session);
  return { model, session, wire, loaded, toolErrors };
}

// ---------------------------------------------------------------------------------------------------------------
// (a) declaration tokens

/**
 * The first request of an agent with every tool sent upfront; null when its PUT is refused (the plain projection
 * takes at most 127 tools sent with every request, so 200 there is refused).
 */
async function upfrontBody(env, projection, catalog) {
  let agent;
  try {
    agent = await newAgent(env, projection, agentTools(catalog, false, `${env.mockUrl}/_tool`), `disc-a-${projection}`);
  } catch (error) {
    if (!(error instanceof HttpError) || error.status !== 400) throw error;
    log(`(a) ${projection}: ${catalog.length} tools upfront refused: ${error.text.slice(0, 200)}`);
    return null;
  }
  const { model, session } = agent;
  await env.mock.script(model, [{ reply: { text: "Hello." } }]);
  await turn(env, session, "Hello.");
  return (await bodies(env, model))[0];
}

/** The catalog as the agent defines it, in the provider's wire shape (no sentinel widening): a yardstick. */
function ownDeclarations(catalog, provider) {
  return catalog.map((t) =>
    provider === "anthropic"
      ? { name: t.name, description: t.description, input_schema: t.input_schema }
      : { type: "function", function: { name: t.name, description: t.description, parameters: t.input_schema } },
  );
}

function declarationFigures(upfront, deferred, own) {
  const upTools = upfront === null ? [] : wireTools(upfront);
  const defTools = wireTools(deferred);
  const inPrompt = defTools.filter((t) => t.defer_loading !== true);
  const listing = deferredListing(systemText(deferred));
  const listed = listing.split("\n").filter((l) => l.startsWith("- ")).length;
  const upfrontTokens = tokens(JSON.stringify(upTools));
  const inPromptTokens = tokens(JSON.stringify(inPrompt));
  const listingTokens = tokens(listing);
  const deferredTokens = inPromptTokens + listingTokens;
  return {
    upfront: upfront && {
      tools: upTools.length,
      tools_tokens: upfrontTokens,
      tools_bytes: bytes(upTools),
      system_tokens: tokens(systemText(upfront)),
    },
    deferred: {
      tools_in_array: defTools.length,
      tools_in_prompt: inPrompt.length,
      in_prompt_tools_tokens: inPromptTokens,
      listing_tokens: listingTokens,
      listing_chars: listing.length,
      listing_names_shown: listed,
      tokens: deferredTokens,
      tools_array_bytes: bytes(defTools),
      tools_array_tokens_raw: tokens(JSON.stringify(defTools)),
      system_tokens: tokens(systemText(deferred)),
    },
    saved_pct: upfront && pctOf(upfrontTokens - deferredTokens, upfrontTokens),
    // Tokens of the agent's own schemas in the same wire shape: what the declarations would cost without the
    // {"$tool","$path"} sentinel widening of every value position.
    own_schemas_tokens: tokens(JSON.stringify(own)),
    tokens_per_tool_declaration: upfront && round(upfrontTokens / Math.max(1, upTools.length), 1),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// (c) search latency

async function putLargestAgent(env, wanted) {
  const attempts = [];
  for (const n of [wanted, 1000, 500]) {
    if (n > wanted || attempts.some((a) => a.tools === n)) continue;
    const catalog = compactTools(n);
    const model = `disc-c-${randomUUID().slice(0, 8)}`;
    const body = {
      model: modelConfig("plain", model),
      system: SYSTEM,
      max_steps: 4,
      tools: agentTools(catalog, true, `${env.mockUrl}/_tool`),
    };
    const size = bytes(body);
    try {
      await env.api.putAgent(model, body);
      attempts.push({ tools: n, body_bytes: size, status: "accepted" });
      return { catalog, model, attempts };
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      attempts.push({ tools: n, body_bytes: size, status: error.status, error: error.text.slice(0, 300) });
      log(`PUT agent with ${n} tools → ${error.status}: ${error.text.slice(0, 200)}`);
    }
  }
  throw new Error(`no catalog size accepted: ${JSON.stringify(attempts)}`);
}

async function timedSearchTurn(env, session, model, query, id) {
  await env.mock.script(model, [
    { reply: { tool_calls: [{ id, name: "tool_search", input: { query, max_results: 1 } }] } },
    { reply: { text: "Found it." } },
  ]);
  const t0 = performance.now();
  const result = await turn(env, session, `Find a tool: ${query}`);
  const ms = performance.now() - t0;
  const part = result.messages.flatMap((m) => m.parts).find((p) => p.type === "tool_result");
  let matches = 0;
  try {
    const answer = JSON.parse(resultText(part?.content));
    matches = Array.isArray(answer.matches) ? answer.matches.length : 0;
  } catch {}
  return { ms, matches, error: part?.is_error === true };
}

/**
 * Mock-side view of each timed turn: milliseconds between the arrival of its first provider request and of its
 * second (the one carrying the tool_search result) — the worker's tool step without the client hops. Turns run one
 * at a time, so a turn's step-1 record is the one just before its step-2 record.
 */
async function stepGaps(env, model) {
  const records = await env.mock.requests(model);
  const gaps = new Map();
  records.forEach((r, i) => {
    const last = isObject(r.body) && Array.isArray(r.body.messages) ? r.body.messages.at(-1) : undefined;
    if (!isObject(last) || last.role !== "tool" || i === 0) return;
    gaps.set(last.tool_call_id, Date.parse(r.at) - Date.parse(records[i - 1].at));
  });
  return gaps;
}

function latencyFigures(times) {
  return {
    first_ms: round(times[0], 1),
    p50_ms: round(pct(times, 50), 1),
    p99_ms: round(pct(times, 99), 1),
    p50_after_first_ms: round(pct(times.slice(1), 50), 1),
    p99_after_first_ms: round(pct(times.slice(1), 99), 1),
  };
}

function nodeReference(catalog, queries) {
  const docs = catalog.map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema }));
  const b0 = performance.now();
  const index = new ToolIndex(docs);
  const buildMs = performance.now() - b0;
  const b1 = performance.now();
  new ToolIndex(docs);
  const rebuildMs = performance.now() - b1;
  const times = [];
  for (let r = 0; r < 5; r++) {
    for (const q of queries) {
      const s0 = performance.now();
      index.search(q, { limit: 1 });
      times.push(performance.now() - s0);
    }
  }
  return {
    index_build_ms: round(buildMs, 2),
    index_rebuild_ms: round(rebuildMs, 2),
    first_search_ms: round(times[0], 3),
    search_p50_ms: round(pct(times, 50), 3),
    search_p99_ms: round(pct(times, 99), 3),
  };
}

async function searchLatency(env) {
  const { catalog, model, attempts } = await putLargestAgent(env, SEARCH_CATALOG);
  log(`search latency over ${catalog.length} deferred tools, ${SEARCH_TURNS} + ${SEARCH_TURNS} turns`);
  const keywordSession = (await env.api.createSession(env.key, model)).id;
  const selectSession = (await env.api.createSession(env.key, model)).id;
  // Warm both Durable Objects (and the agent config path) with a text-only turn: the first timed keyword call then
  // differs from the first select call by the search index build.
  for (const s of [keywordSession, selectSession]) {
    await env.mock.script(model, [{ reply: { text: "Ready." } }]);
    await turn(env, s, "Hello.");
  }
  const queries = keywordQueries(catalog, SEARCH_TURNS);
  const names = nameGroups(catalog, SEARCH_TURNS, 1).map((g) => g[0]);
  const keyword = [];
  const select = [];
  let keywordMatches = 0;
  let selectMatches = 0;
  let errors = 0;
  // Both kinds in ABBA order (K S, S K, K S, …), so drift and "who goes first" hit both alike.
  for (let i = 0; i < SEARCH_TURNS; i++) {
    const runK = () => timedSearchTurn(env, keywordSession, model, queries[i], `call_k${i}`);
    const runS = () => timedSearchTurn(env, selectSession, model, `select:${names[i]}`, `call_s${i}`);
    let k;
    let s;
    if (i % 2 === 0) {
      k = await runK();
      s = await runS();
    } else {
      s = await runS();
      k = await runK();
    }
    keyword.push(k.ms);
    select.push(s.ms);
    keywordMatches += k.matches;
    selectMatches += s.matches;
    if (k.error || s.error) errors++;
  }
  await bodies(env, model); // throws on any rejected request
  const gaps = await stepGaps(env, model);
  const keywordGaps = keyword.map((_, i) => gaps.get(`call_k${i}`)).filter((g) => g !== undefined);
  const selectGaps = select.map((_, i) => gaps.get(`call_s${i}`)).filter((g) => g !== undefined);

  const kw = latencyFigures(keyword);
  const sel = latencyFigures(select);
  return {
    catalog_tools: catalog.length,
    catalog_requested: SEARCH_CATALOG,
    put_attempts: attempts,
    projection: "plain",
    turns_each: SEARCH_TURNS,
    keyword: { ...kw, mean_matches: round(keywordMatches / SEARCH_TURNS, 2) },
    select: { ...sel, mean_matches: round(selectMatches / SEARCH_TURNS, 2) },
    tool_errors: errors,
    diff_first_ms: round(keyword[0] - select[0], 1),
    diff_p50_ms: round(pct(keyword, 50) - pct(select, 50), 1),
    diff_p99_ms: round(pct(keyword, 99) - pct(select, 99), 1),
    diff_p50_after_first_ms: round(pct(keyword.slice(1), 50) - pct(select.slice(1), 50), 1),
    mock_step_gap: {
      keyword: latencyFigures(keywordGaps),
      select: latencyFigures(selectGaps),
      diff_first_ms: round(keywordGaps[0] - selectGaps[0], 1),
      diff_p50_ms: round(pct(keywordGaps, 50) - pct(selectGaps, 50), 1),
      diff_p50_after_first_ms: round(pct(keywordGaps.slice(1), 50) - pct(selectGaps.slice(1), 50), 1),
    },
    // The same catalog and queries scored in Node by the same module, for reference (no workerd, no HTTP).
    node_reference: nodeReference(catalog, queries),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// (d) the cost of one search

/** One turn whose model runs `input` through tool_search, then answers; the result text and both requests, in tokens. */
async function searchCost(env, projection, catalog, input) {
  const { model, session } = await newAgent(
    env,
    projection,
    agentTools(catalog, true, `${env.mockUrl}/_tool`),
    `disc-d-${projection.replace("_", "")}`,
  );
  const id = `${projection === "anthropic" ? "toolu" : "call"}_d`;
  await env.mock.script(model, [
    { reply: { tool_calls: [{ id, name: "tool_search", input }] } },
    { reply: { text: "Found them." } },
  ]);
  const result = await turn(env, session, "Find the tools I need.");
  const part = result.messages.flatMap((m) => m.parts).find((p) => p.type === "tool_result");
  const [before, after] = await bodies(env, model);
  const requestBefore = requestTokens(before);
  const requestAfter = requestTokens(after);
  return {
    loaded: (await loadedTools(env, session)).length,
    result_text_tokens: tokens(resultText(part?.content)),
    request_before_tokens: requestBefore,
    request_after_tokens: requestAfter,
    request_added_tokens: requestAfter - requestBefore,
  };
}

async function searchCosts(env, catalog) {
  const searches = {
    keywords: { query: "create github issue" },
    select_one: { query: `select:${catalog[0].name}` },
  };
  const out = {};
  for (const projection of ["anthropic", "message_level", "plain"]) {
    out[projection] = {};
    for (const [kind, input] of Object.entries(searches)) {
      out[projection][kind] = { query: input.query, ...(await searchCost(env, projection, catalog, input)) };
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------

async function run(env) {
  const started = performance.now();
  const catalog = realisticTools(CATALOG_TOOLS);
  const plan = planLoads(catalog);
  if (plan.length < LOAD_TURNS.length) throw new Error(`only ${plan.length} loadable tools planned`);

  // (b) first: its anthropic and plain sessions also give (a) its deferred bodies.
  log("(b) scripted 10-turn sessions per projection");
  const sessions = {};
  for (const projection of ["anthropic", "message_level", "plain"]) {
    sessions[projection] = await scriptedSession(env, projection, catalog, plan);
  }
  const expected = plan.map((p) => p.tool.name);
  const stability = {};
  for (const [projection, s] of Object.entries(sessions)) {
    const st = prefixStability(s.wire);
    stability[projection] = {
      ...st,
      share_pct: pctOf(st.same_tools_and_system, st.compared),
      append_only_pct: pctOf(st.messages_append_only, st.compared),
      loaded_as_planned: JSON.stringify(s.loaded) === JSON.stringify(expected),
      loaded: s.loaded,
      tool_errors: s.toolErrors,
      final_tools_count: wireTools(s.wire.at(-1)).length,
    };
  }

  log("(a) upfront agents");
  const declarations = {
    anthropic: declarationFigures(
      await upfrontBody(env, "anthropic", catalog),
      sessions.anthropic.wire[0],
      ownDeclarations(catalog, "anthropic"),
    ),
    openai: declarationFigures(
      await upfrontBody(env, "plain", catalog),
      sessions.plain.wire[0],
      ownDeclarations(catalog, "openai"),
    ),
  };
  // What one loaded tool adds on the plain projection (its declaration appended to tools[]).
  const plainFinal = wireTools(sessions.plain.wire.at(-1));
  const plainFirst = wireTools(sessions.plain.wire[0]);
  declarations.openai.after_5_loaded_tokens =
    tokens(JSON.stringify(plainFinal)) + declarations.openai.deferred.listing_tokens;
  declarations.openai.after_5_loaded_tools = plainFinal.length - plainFirst.length;

  log("(c) search latency");
  const search = await searchLatency(env);

  log("(d) the cost of one search");
  const oneSearch = await searchCosts(env, catalog);

  // ---- tables
  const d = declarations;
  table(
    `(a) Declaration tokens per request — ${CATALOG_TOOLS} tools (o200k over tools[] JSON + <deferred_tools> listing)`,
    [
      "provider",
      "upfront tok",
      "deferred tok",
      "saved %",
      "in-prompt tools",
      "listing tok",
      "names listed",
      "tools[] bytes up/def",
    ],
    [
      [
        "anthropic",
        d.anthropic.upfront?.tools_tokens ?? "refused",
        d.anthropic.deferred.tokens,
        d.anthropic.saved_pct,
        `${d.anthropic.deferred.tools_in_prompt} of ${d.anthropic.deferred.tools_in_array}`,
        d.anthropic.deferred.listing_tokens,
        `${d.anthropic.deferred.listing_names_shown}/${CATALOG_TOOLS}`,
        `${d.anthropic.upfront?.tools_bytes ?? "refused"}/${d.anthropic.deferred.tools_array_bytes}`,
      ],
      [
        "openai (plain)",
        d.openai.upfront?.tools_tokens ?? "refused",
        d.openai.deferred.tokens,
        d.openai.saved_pct,
        `${d.openai.deferred.tools_in_prompt} of ${d.openai.deferred.tools_in_array}`,
        d.openai.deferred.listing_tokens,
        `${d.openai.deferred.listing_names_shown}/${CATALOG_TOOLS}`,
        `${d.openai.upfront?.tools_bytes ?? "refused"}/${d.openai.deferred.tools_array_bytes}`,
      ],
    ],
  );
  console.log(
    `anthropic tools[] still carries every deferred schema on the wire (defer_loading): ` +
      `${d.anthropic.deferred.tools_array_bytes} bytes, ${d.anthropic.deferred.tools_array_tokens_raw} tokens if counted raw; ` +
      `~${d.anthropic.tokens_per_tool_declaration} tokens per declaration once referenced. ` +
      `openai plain after 5 loads: ${d.openai.after_5_loaded_tokens} tokens.`,
  );
  console.log(
    `sentinel widening: the agent's own 200 schemas in wire shape are ${d.anthropic.own_schemas_tokens} (anthropic) / ` +
      `${d.openai.own_schemas_tokens} (openai) tokens; as sent ${d.anthropic.upfront?.tools_tokens ?? "refused"} / ` +
      `${d.openai.upfront?.tools_tokens ?? "refused"} (×${round(d.anthropic.upfront?.tools_tokens / d.anthropic.own_schemas_tokens, 2)}).`,
  );

  table(
    "(b) Prompt-prefix stability — 10 turns, 5 deferred tools loaded (turns 2, 3, 5, 7, 9)",
    ["projection", "steps", "same tools+system", "share %", "messages append-only %", "changed at step", "loaded ok"],
    Object.entries(stability).map(([projection, s]) => [
      projection,
      s.steps,
      `${s.same_tools_and_system}/${s.compared}`,
      s.share_pct,
      s.append_only_pct,
      s.changed_at.join(",") || "-",
      s.loaded_as_planned ? "yes" : `no: ${s.loaded.join(",")}`,
    ]),
  );

  console.log(
    `loads (turn: tool ← tool_search query): ${plan.map((p, i) => `${LOAD_TURNS[i]}: ${p.tool.name} ← "${p.query}"`).join("; ")}`,
  );

  const c = search;
  if (c.catalog_tools !== c.catalog_requested) {
    console.log(
      `\n(c) NOTE: a ${c.catalog_requested}-tool agent was refused (${c.put_attempts
        .filter((a) => a.status !== "accepted")
        .map((a) => `${a.tools} tools, ${a.body_bytes} bytes → ${a.status}`)
        .join("; ")}); measured with ${c.catalog_tools} tools instead.`,
    );
  }
  table(
    `(c) tool_search turn latency, ${c.catalog_tools} deferred tools, plain projection, client-side ms (${c.turns_each} turns each${c.turns_each <= 100 ? "; p99 = max" : ""})`,
    ["query", "first", "p50", "p99", "p50 (2..n)", "p99 (2..n)", "matches/turn"],
    [
      [
        "keywords (scored)",
        c.keyword.first_ms,
        c.keyword.p50_ms,
        c.keyword.p99_ms,
        c.keyword.p50_after_first_ms,
        c.keyword.p99_after_first_ms,
        c.keyword.mean_matches,
      ],
      [
        "select: (no scoring)",
        c.select.first_ms,
        c.select.p50_ms,
        c.select.p99_ms,
        c.select.p50_after_first_ms,
        c.select.p99_after_first_ms,
        c.select.mean_matches,
      ],
      ["difference", c.diff_first_ms, c.diff_p50_ms, c.diff_p99_ms, c.diff_p50_after_first_ms, null, null],
    ],
  );
  const g = c.mock_step_gap;
  table(
    "(c') the same turns seen from the mock: ms between a turn's step-1 and step-2 provider requests (1 ms resolution)",
    ["query", "first", "p50", "p99", "p50 (2..n)", "p99 (2..n)"],
    [
      [
        "keywords (scored)",
        g.keyword.first_ms,
        g.keyword.p50_ms,
        g.keyword.p99_ms,
        g.keyword.p50_after_first_ms,
        g.keyword.p99_after_first_ms,
      ],
      [
        "select: (no scoring)",
        g.select.first_ms,
        g.select.p50_ms,
        g.select.p99_ms,
        g.select.p50_after_first_ms,
        g.select.p99_after_first_ms,
      ],
      ["difference", g.diff_first_ms, g.diff_p50_ms, null, g.diff_p50_after_first_ms, null],
    ],
  );
  const n = c.node_reference;
  console.log(
    `same catalog and queries in Node (@switchboard/tool-search, limit 1): index build ${n.index_build_ms} ms cold, ` +
      `${n.index_build_ms === null ? "-" : n.index_rebuild_ms} ms warm; first search ${n.first_search_ms} ms; ` +
      `search p50 ${n.search_p50_ms} ms, p99 ${n.search_p99_ms} ms`,
  );

  table(
    `(d) One tool_search, ${CATALOG_TOOLS} tools: o200k tokens of its result text and of the request after it`,
    ["projection", "search", "loaded", "result text tok", "request before", "request after", "added"],
    Object.entries(oneSearch).flatMap(([projection, kinds]) =>
      Object.values(kinds).map((k) => [
        projection,
        k.query,
        k.loaded,
        k.result_text_tokens,
        k.request_before_tokens,
        k.request_after_tokens,
        k.request_added_tokens,
      ]),
    ),
  );

  const seconds = round((performance.now() - started) / 1000, 1);
  const load = os.loadavg().map((l) => round(l, 2));
  console.log(
    `\ndisclosure bench: ${seconds} s (without environment start/stop); ${os.cpus().length} CPUs, ` +
      `load average ${load.join(" ")} — latency figures are noisy on a shared machine`,
  );
  return {
    meta: { node: process.version, cpus: os.cpus().length, loadavg: load },
    tokens: declarations,
    prefix_stability: Object.fromEntries(
      Object.entries(stability).map(([p, s]) => [
        p,
        {
          share_pct: s.share_pct,
          same: s.same_tools_and_system,
          compared: s.compared,
          append_only_pct: s.append_only_pct,
          changed_at: s.changed_at,
          loaded_as_planned: s.loaded_as_planned,
          tool_errors: s.tool_errors,
        },
      ]),
    ),
    search_latency: search,
    search_cost: oneSearch,
    seconds,
  };
}

await standalone("disclosure", run);
