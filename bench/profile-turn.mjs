// Bench — CPU profile of steady-state text turns (issue 10): where the worker and the session object spend CPU.
//
// Starts the usual bench environment (bench/lib.mjs: mock model + `wrangler dev` on a bundled snapshot) with
// `--inspector-port`, connects to workerd's V8 inspector over the Chrome DevTools Protocol (wrangler's inspector
// proxy), warms up, then records a sampling CPU profile (`Profiler.start` … `Profiler.stop`) around
// BENCH_PROFILE_TURNS sequential text turns (POST /v1/sessions/{id}/messages, SSE, read to the end) over 10
// sessions. Prints, never asserts:
//   - self time by function (the bundle is not minified, so names are the source's; the file is the `// src/…`
//     module comment esbuild writes above each module in the bundle),
//   - self time by source file,
//   - inclusive time of our src/ functions (each function counted once per sample however deep it recurses).
// BENCH_PROFILE_TOOLS=<n> gives the agent n tools (lib.mjs manyToolsAgent). `(idle)` is the isolate waiting for I/O; `(program)` is V8/workerd native work outside JavaScript.
// BENCH_PROFILE_JSON=<file> also writes the raw .cpuprofile (open it in Chrome DevTools → Performance).
import { writeFile } from "node:fs/promises";
import { freePort } from "../scripts/lib/process.mjs";
import { Cdp } from "./cdp.mjs";
import { makeAgent, manyToolsAgent, newSession, performance, round, standalone, table } from "./lib.mjs";
import { switchboardTurn } from "./ttfb.mjs";

const TURNS = Number(process.env.BENCH_PROFILE_TURNS ?? 200);
const WARMUP = 20;
const SESSIONS = 10;
const INTERVAL_US = Number(process.env.BENCH_PROFILE_INTERVAL_US ?? 100);
const TOP = Number(process.env.BENCH_PROFILE_TOP ?? 25);
/** The agent's tools (BENCH_PROFILE_TOOLS, default 0): bench/lib.mjs `manyToolsAgent`. */
const TOOLS = Number(process.env.BENCH_PROFILE_TOOLS ?? 0);
/** BENCH_PROFILE_TIMELINE=<n>: also print the last n turns sample by sample (timeline()). */
const TIMELINE = Number(process.env.BENCH_PROFILE_TIMELINE ?? 0);

/** Line → module map of a bundle from the `// path` comments esbuild writes above each module. */
function moduleMap(source) {
  const starts = [];
  source.split("\n").forEach((line, i) => {
    const m = /^\/\/ ((?:src|node_modules|\.\.?\/)[^\s]*\.[cm]?[jt]sx?)$/.exec(line);
    if (m) starts.push([i, m[1].replace(/^node_modules\/(@[^/]+\/[^/]+|[^/]+)\/.*$/, "node_modules/$1")]);
  });
  return (line) => {
    let lo = 0;
    let hi = starts.length - 1;
    let found = "(bundle)";
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid][0] <= line) {
        found = starts[mid][1];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
}

/** Each sample's time on this process's epoch clock (ms); V8 stamps samples with the monotonic clock (µs). */
function sampleEpochs(profile, monoToEpochMs) {
  const at = [];
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    at.push(monoToEpochMs(t));
  }
  return at;
}

/** Whether epoch time `t` falls inside one of `windows` ([from, to] pairs, sorted by `from`, not overlapping). */
function inWindows(windows) {
  let i = 0;
  return (t) => {
    while (i < windows.length && windows[i][1] < t) i++;
    return i < windows.length && windows[i][0] <= t;
  };
}

/**
 * The last TIMELINE turns sample by sample, from sending to the first delta: ms since sending, then the innermost
 * src/ frame (or the native one) of each run of samples that share it; `*` marks the provider request at the mock.
 */
function timeline(profile, fileOf, at, turns, records) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (id) => {
    const leaf = nodes.get(id).callFrame;
    const native = leaf.url ? "" : leaf.functionName || "(native)";
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const cf = nodes.get(at).callFrame;
      const file = cf.url ? fileOf(cf.scriptId, cf.lineNumber) : "";
      if (file.startsWith("src/") || file.startsWith("node_modules/")) {
        const own = `${cf.functionName || "(anonymous)"} ${file}:${cf.lineNumber + 1}`;
        return native ? `${native} < ${own}` : own;
      }
    }
    return native;
  };
  for (let t = Math.max(0, turns.length - TIMELINE); t < turns.length; t++) {
    const from = turns[t].sentAt;
    const to = from + turns[t].ttfb;
    const mock = records[t].at_ms;
    console.log(
      `\nTurn ${t}: provider request at ${round(mock - from, 2)} ms, first delta at ${round(to - from, 2)} ms`,
    );
    let run = null;
    let marked = false;
    const flush = () => {
      if (run)
        console.log(
          `  ${round(run.start - from, 2)
            .toFixed(2)
            .padStart(6)} +${String(run.n).padStart(2)}  ${run.label}`,
        );
    };
    for (let i = 0; i < at.length; i++) {
      if (at[i] < from || at[i] > to) continue;
      if (!marked && at[i] >= mock) {
        flush();
        run = null;
        console.log(
          `  ${round(mock - from, 2)
            .toFixed(2)
            .padStart(6)}  *   provider request at the mock`,
        );
        marked = true;
      }
      const l = label(profile.samples[i]);
      if (run && run.label === l) run.n++;
      else {
        flush();
        run = { start: at[i], n: 1, label: l };
      }
    }
    flush();
  }
}

function aggregate(profile, fileOf, keep = () => true) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = new Map();
  const labelOf = (n) => {
    let k = keyOf.get(n.id);
    if (k) return k;
    const cf = n.callFrame;
    const file = cf.url ? fileOf(cf.scriptId, cf.lineNumber) : "";
    const name = cf.functionName || (cf.url ? "(anonymous)" : "");
    k = { fn: file ? `${name} ${file}:${cf.lineNumber + 1}` : name || "(native)", file: file || name || "(native)" };
    keyOf.set(n.id, k);
    return k;
  };
  const selfFn = new Map();
  const selfFile = new Map();
  const incl = new Map();
  let total = 0;
  const add = (map, key, ms) => map.set(key, (map.get(key) ?? 0) + ms);
  profile.samples.forEach((id, i) => {
    if (!keep(i)) return;
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000; // the delta after a sample is the time it stands for
    total += ms;
    const k = labelOf(nodes.get(id));
    add(selfFn, k.fn, ms);
    add(selfFile, k.file, ms);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const key = labelOf(nodes.get(at));
      if (!key.file.startsWith("src/") || seen.has(key.fn)) continue;
      seen.add(key.fn);
      add(incl, key.fn, ms);
    }
  });
  return { selfFn, selfFile, incl, total };
}

function top(map, n, total, perTurn) {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, ms]) => [
      k.length > 90 ? `${k.slice(0, 87)}...` : k,
      round(ms, 1),
      round((100 * ms) / total, 1),
      round((1000 * ms) / perTurn, 0),
    ]);
}

async function run(env, port) {
  const { agent, model } = await makeAgent(env, "bench-profile");
  if (TOOLS > 0) await env.api.putAgent(agent, await manyToolsAgent(model, TOOLS));
  const sessions = [];
  for (let i = 0; i < SESSIONS; i++) sessions.push(await newSession(env, agent));
  for (let i = 0; i < WARMUP; i++) await switchboardTurn(env, sessions[i % SESSIONS]);

  const cdp = await Cdp.connect(port);
  const scripts = new Map();
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: INTERVAL_US });
  await cdp.send("Profiler.start");
  // Monotonic (µs, V8's sample clock) → epoch ms, as the mock stamps each provider request it receives.
  const epochOffsetMs = performance.timeOrigin + performance.now() - Number(process.hrtime.bigint() / 1000n) / 1000;
  const t0 = performance.now();
  const turns = [];
  for (let i = 0; i < TURNS; i++) turns.push(await switchboardTurn(env, sessions[i % SESSIONS]));
  const ttfb = turns.map((t) => t.ttfb);
  const wall = performance.now() - t0;
  const { profile } = await cdp.send("Profiler.stop");
  if (process.env.BENCH_PROFILE_JSON) await writeFile(process.env.BENCH_PROFILE_JSON, JSON.stringify(profile));

  // Module maps of the scripts the profile names (the bundle's source, over the Debugger domain).
  await cdp.send("Debugger.enable").catch(() => {});
  const ids = new Set(profile.nodes.filter((n) => n.callFrame.url).map((n) => n.callFrame.scriptId));
  for (const id of ids) {
    try {
      const { scriptSource } = await cdp.send("Debugger.getScriptSource", { scriptId: id });
      scripts.set(id, moduleMap(scriptSource));
    } catch {
      scripts.set(id, () => "(bundle)");
    }
  }
  cdp.close();
  const fileOf = (scriptId, line) => scripts.get(scriptId)?.(line) ?? "(bundle)";
  const { selfFn, selfFile, incl, total } = aggregate(profile, fileOf);
  // The turns' windows from sending to the provider request reaching the mock, and from there to the first delta.
  const records = (await env.mock.requests(model)).slice(-TURNS);
  const windowed = records.length === TURNS;
  const busy = total - (selfFn.get("(idle)") ?? 0);
  const head = ["", "ms", "% of profile", "µs / turn"];
  console.log(
    `\nCPU profile of ${TURNS} text turns (${round(wall, 0)} ms wall, ${round(total, 0)} ms sampled, ` +
      `${round(busy, 0)} ms not idle = ${round((1000 * busy) / TURNS, 0)} µs / turn)`,
  );
  table("Self time by function", ["function  file:line", ...head.slice(1)], top(selfFn, TOP, total, TURNS));
  table("Self time by file", ["file", ...head.slice(1)], top(selfFile, TOP, total, TURNS));
  table("Inclusive time, src/ functions", ["function  file:line", ...head.slice(1)], top(incl, TOP, total, TURNS));
  let before = null;
  if (windowed) {
    const at = sampleEpochs(profile, (us) => us / 1000 + epochOffsetMs);
    const pre = turns.map((t, i) => [t.sentAt, records[i].at_ms]);
    const post = turns.map((t, i) => [records[i].at_ms, t.sentAt + t.ttfb]);
    for (const [label, windows] of [
      ["before the provider request", pre],
      ["from the provider request to the first delta", post],
    ]) {
      const keep = inWindows(windows);
      const w = aggregate(profile, fileOf, (i) => keep(at[i]));
      const wBusy = w.total - (w.selfFn.get("(idle)") ?? 0);
      const wallMs = windows.reduce((sum, [from, to]) => sum + (to - from), 0);
      console.log(
        `\nWindow ${label}: ${round(wallMs / TURNS, 2)} ms wall / turn, ${round((1000 * w.total) / TURNS, 0)} µs ` +
          `sampled, ${round((1000 * wBusy) / TURNS, 0)} µs not idle / turn`,
      );
      table(
        `Self time by function, ${label}`,
        ["function  file:line", ...head.slice(1)],
        top(w.selfFn, TOP, w.total, TURNS),
      );
      table(
        `Inclusive time, src/ functions, ${label}`,
        ["function  file:line", ...head.slice(1)],
        top(w.incl, TOP, w.total, TURNS),
      );
      if (label.startsWith("before"))
        before = { wall_ms_per_turn: round(wallMs / TURNS, 2), busy_us_per_turn: round((1000 * wBusy) / TURNS, 0) };
    }
    if (TIMELINE > 0) timeline(profile, fileOf, at, turns, records);
  } else console.log(`\n(no per-turn windows: the mock holds ${records.length} of ${TURNS} requests)`);
  ttfb.sort((a, b) => a - b);
  return {
    before_provider_request: before,
    turns: TURNS,
    wall_ms: round(wall, 0),
    busy_us_per_turn: round((1000 * busy) / TURNS, 0),
    ttfb_p50_ms: round(ttfb[Math.floor(ttfb.length / 2)], 2),
    top_src_self: top(new Map([...selfFn].filter(([k]) => / src\//.test(k))), 10, total, TURNS).map(
      ([fn, ms, , us]) => ({ fn, ms, us_per_turn: us }),
    ),
  };
}

const port = await freePort();
await standalone("profile-turn", (env) => run(env, port), {}, { extraArgs: ["--inspector-port", String(port)] });
