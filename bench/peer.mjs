// Bench — the peer (issue 10): `@cloudflare/ai-chat`'s AIChatAgent (bench/peer/worker.ts) measured on the same
// machine, against the same mock model process, the same way as Switchboard. Printed, never asserted.
//
// Added time to the first text delta = (first `text-delta` through the stack) − (first `content_block_delta` from
// the mock called directly), same percentile, at concurrency 1 (sequential turns over 10 sessions) and 20 (20
// sessions, 10 rounds after a warm-up round, the stacks taking turns round by round). Both stacks run under `wrangler dev` (local workerd). Switchboard is
// driven over HTTP + SSE (POST /messages), AIChatAgent over its WebSocket protocol (`cf_agent_use_chat_request` →
// `cf_agent_use_chat_response` frames), as its React client does; each peer session keeps one open WebSocket,
// opened before the timed turns, so the handshake is not counted. The peer's object counts its own SQLite
// statements, rows written and key-value writes (GET /counters/{name}); the figures are per one-step text turn
// (the second turn of a session: counters after − before).
//
// The platform floor (same worker, `POST /floor/{name}` → the `Floor` object): worker → Durable Object by name →
// `fetch` of the mock's streaming endpoint → its body streamed back unchanged, timed to the first
// `content_block_delta` like the direct call. It is what the shape of a turn costs under `wrangler dev` with no
// application code; "added over floor" = a stack's added time − the floor's added time, same percentile.
// Three variants locate the rest: "floor, RPC" calls the object over RPC (a stream returned from the call, as
// Switchboard's `sendMessage` did) instead of `fetch`; "floor, RPC + write" also commits one SQLite row in a
// transaction before the model request (the shape of an admission that is durable before the request); "floor,
// answer at admission" is Switchboard's shape with no application code: over `fetch`, one row written, the model's
// request started and the answer returned at once, before the model has responded (its body piped in later).
import { randomUUID } from "node:crypto";
import path from "node:path";
import { sleep } from "../scripts/lib/process.mjs";
import { repoRoot, startWrangler } from "../test/helpers/index.ts";
import {
  epochMs,
  log,
  makeAgent,
  newSession,
  pct,
  performance,
  readTimedSse,
  round,
  standalone,
  table,
  workerdCpuMs,
} from "./lib.mjs";
import { directTurn, splitAtProvider, summary, switchboardTurn } from "./ttfb.mjs";

const C1_TURNS = Number(process.env.BENCH_PEER_C1 ?? 100);
const C20_ROUNDS = Number(process.env.BENCH_PEER_ROUNDS ?? 10);
const C1_SESSIONS = 10;
const SETTLE_MS = Number(process.env.BENCH_PEER_SETTLE_MS ?? 20);
const WARMUP_C1 = 10;
const CPU_TURNS = Number(process.env.BENCH_PEER_CPU_TURNS ?? 200);
const PROMPT = "hello there switchboard, please echo these few words back";
const PEER_MODEL = "bench-peer";

/** One AIChatAgent conversation over its WebSocket; the client keeps the message list, as useAgentChat does. */
class PeerSession {
  constructor(ws, name) {
    this.ws = ws;
    this.name = name;
    this.messages = [];
    this.waiting = null;
    ws.addEventListener("message", (event) => this.waiting?.(event));
  }

  static async open(baseUrl, name) {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/agents/peer-chat/${name}`);
    await new Promise((resolve, reject) => {
      ws.addEventListener("open", resolve, { once: true });
      ws.addEventListener("error", () => reject(new Error(`peer websocket ${name} failed`)), { once: true });
    });
    return new PeerSession(ws, name);
  }

  /** Sends one user message; resolves at the end of the answer with the time of its first text delta. */
  turn() {
    const id = randomUUID();
    const user = { id: randomUUID(), role: "user", parts: [{ type: "text", text: PROMPT }] };
    this.messages.push(user);
    const body = JSON.stringify({ messages: this.messages, trigger: "submit-message" });
    return new Promise((resolve, reject) => {
      let first = null;
      let text = "";
      let messageId = randomUUID();
      const t0 = performance.now();
      this.waiting = (event) => {
        const now = performance.now();
        const frame = JSON.parse(typeof event.data === "string" ? event.data : "{}");
        if (frame.type !== "cf_agent_use_chat_response" || frame.id !== id) return;
        if (frame.error) {
          // A failed turn is counted, not fatal; its user message stays in the list (the server kept it).
          this.waiting = null;
          return resolve({ failed: String(frame.body).slice(0, 300) });
        }
        if (frame.body?.trim()) {
          const chunk = JSON.parse(frame.body);
          if (chunk.type === "start" && chunk.messageId) messageId = chunk.messageId;
          if (chunk.type === "text-delta") {
            first ??= now - t0;
            text += chunk.delta ?? "";
          }
        }
        if (frame.done) {
          this.waiting = null;
          this.messages.push({ id: messageId, role: "assistant", parts: [{ type: "text", text }] });
          if (first === null) return reject(new Error("peer turn ended without a text delta"));
          resolve({ ttfb: first, headers: first, total: now - t0 });
        }
      };
      this.ws.send(JSON.stringify({ type: "cf_agent_use_chat_request", id, init: { method: "POST", body } }));
    });
  }

  close() {
    this.ws.close();
  }
}

/** One turn through the platform floor: the direct call's body, POSTed through the worker and its object. */
async function floorTurn(peer, model, name, via = null) {
  const sentAt = epochMs();
  const t0 = performance.now();
  const res = await fetch(`${peer.url}/floor/${name}${via ? `?via=${via}` : ""}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: `${model}-floor${via ? `-${via}` : ""}`,
      max_tokens: 1024,
      stream: true,
      system: "You are a benchmark agent.",
      messages: [{ role: "user", content: PROMPT }],
    }),
  });
  const headers = performance.now() - t0;
  if (!res.ok) return { failed: `floor → HTTP ${res.status}: ${(await res.text()).slice(0, 300)}` };
  const r = await readTimedSse(res, t0, (f) => f.event === "content_block_delta");
  if (r.firstContent === null) throw new Error("no content_block_delta through the floor");
  return { ttfb: r.firstContent, headers, total: r.end, sentAt };
}

export async function startPeer(env) {
  return startWrangler({
    extraArgs: ["--config", path.join(repoRoot, "bench", "peer", "wrangler.toml")],
    migrate: false,
    vars: { ANTHROPIC_BASE_URL: env.mockUrl, ANTHROPIC_API_KEY: "bench-anthropic-key", PEER_MODEL },
  });
}

function added(direct, all) {
  const through = all.filter((t) => !t.failed);
  const failures = all.filter((t) => t.failed);
  if (failures.length) log(`peer bench: ${failures.length} failed turns, e.g. ${failures[0].failed}`);
  const d = summary(direct);
  const s = summary(through);
  return {
    failed: failures.length,
    direct: d,
    through: s,
    added_ttfb_p50_ms: round(s.ttfb_p50_ms - d.ttfb_p50_ms, 2),
    added_ttfb_p99_ms: round(s.ttfb_p99_ms - d.ttfb_p99_ms, 2),
  };
}

/**
 * The median of (a stack's turn − the floor's turn of the same interleaved round), so a stretch of host load
 * moves both sides of each pair alike; steadier than the difference of two p50s. Null without pairs.
 */
function pairedOverFloor(turns, floorTurns) {
  const diffs = [];
  turns.forEach((t, i) => {
    const f = floorTurns[i];
    if (!t.failed && f && !f.failed) diffs.push(t.ttfb - f.ttfb);
  });
  return diffs.length > 0 ? round(pct(diffs, 50), 2) : null;
}

/** c=20: the median over rounds of (the stack's round p50 − the floor's p50 of the same round). */
function pairedRoundsOverFloor(rounds, floorRounds) {
  const p50 = (turns) => {
    const ok = turns.filter((t) => !t.failed).map((t) => t.ttfb);
    return ok.length > 0 ? pct(ok, 50) : null;
  };
  const diffs = [];
  rounds.forEach((turns, r) => {
    const a = p50(turns);
    const f = floorRounds[r] ? p50(floorRounds[r]) : null;
    if (a !== null && f !== null) diffs.push(a - f);
  });
  return diffs.length > 0 ? round(pct(diffs, 50), 2) : null;
}

async function peerCounters(peer, name) {
  return (await fetch(`${peer.url}/counters/${name}`)).json();
}

/** SQLite work of the peer's second text turn in a fresh session. */
async function peerStorage(peer) {
  const name = `count-${randomUUID().slice(0, 8)}`;
  const s = await PeerSession.open(peer.url, name);
  await s.turn();
  const before = await peerCounters(peer, name);
  await s.turn();
  const after = await peerCounters(peer, name);
  s.close();
  return {
    sql_statements: after.statements - before.statements,
    sql_rows_written: after.rows_written - before.rows_written,
    kv_writes: after.kv_writes - before.kv_writes,
  };
}

/** Switchboard's SQLite work for the same turn, when the debug counters are on (else null). */
async function switchboardStorage(env, agent) {
  const id = await newSession(env, agent);
  const turn = async () => {
    const res = await env.api.send(env.key, id, { content: PROMPT }, { json: true });
    await res.text();
    const n = (h) => (res.headers.get(h) === null ? null : Number(res.headers.get(h)));
    return { sql_statements: n("x-debug-sql-statements"), sql_rows_written: n("x-debug-sql-rows-written") };
  };
  await turn();
  return turn();
}

export async function run(env) {
  const peer = await startPeer(env);
  // Switchboard again with its event lines on. The bench's Switchboard runs as `npm start` does: at wrangler's
  // default log level the worker's console lines are carried over wrangler's inspector pipe (the runtime, the
  // proxy's workerd and wrangler's Node process) and then dropped, so they are off (bench/lib.mjs). Deployed, they
  // are on, and a line is cheap. This stack shows what the two lines of a turn cost under `wrangler dev`.
  const lines = await env.startSibling({ SWITCHBOARD_LOG_EVENTS: "true" }).catch(async (error) => {
    await peer.stop();
    throw error;
  });
  try {
    const { agent, model } = await makeAgent(env, "bench-peer-sb");
    const sb1 = [];
    for (let i = 0; i < C1_SESSIONS; i++) sb1.push(await newSession(env, agent));
    const sb20 = await Promise.all(Array.from({ length: 20 }, () => newSession(env, agent)));
    const linesAgent = (await makeAgent(lines, "bench-peer-sbl")).agent;
    const lines1 = [];
    for (let i = 0; i < C1_SESSIONS; i++) lines1.push(await newSession(lines, linesAgent));
    const lines20 = await Promise.all(Array.from({ length: 20 }, () => newSession(lines, linesAgent)));
    const peer1 = [];
    for (let i = 0; i < C1_SESSIONS; i++)
      peer1.push(await PeerSession.open(peer.url, `c1-${i}-${randomUUID().slice(0, 6)}`));
    const peer20 = await Promise.all(
      Array.from({ length: 20 }, (_, i) => PeerSession.open(peer.url, `c20-${i}-${randomUUID().slice(0, 6)}`)),
    );
    const floor1 = Array.from({ length: C1_SESSIONS }, (_, i) => `c1-${i}-${randomUUID().slice(0, 6)}`);
    const floor20 = Array.from({ length: 20 }, (_, i) => `c20-${i}-${randomUUID().slice(0, 6)}`);
    // One turn of each stack at c=1 (the session picked by the turn's index) and one round of 20 at c=20.
    const stacks = {
      direct: { c1: () => directTurn(env, model), c20: () => directTurn(env, model) },
      switchboard: { c1: (i) => switchboardTurn(env, sb1[i % sb1.length]), c20: (i) => switchboardTurn(env, sb20[i]) },
      switchboard_lines: {
        c1: (i) => switchboardTurn(lines, lines1[i % lines1.length]),
        c20: (i) => switchboardTurn(lines, lines20[i]),
      },
      peer: { c1: (i) => peer1[i % peer1.length].turn(), c20: (i) => peer20[i].turn() },
      floor: {
        c1: (i) => floorTurn(peer, model, floor1[i % floor1.length]),
        c20: (i) => floorTurn(peer, model, floor20[i]),
      },
      floor_rpc: {
        c1: (i) => floorTurn(peer, model, floor1[i % floor1.length], "rpc"),
        c20: (i) => floorTurn(peer, model, floor20[i], "rpc"),
      },
      floor_rpc_write: {
        c1: (i) => floorTurn(peer, model, floor1[i % floor1.length], "rpc-write"),
        c20: (i) => floorTurn(peer, model, floor20[i], "rpc-write"),
      },
      floor_admit: {
        c1: (i) => floorTurn(peer, model, floor1[i % floor1.length], "admit"),
        c20: (i) => floorTurn(peer, model, floor20[i], "admit"),
      },
    };
    const c1 = Object.fromEntries(Object.keys(stacks).map((k) => [k, []]));
    const c20 = Object.fromEntries(Object.keys(stacks).map((k) => [k, []]));
    const c20Rounds = Object.fromEntries(Object.keys(stacks).map((k) => [k, []]));
    log("peer: concurrency 1");
    // Interleaved per turn, so machine load drifts over all stacks alike; a pause before each turn lets the
    // previous stack's work after its stream ended (persisting, sweeps) finish, since the peer and the floor share
    // one workerd thread and every process shares the two cores.
    for (let i = 0; i < C1_TURNS + WARMUP_C1; i++) {
      for (const [who, stack] of Object.entries(stacks)) {
        await sleep(SETTLE_MS);
        const t = await stack.c1(i);
        if (i >= WARMUP_C1) c1[who].push(t);
      }
    }
    // Where the c=1 time goes: split at the moment the mock logged each provider request (before concurrency 20
    // adds requests of the same models).
    const split1 = {
      switchboard: await splitAtProvider(env, model, c1.switchboard),
      floor: await splitAtProvider(env, `${model}-floor`, c1.floor),
      floor_rpc: await splitAtProvider(env, `${model}-floor-rpc`, c1.floor_rpc),
      floor_rpc_write: await splitAtProvider(env, `${model}-floor-rpc-write`, c1.floor_rpc_write),
      floor_admit: await splitAtProvider(env, `${model}-floor-admit`, c1.floor_admit),
    };
    log("peer: concurrency 20");
    for (let r = 0; r <= C20_ROUNDS; r++) {
      for (const [who, stack] of Object.entries(stacks)) {
        await sleep(SETTLE_MS * 4);
        const ts = await Promise.all(Array.from({ length: 20 }, (_, i) => stack.c20(i)));
        if (r > 0) {
          c20[who].push(...ts);
          c20Rounds[who].push(ts);
        }
      }
    }
    const whos = ["switchboard", "switchboard_lines", "peer", "floor", "floor_rpc", "floor_rpc_write", "floor_admit"];
    // CPU per turn: each stack alone, turns one after another, read from its wrangler's workerd processes. Steadier
    // than latency percentiles on a shared machine, and what a turn costs the one local thread at concurrency 20.
    log("peer: CPU per turn");
    const cpu = {};
    for (const who of whos) {
      const pgid = { switchboard: env.worker.pid, switchboard_lines: lines.worker.pid }[who] ?? peer.pid;
      const before = await workerdCpuMs(pgid);
      for (let i = 0; i < CPU_TURNS; i++) await stacks[who].c1(i);
      await sleep(200);
      const after = await workerdCpuMs(pgid);
      cpu[who] = before === null || after === null ? null : round((after - before) / CPU_TURNS, 2);
    }
    for (const ps of [...peer1, ...peer20]) ps.close();
    const figures = {
      c1: Object.fromEntries(whos.map((w) => [w, added(c1.direct, c1[w])])),
      c20: Object.fromEntries(whos.map((w) => [w, added(c20.direct, c20[w])])),
      cpu_ms_per_turn: cpu,
      split_c1: split1,
      storage: { peer: await peerStorage(peer), switchboard: null },
    };
    // Switchboard's debug counters (x-debug-sql-*) are on only with SWITCHBOARD_DEBUG_CHECKS: a restart for them.
    await env.restartWorker({ SWITCHBOARD_DEBUG_CHECKS: "true" });
    figures.storage.switchboard = await switchboardStorage(env, agent);
    await env.restartWorker();
    const names = {
      switchboard: "Switchboard",
      switchboard_lines: "Switchboard, event lines on",
      peer: "AIChatAgent",
      floor: "platform floor",
      floor_rpc: "floor, RPC",
      floor_rpc_write: "floor, RPC + write",
      floor_admit: "floor, answer at admission",
    };
    const rows = [];
    for (const c of ["c1", "c20"]) {
      const floor = figures[c].floor;
      for (const who of whos) {
        const x = figures[c][who];
        x.over_floor_p50_ms = round(x.added_ttfb_p50_ms - floor.added_ttfb_p50_ms, 2);
        x.over_floor_p99_ms = round(x.added_ttfb_p99_ms - floor.added_ttfb_p99_ms, 2);
        x.over_floor_paired_ms =
          c === "c1" ? pairedOverFloor(c1[who], c1.floor) : pairedRoundsOverFloor(c20Rounds[who], c20Rounds.floor);
        rows.push([
          names[who],
          c === "c1" ? 1 : 20,
          x.through.n,
          x.failed,
          x.direct.ttfb_p50_ms,
          x.through.ttfb_p50_ms,
          x.through.ttfb_p99_ms,
          x.added_ttfb_p50_ms,
          x.added_ttfb_p99_ms,
          who === "floor" ? "—" : x.over_floor_p50_ms,
          who === "floor" ? "—" : x.over_floor_p99_ms,
          who === "floor" ? "—" : (x.over_floor_paired_ms ?? "—"),
        ]);
      }
    }
    table(
      "Peer — time to the first text delta (ms), same mock model, same machine",
      [
        "stack",
        "conc",
        "n",
        "failed",
        "direct p50",
        "through p50",
        "through p99",
        "added p50",
        "added p99",
        "added over floor p50",
        "added over floor p99",
        "over floor, paired median",
      ],
      rows,
    );
    table(
      "Peer — where the c=1 p50 goes (ms): split at the moment the mock logged the provider request",
      ["stack", "to provider request", "provider request → first delta at client"],
      ["switchboard", "floor", "floor_rpc", "floor_rpc_write", "floor_admit"].map((who) => [
        names[who],
        split1[who]?.to_provider_request_p50_ms ?? "(records missing)",
        split1[who]?.provider_request_to_first_delta_p50_ms ?? "",
      ]),
    );
    table(
      `Peer — workerd CPU per turn (ms; user + system of the stack's wrangler workerd processes, ${CPU_TURNS} sequential turns)`,
      ["stack", "CPU per turn", "over floor"],
      whos.map((who) => [
        names[who],
        cpu[who] ?? "(no /proc)",
        who === "floor" || cpu[who] === null || cpu.floor === null ? "—" : round(cpu[who] - cpu.floor, 2),
      ]),
    );
    const st = figures.storage;
    table(
      "Peer — SQLite work per one-step text turn (second turn of a session)",
      ["stack", "statements", "rows written", "key-value writes"],
      [
        [
          "Switchboard",
          st.switchboard.sql_statements ?? "(debug counters off)",
          st.switchboard.sql_rows_written ?? "",
          0,
        ],
        ["AIChatAgent", st.peer.sql_statements, st.peer.sql_rows_written, st.peer.kv_writes],
      ],
    );
    return figures;
  } finally {
    await lines.stop();
    await peer.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await standalone("peer", run);
