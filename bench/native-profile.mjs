// Bench — native CPU profile of the runtime workerd over steady-state text turns (issue 10), by Linux `perf`.
//
//   node_modules/.bin/node bench/native-profile.mjs      (needs `perf` on PATH and permission to attach to a
//                                                         process: root, or kernel.perf_event_paranoid <= 1)
//
// `profile-turn.mjs` samples V8's own profiler: it sees JavaScript, and it charges native work to whichever
// JavaScript frame is on the stack when it samples. The SQLite commit of a transaction runs as a task of
// workerd's event loop, after the JavaScript that wrote, and the V8 profile charges it to a later statement's
// `exec` (it put 0.9 ms per turn under the stream-log sweep's DELETE; that DELETE costs about 40 µs). workerd's
// binary ships with its symbols, so `perf record -g` of the runtime process names every native frame: the commit,
// SQLite, streams, HTTP, V8's collector and compiler, the kernel. This bench starts the usual environment
// (bench/lib.mjs), warms up, finds the runtime workerd (the busier of wrangler's two), records it over
// NATIVE_TURNS (600) sequential text turns with NATIVE_PAUSE_MS (0) idle before each, and prints, never asserts:
//   - the runtime's CPU per turn (/proc) over 200 of the same turns unobserved, and under perf,
//   - each sample by what it is spent on (the table sums to 100 %), as µs of the unobserved CPU per turn,
//   - the workerd APIs that JavaScript calls, by the native time under each call.
// NATIVE_TIMELINE=1 also orders each turn's first burst of work on the isolate thread (20 kHz, 300 turns, 20 ms idle
// before each, unless set): from the request's arrival through the admission transaction and its commit to the
// thread's first idle, the segment on which the c=1 first token waits. NATIVE_PERF_DATA=<file> keeps perf's raw
// data (`perf report -i <file>`).
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { sleep } from "../scripts/lib/process.mjs";
import { groupCpu, log, makeAgent, newSession, pct, round, standalone, table } from "./lib.mjs";
import { switchboardTurn } from "./ttfb.mjs";

const TIMELINE = process.env.NATIVE_TIMELINE === "1";
const TURNS = Number(process.env.NATIVE_TURNS ?? (TIMELINE ? 300 : 600));
/** Timeline mode needs idle between turns to tell them apart (at least 2 ms), and finer samples. */
const PAUSE_MS = Number(process.env.NATIVE_PAUSE_MS ?? (TIMELINE ? 20 : 0));
if (TIMELINE && !(PAUSE_MS >= 2)) throw new Error("NATIVE_TIMELINE=1 needs NATIVE_PAUSE_MS of at least 2");
const FREQUENCY_HZ = Number(process.env.NATIVE_HZ ?? (TIMELINE ? 20000 : 4999));
const SESSIONS = 10;
const WARMUP = 60;

/**
 * What a sample is spent on, first match wins, tested against its frames leaf first. Two passes: the commit,
 * the collector and the compiler by any frame of the stack; then the innermost workerd API or engine piece.
 */
const ANYWHERE = [
  ["SQLite commit (implicit transaction, fsync included)", /^workerd::ActorSqlite::startImplicitTxnImpl/],
  ["V8 garbage collector", /^v8::internal::(Heap::CollectGarbage|Scavenger|MarkCompactCollector|MinorMarkSweep)/],
  ["V8 compiler (background)", /^v8::internal::(OptimizedCompilationJob|maglev::|compiler::)/],
];
const INNERMOST = [
  ["SQL statements (exec, cursors)", /^workerd::api::SqlStorage|^workerd::SqliteDatabase|^sqlite3/],
  [
    "streams (read, write, pipe, TransformStream)",
    /^workerd::api::(ReadableStream|WritableStream|TransformStream|ReaderImpl|WritableImpl|DrainingReader|pumpOwned|ReadableStreamInternalController|WritableStreamInternalController)/,
  ],
  [
    "fetch and HTTP (worker, object, provider)",
    /^workerd::api::(Fetcher|ServiceWorkerGlobalScope::fetch|fetchImpl|Response|Request|Headers|makeHttpResponse|Body)|^kj::(HttpClient|HttpServer|HttpHeaders|.*Http)/,
  ],
  [
    "timers and microtasks",
    /^workerd::api::ServiceWorkerGlobalScope::(setTimeout|clearTimeout|queueMicrotask)|TimeoutManager/,
  ],
  ["abort signals and events", /^workerd::api::(AbortController|AbortSignal|EventTarget)/],
  ["spans (Tracing.enterSpan)", /^workerd::api::Tracing/],
  ["JSON parse and stringify", /^v8::internal::(Json|FastJson|Builtin_Json)/],
];

/** A frame of JavaScript: a V8 builtin, or JIT code (which perf cannot name). */
const JS_FRAME = /^Builtins_|^\[unknown\]$/;

function classify(frames) {
  for (const [name, re] of ANYWHERE) if (frames.some((f) => re.test(f))) return name;
  for (const f of frames) {
    if (JS_FRAME.test(f)) return "JavaScript (JIT code, V8 builtins)";
    for (const [name, re] of INNERMOST) if (re.test(f)) return name;
  }
  return frames[0]?.startsWith("[k] ") ? "kernel (I/O, wakeups)" : "workerd, KJ event loop and allocator (other)";
}

/** The workerd API JavaScript called (the outermost `workerd::api::` frame under the innermost JavaScript). */
function apiOf(frames) {
  let api = null;
  for (const f of frames) {
    if (JS_FRAME.test(f)) return api;
    const m = /^(workerd::api::[A-Za-z_:]+?)(?:\(|<|$)/.exec(f);
    if (m) api = m[1];
  }
  return null;
}

/** One sample of `perf script -F tid,time,ip,sym,dso`: its thread, time (ms) and frame names, leaf first. */
function parseSample(lines) {
  const head = /^\s*(\d+)\s+([\d.]+):/.exec(lines[0]);
  if (!head) return null;
  const frames = lines.slice(1).map((l) => {
    const m = /^\s*[0-9a-f]+ (.*?)(?: \(([^)]*)\))?$/.exec(l);
    const sym = (m?.[1] ?? l.trim()).replace(/\+0x[0-9a-f]+$/, "");
    return m?.[2]?.includes("kernel") ? `[k] ${sym}` : sym;
  });
  return { tid: head[1], ms: Number(head[2]) * 1000, frames };
}

/** Streams `perf script` over the recording, one parsed sample at a time (its text can exceed a string's size). */
async function eachSample(data, fn) {
  const child = spawn("perf", ["script", "-i", data, "-F", "tid,time,ip,sym,dso"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  let block = [];
  const flush = () => {
    const sample = block.length > 0 ? parseSample(block) : null;
    if (sample) fn(sample);
    block = [];
  };
  for await (const line of createInterface({ input: child.stdout })) {
    if (line.trim() !== "") block.push(line);
    else flush();
  }
  flush();
}

/**
 * The isolate thread's first burst of each turn, in order (timeline mode): a turn starts after at least
 * half the idle; a burst ends at a gap of 0.25 ms without samples. Marks: the admission's `transactionSync`
 * and the implicit transaction's commit. Returns each segment's p50 (ms of samples' wall time).
 */
function timeline(marks) {
  const turns = [];
  let turn = null;
  let last = -Infinity;
  for (const s of marks) {
    if (s.ms - last > PAUSE_MS / 2) {
      turn = [[s]];
      turns.push(turn);
    } else if (turn && s.ms - last > 0.25) turn.push([s]);
    else turn?.at(-1)?.push(s);
    last = s.ms;
  }
  const segments = new Map();
  const add = (name, v) => segments.set(name, [...(segments.get(name) ?? []), v]);
  for (const [burst] of turns) {
    const first = (flag) => burst.findIndex((s) => s.flags & flag);
    const lastOf = (flag) => burst.findLastIndex((s) => s.flags & flag);
    const [tx0, tx1, c0, c1] = [first(TX), lastOf(TX), first(COMMIT), lastOf(COMMIT)];
    if (tx0 < 0 || c0 <= tx1) continue;
    const at = (i) => burst[i].ms;
    add(
      "request in → admission transaction (wrangler's entry worker, the worker, the object's entry)",
      at(tx0) - at(0),
    );
    add("admission transaction", at(tx1) - at(tx0));
    add("admission → commit (the runner up to the provider fetch, the answer built)", at(c0) - at(tx1));
    add("admission commit (fsync included)", at(c1) - at(c0));
    add("commit → thread idle (the answer to the worker, its response, the request sent)", burst.at(-1).ms - at(c1));
  }
  return [...segments.entries()].map(([name, v]) => [name, v.length, round(pct(v, 50), 2)]);
}

const TX = 1;
const COMMIT = 2;

async function runtimePid(env, session) {
  const before = (await groupCpu(env.worker.pid)).filter((p) => p.comm.startsWith("workerd"));
  for (let i = 0; i < 30; i++) await switchboardTurn(env, session);
  const after = (await groupCpu(env.worker.pid)).filter((p) => p.comm.startsWith("workerd"));
  const grew = after.map((p) => ({ pid: p.pid, ms: p.ms - (before.find((b) => b.pid === p.pid)?.ms ?? 0) }));
  return grew.sort((a, b) => b.ms - a.ms)[0]?.pid ?? null;
}

async function run(env) {
  const { agent } = await makeAgent(env, "bench-native");
  const sessions = [];
  for (let i = 0; i < SESSIONS; i++) sessions.push(await newSession(env, agent));
  for (let i = 0; i < WARMUP; i++) await switchboardTurn(env, sessions[i % SESSIONS]);
  const pid = await runtimePid(env, sessions[0]);
  if (!pid) throw new Error("no runtime workerd found");

  // The same turns unobserved first: perf's own cost per sample stretches the CPU (and every timeline segment).
  const turns = async (n) => {
    const before = (await groupCpu(env.worker.pid)).find((p) => p.pid === pid)?.ms ?? 0;
    for (let i = 0; i < n; i++) {
      if (PAUSE_MS > 0) await sleep(PAUSE_MS);
      await switchboardTurn(env, sessions[i % SESSIONS]);
    }
    return (((await groupCpu(env.worker.pid)).find((p) => p.pid === pid)?.ms ?? 0) - before) / n;
  };
  const unobserved = await turns(Math.min(TURNS, 200));

  const dir = await mkdtemp(path.join(tmpdir(), "sb-native-"));
  const data = process.env.NATIVE_PERF_DATA ?? path.join(dir, "perf.data");
  const perf = spawn("perf", ["record", "-q", "-F", String(FREQUENCY_HZ), "-g", "-p", pid, "-o", data], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise((resolve) => perf.on("exit", resolve));
  try {
    await sleep(1000);
    const observed = await turns(TURNS);
    perf.kill("SIGINT");
    await exited;
    log("reading the samples (perf script)");
    // µs per turn below are of the unobserved CPU, shared out by the samples.
    const cpuPerTurn = unobserved;
    const by = new Map();
    const apis = new Map();
    const threads = new Map();
    const marks = [];
    let total = 0;
    await eachSample(data, ({ tid, ms, frames }) => {
      total += 1;
      const kind = classify(frames);
      by.set(kind, (by.get(kind) ?? 0) + 1);
      const api = apiOf(frames);
      if (api) apis.set(api, (apis.get(api) ?? 0) + 1);
      threads.set(tid, (threads.get(tid) ?? 0) + 1);
      if (TIMELINE) {
        let flags = 0;
        for (const f of frames) {
          if (f.startsWith("workerd::api::DurableObjectStorage::transactionSync")) flags |= TX;
          else if (f.startsWith("workerd::ActorSqlite::startImplicitTxnImpl")) flags |= COMMIT;
        }
        marks.push({ tid, ms, flags });
      }
    });
    const usPerSample = (1000 * cpuPerTurn) / total;
    const rows = (map, n) =>
      [...map.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([k, count]) => [k, round((100 * count) / total, 1), round(count * usPerSample, 0)]);
    console.log(
      `\nNative profile of the runtime workerd over ${TURNS} text turns (${PAUSE_MS} ms idle before each): ` +
        `${round(unobserved, 2)} ms CPU per turn unobserved, ${round(observed, 2)} under perf (/proc); ` +
        `${total} samples at ${FREQUENCY_HZ} Hz`,
    );
    table("Spent on", ["what", "% of samples", "µs / turn"], rows(by, 20));
    table(
      "workerd APIs called from JavaScript (native time under the call)",
      ["API", "% of samples", "µs / turn"],
      rows(apis, 20),
    );
    let segments = null;
    if (TIMELINE) {
      // The isolate's thread: the one with the most samples (V8's compiler and collector threads are the others).
      const isolate = [...threads.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
      const stretch = observed / unobserved;
      segments = timeline(marks.filter((m) => m.tid === isolate).sort((a, b) => a.ms - b.ms)).map(([name, n, ms]) => [
        name,
        n,
        ms,
        round(ms / stretch, 2),
      ]);
      table(
        `A turn's first burst on the isolate thread, in order (p50 ms; perf stretched the CPU ×${round(stretch, 2)})`,
        ["segment", "turns", "under perf", "÷ stretch"],
        segments,
      );
    }
    return {
      turns: TURNS,
      pause_ms: PAUSE_MS,
      cpu_ms_per_turn: round(unobserved, 2),
      cpu_ms_per_turn_under_perf: round(observed, 2),
      samples: total,
      us_per_turn: Object.fromEntries(rows(by, 20).map(([k, , us]) => [k, us])),
      ...(segments ? { first_burst_p50_ms: Object.fromEntries(segments.map(([k, , , ms]) => [k, ms])) } : {}),
    };
  } finally {
    if (perf.exitCode === null) perf.kill("SIGINT");
    if (!process.env.NATIVE_PERF_DATA) await rm(dir, { recursive: true, force: true });
  }
}

/** perf must be on PATH: say so before starting anything. */
function requirePerf() {
  const found = spawnSync("perf", ["--version"], { stdio: "ignore" });
  if (found.error || found.status !== 0) {
    console.error("native-profile needs Linux `perf` on PATH (Debian: apt-get install linux-perf).");
    process.exit(2);
  }
}

requirePerf();
await standalone("native-profile", run);
