// Bench — held under load (issue 10, item 3). Printed, never asserted.
//
// LOAD_SESSIONS (default 200) sessions each run turns back to back for LOAD_SECONDS (default 60) against the
// mock with realistic pacing (LOAD_DELTA_MS, default 20 ms between frames, a 12-word reply), and one stream in
// ten is cut mid-tool-call (the connection drops after the first fragment of a tool_use's input); the client
// then retries the turn. Reports turns/s, first-text-delta p50/p99, 5xx answers, lost or duplicated user
// messages (every session's history read at the end), requests the mock refused for invariant P, and the RSS of
// the workerd processes at the start and end. Run on its own, it also opens workerd's V8 inspector and reads the
// isolate's JS heap in use (with ArrayBuffer backing stores) at the start and after each phase (Runtime.getHeapUsage; workerd's inspector does not
// answer HeapProfiler.collectGarbage, so garbage not yet collected counts too): whether what grows is held by
// JavaScript or is native memory.
import { execFile } from "node:child_process";
import { freePort } from "../scripts/lib/process.mjs";
import { Cdp } from "./cdp.mjs";
import { log, makeAgent, newSession, pct, performance, pool, readTimedSse, round, standalone, table } from "./lib.mjs";

const SESSIONS = Number(process.env.LOAD_SESSIONS ?? 200);
const SECONDS = Number(process.env.LOAD_SECONDS ?? 60);
const DELTA_MS = Number(process.env.LOAD_DELTA_MS ?? 20);
const PHASES = Number(process.env.LOAD_PHASES ?? 1);
const IDLE_S = Number(process.env.LOAD_IDLE_S ?? 0);
const CUT_EVERY = 10;
const REPLY = "a paced reply of twelve words from the mock model, like a real one";

/** RSS (MiB) of the workerd processes of wrangler's process group. */
export function workerdRssMiB(pgid) {
  return new Promise((resolve) => {
    execFile("ps", ["-eo", "pgid=,rss=,comm="], (error, stdout) => {
      if (error) return resolve(null);
      let kib = 0;
      for (const line of stdout.split("\n")) {
        const [g, rss, comm] = line.trim().split(/\s+/);
        if (Number(g) === pgid && comm?.startsWith("workerd")) kib += Number(rss);
      }
      resolve(kib > 0 ? round(kib / 1024, 1) : null);
    });
  });
}

/** The mock's answers in order: paced text replies, and every CUT_EVERY-th a tool call cut mid-input. */
function steps(n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    out.push(
      i % CUT_EVERY === CUT_EVERY - 1
        ? {
            reply: { text: "checking", tool_calls: [{ name: "lookup", input: { query: "a long query to split" } }] },
            // message_start, text block (start, delta, stop), tool_use start, first input fragment: then the cut.
            faults: { cut_after_events: 6, cut_mode: "reset", cut_grace_ms: 1, event_delay_ms: DELTA_MS },
          }
        : { reply: { text: REPLY }, faults: { event_delay_ms: DELTA_MS } },
    );
  }
  return out;
}

async function oneTurn(env, sessionId, content, stats) {
  const t0 = performance.now();
  const res =
    content === null
      ? await fetch(env.api.url(`/v1/sessions/${sessionId}/retry`), {
          method: "POST",
          headers: { authorization: `Bearer ${env.key}` },
        })
      : await env.api.send(env.key, sessionId, { content });
  if (res.status >= 500) stats.http5xx += 1;
  if (!res.ok) {
    stats.refused[res.status] = (stats.refused[res.status] ?? 0) + 1;
    await res.text();
    return { failed: true };
  }
  let failed = false;
  const r = await readTimedSse(res, t0, (f) => {
    if (f.json?.type === "error") failed = true;
    return f.json?.type === "text-delta";
  });
  stats.turns += 1;
  if (r.firstContent !== null) stats.ttfb.push(r.firstContent);
  return { failed };
}

async function historyUserTexts(env, sessionId) {
  const texts = [];
  let after;
  for (let i = 0; i < 1000; i++) {
    const page = await env.api.history(env.key, sessionId, after);
    for (const m of page.messages) {
      if (m.role !== "user") continue;
      for (const p of m.parts) if (p.type === "text") texts.push(p.text);
    }
    if (page.next === null || page.next === undefined) break;
    after = page.next;
  }
  return texts;
}

/** The isolate's JS heap in use (MiB), through the inspector; null without one. */
async function heapMiB(cdp) {
  if (!cdp) return null;
  const usage = await cdp.send("Runtime.getHeapUsage");
  return round((usage.usedSize + (usage.backingStorageSize ?? 0)) / 2 ** 20, 1);
}

/**
 * `opts.inspectorPort`: workerd's inspector (standalone runs), for the heap figures; without it (bench/run.mjs,
 * whose shared workerd has none) the heap figures are null.
 */
export async function run(env, opts = {}) {
  const cdp = opts.inspectorPort === undefined ? null : await Cdp.connect(opts.inspectorPort);
  const { agent, model } = await makeAgent(env, "bench-load");
  await env.api.putAgent(agent, {
    model: { provider: "anthropic", name: model },
    system: "You are a benchmark agent.",
    max_steps: 4,
    tools: [
      {
        name: "lookup",
        description: "Look something up (a client tool)",
        input_schema: { type: "object", properties: { query: { type: "string" } } },
        execution: { type: "client" },
      },
    ],
  });
  const sessions = await pool(
    Array.from({ length: SESSIONS }, () => () => newSession(env, agent)),
    20,
  );
  // Enough scripted answers for every phase (unpaced, never-cut default answers would follow if it ran out: the
  // figures then flatter the run, so `scripted_answers_left` says whether it did).
  const budget = Math.max(2000, SESSIONS * SECONDS * PHASES * 2);
  for (let i = 0; i < budget; i += 2000) await env.mock.script(model, steps(Math.min(2000, budget - i)));

  const stats = { turns: 0, http5xx: 0, refused: {}, ttfb: [], retries: 0 };
  const sent = new Map(sessions.map((s) => [s, []]));
  const rssStart = await workerdRssMiB(env.worker.pid);
  const heapStart = await heapMiB(cdp);
  // LOAD_PHASES > 1 repeats the timed phase on the same sessions (their histories keep growing), with the RSS
  // after each: whether memory levels off or keeps growing per turn. LOAD_IDLE_S then waits with no traffic
  // and reads it once more (idle objects are evicted by the runtime).
  const rssPhases = [];
  const heapPhases = [];
  const t0 = performance.now();
  for (let phase = 0; phase < PHASES; phase++) {
    const deadline = performance.now() + SECONDS * 1000;
    await Promise.all(
      sessions.map(async (id, n) => {
        let i = sent.get(id).length;
        while (performance.now() < deadline) {
          const content = `load ${n} message ${i++}`;
          sent.get(id).push(content);
          let r = await oneTurn(env, id, content, stats);
          // A cut turn fails; the client retries it (once per cut: the retry may itself be cut).
          for (let k = 0; r.failed && k < 3 && performance.now() < deadline; k++) {
            stats.retries += 1;
            r = await oneTurn(env, id, null, stats);
          }
        }
      }),
    );
    rssPhases.push(await workerdRssMiB(env.worker.pid));
    heapPhases.push(await heapMiB(cdp));
    if (PHASES > 1)
      log(
        `load: phase ${phase + 1}/${PHASES}, ${stats.turns} turns, workerd RSS ${rssPhases.at(-1)} MiB, JS heap ${heapPhases.at(-1)} MiB`,
      );
  }
  const seconds = (performance.now() - t0) / 1000;
  const rssEnd = rssPhases.at(-1);
  let rssIdle = null;
  let heapIdle = null;
  if (IDLE_S > 0) {
    await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000));
    rssIdle = await workerdRssMiB(env.worker.pid);
    heapIdle = await heapMiB(cdp);
  }
  cdp?.close();

  let lost = 0;
  let duplicated = 0;
  const histories = await pool(
    sessions.map((id) => () => historyUserTexts(env, id)),
    10,
  );
  sessions.forEach((id, i) => {
    const seen = new Map();
    for (const t of histories[i]) seen.set(t, (seen.get(t) ?? 0) + 1);
    for (const t of sent.get(id)) {
      const c = seen.get(t) ?? 0;
      if (c === 0) lost += 1;
      if (c > 1) duplicated += c - 1;
    }
  });
  const mock = await env.mock.stats(model);
  const m = mock.model ?? mock;
  const figures = {
    sessions: SESSIONS,
    seconds: round(seconds, 1),
    delta_ms: DELTA_MS,
    turns: stats.turns,
    turns_per_s: round(stats.turns / seconds, 1),
    retries: stats.retries,
    first_delta_p50_ms: round(pct(stats.ttfb, 50), 1),
    first_delta_p99_ms: round(pct(stats.ttfb, 99), 1),
    http_5xx: stats.http5xx,
    refused: stats.refused,
    user_messages_sent: [...sent.values()].reduce((a, b) => a + b.length, 0),
    user_messages_lost: lost,
    user_messages_duplicated: duplicated,
    p_rejections: m.rejected_p ?? null,
    provider_requests: m.requests ?? null,
    scripted_answers_left: m.queued ?? null,
    workerd_rss_mib_start: rssStart,
    workerd_rss_mib_end: rssEnd,
    ...(PHASES > 1 ? { workerd_rss_mib_per_phase: rssPhases } : {}),
    ...(rssIdle === null ? {} : { [`workerd_rss_mib_after_${IDLE_S}s_idle`]: rssIdle }),
    ...(cdp
      ? {
          js_heap_mib_start: heapStart,
          js_heap_mib_per_phase: heapPhases,
          ...(heapIdle === null ? {} : { [`js_heap_mib_after_${IDLE_S}s_idle`]: heapIdle }),
        }
      : {}),
  };
  if (m.queued === 0) log("load: the scripted answers ran out; later turns got the mock's unpaced default answers");
  table(
    `Load — ${SESSIONS} sessions × ${PHASES > 1 ? `${PHASES} × ` : ""}${SECONDS} s, ${DELTA_MS} ms per frame, 1 stream in ${CUT_EVERY} cut mid-tool-call`,
    ["figure", "value"],
    Object.entries(figures).map(([k, v]) => [k, typeof v === "object" && v !== null ? JSON.stringify(v) : v]),
  );
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = await freePort();
  await standalone(
    "load",
    (env) => run(env, { inspectorPort: port }),
    {},
    { extraArgs: ["--inspector-port", String(port)] },
  );
}
