// Shared plumbing for the benchmarks: one mock model server (own process) + one `wrangler dev` (real workerd),
// timing helpers, percentiles and table printing. Benchmarks print figures; they never assert.
import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import {
  Api,
  Mock,
  nodeBinary,
  repoRoot,
  runCommand,
  SseParser,
  startMockProcess,
  startWrangler,
  wranglerEntry,
  wranglerEnv,
} from "../test/helpers/index.ts";

export { performance };

/** Now, in milliseconds since the epoch with sub-millisecond precision (the mock's records carry the same: `at_ms`). */
export function epochMs() {
  return performance.timeOrigin + performance.now();
}

/**
 * Wrangler's local trace collector off, unless the caller set X_LOCAL_OBSERVABILITY. `wrangler dev` (miniflare)
 * streams every invocation of every worker it runs to a collector worker in the same workerd, which writes the
 * spans into a local SQLite for its local explorer: about 19 pages written per Switchboard turn, and ~5 ms of
 * workerd CPU per turn for every stack measured here, the platform floor included (bench/README.md). Deployed,
 * traces are exported by the platform, outside the isolate. X_LOCAL_OBSERVABILITY=true measures with it on.
 */
process.env.X_LOCAL_OBSERVABILITY ??= "false";

export const ADMIN_KEY = "bench-admin-key";

/**
 * The benches' API client reads answers as they come: the tests' check of every answer against the OpenAPI document
 * runs in this process and hands a stream on one transform later, which the first-token figures would count.
 */
const BENCH_CLIENT = { checkAnswers: false };

export function requireNode() {
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (major < 22 || (major === 22 && minor < 18)) {
    console.error(
      `bench needs Node >= 22.18 (type stripping); this is ${process.version}. ` +
        "Run it through `npm run bench` or with node_modules/.bin/node.",
    );
    process.exit(2);
  }
}

export function log(message) {
  process.stderr.write(`[bench] ${message}\n`);
}

/**
 * Bundles the worker once (`wrangler deploy --dry-run --outdir`) and writes a config that serves that bundle
 * unbundled. `wrangler dev` watches its sources and restarts the worker when one changes; serving a snapshot
 * keeps edits made in src/ while a bench runs from restarting the worker mid-request (and the figures all
 * describe one version of the code).
 */
async function snapshotWorker() {
  const dir = await mkdtemp(path.join(tmpdir(), "switchboard-bench-"));
  const outdir = path.join(dir, "dist");
  await runCommand(nodeBinary(), [wranglerEntry(), "deploy", "--dry-run", "--outdir", outdir], {
    env: wranglerEnv(),
    what: "bundling the worker",
  });
  const toml = await readFile(path.join(repoRoot, "wrangler.toml"), "utf8");
  if (!/^main\s*=.*$/m.test(toml)) throw new Error("wrangler.toml has no main = line");
  const config = toml
    .replace(/^main\s*=.*$/m, `main = ${JSON.stringify(path.join(outdir, "index.js"))}\nno_bundle = true`)
    .replace(
      /^migrations_dir\s*=\s*"([^"]*)"/m,
      (_, dir) => `migrations_dir = ${JSON.stringify(path.resolve(repoRoot, dir))}`,
    )
    // (The config moves to a temporary folder: paths relative to it must stay the repository's.)
    .replace(/^directory\s*=\s*"([^"]*)"/m, (_, dir) => `directory = ${JSON.stringify(path.resolve(repoRoot, dir))}`);
  const configPath = path.join(dir, "wrangler.toml");
  await writeFile(configPath, config);
  return { configPath, persistDir: path.join(dir, "state"), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Starts the mock and the worker; returns clients, restartWorker() and a stop() that ends both. `vars`: worker
 * variables for every run of this environment (e.g. SWITCHBOARD_DEBUG_SEED for bench/compaction.mjs).
 * `options.extraArgs`: more `wrangler dev` arguments (e.g. `--inspector-port` for bench/profile-turn.mjs);
 * `options.logLevel`: wrangler's (`info` by default, which leaves out the worker's console.log lines; `log` keeps them).
 * The worker's event lines follow the log level as `npm start` sets them (scripts/start.mjs): off unless the level
 * keeps them, since at `info` wrangler carries each line over its inspector pipe only to drop it (~4 ms of workerd
 * CPU per turn); `vars.SWITCHBOARD_LOG_EVENTS` overrides.
 */
export async function startEnv(vars = {}, options = {}) {
  const t0 = performance.now();
  const snapshot = await snapshotWorker();
  const mockProc = await startMockProcess();
  // persistDir null: a state directory of its own, removed when that worker stops.
  const launch = (migrate, extraVars = {}, persistDir = snapshot.persistDir) =>
    startWrangler({
      extraArgs: ["--config", snapshot.configPath, ...(options.extraArgs ?? [])],
      logLevel: options.logLevel,
      persistDir: persistDir ?? undefined,
      migrate: migrate ? "DB" : false,
      vars: {
        SWITCHBOARD_ADMIN_KEY: ADMIN_KEY,
        ANTHROPIC_API_KEY: "bench-anthropic-key",
        ANTHROPIC_BASE_URL: mockProc.url,
        OPENAI_API_KEY: "bench-openai-key",
        OPENAI_BASE_URL: `${mockProc.url}/v1`,
        SWITCHBOARD_ALLOW_PRIVATE_URLS: "true",
        SWITCHBOARD_LOG_EVENTS: ["log", "debug"].includes(options.logLevel ?? "info") ? "true" : "false",
        // Benches drive thousands of requests with one key; the default limit (600/min) would cut them off.
        SWITCHBOARD_RATE_LIMIT_PER_MIN: "0",
        ...vars,
        ...extraVars,
      },
    });
  let worker;
  try {
    worker = await launch(true);
  } catch (error) {
    await mockProc.stop();
    await snapshot.cleanup();
    throw error;
  }
  const api = new Api(worker.url, ADMIN_KEY, BENCH_CLIENT);
  const { key } = await api.createKey(`bench-${randomUUID().slice(0, 8)}`);
  log(`mock on ${mockProc.url}, worker on ${worker.url} (ready in ${Math.round(performance.now() - t0)} ms)`);
  const env = {
    api,
    key,
    mock: new Mock(mockProc.url),
    mockUrl: mockProc.url,
    workerUrl: worker.url,
    worker,
    /**
     * Stops workerd and starts it again on the same state: every Durable Object wakes up cold (and every
     * isolate cache is empty). `extraVars` are worker variables for the new run only (e.g. a D1 delay).
     */
    async restartWorker(extraVars = {}) {
      await worker.stop();
      worker = await launch(false, extraVars);
      env.worker = worker;
      env.workerUrl = worker.url;
      env.api = new Api(worker.url, ADMIN_KEY, BENCH_CLIENT);
    },
    /**
     * Another worker on the same snapshot and mock, with its own state and `extraVars` on top of this
     * environment's variables (a variant measured next to it); a client like this environment's, with its own key.
     */
    async startSibling(extraVars = {}) {
      const sibling = await launch(true, extraVars, null);
      const siblingApi = new Api(sibling.url, ADMIN_KEY, BENCH_CLIENT);
      const created = await siblingApi.createKey(`bench-${randomUUID().slice(0, 8)}`).catch(async (error) => {
        await sibling.stop();
        throw error;
      });
      return {
        api: siblingApi,
        key: created.key,
        mock: env.mock,
        mockUrl: mockProc.url,
        workerUrl: sibling.url,
        worker: sibling,
        stop: () => sibling.stop(),
      };
    },
    async stop() {
      await worker.stop();
      await mockProc.stop();
      await snapshot.cleanup();
    },
  };
  return env;
}

/** Runs `fn(env)` with a private environment when a bench file is started on its own (`vars`, `options`: see startEnv). */
export async function standalone(name, fn, vars = {}, options = {}) {
  requireNode();
  const env = await startEnv(vars, options);
  let figures;
  try {
    figures = await fn(env);
  } finally {
    await env.stop();
  }
  console.log(JSON.stringify({ bench: name, ...figures }));
}

/** An agent on the Anthropic adapter whose model name no other bench uses; returns the model name. */
export async function makeAgent(env, prefix) {
  const model = `${prefix}-${randomUUID().slice(0, 8)}`;
  await env.api.putAgent(model, {
    model: { provider: "anthropic", name: model },
    system: "You are a benchmark agent.",
    max_steps: 4,
  });
  return { agent: model, model };
}

/**
 * A bench agent's config with `n` tools from the disclosure bench's realistic catalog (client tools the model never
 * calls, all but the first 10 deferred): what a text turn costs an agent of many tools.
 */
export async function manyToolsAgent(model, n) {
  // Loaded on demand: the catalog's module brings a tokenizer (0.2 s to import) that other benches do not need.
  const { realisticTools } = await import("./disclosure-lib.ts");
  return {
    model: { provider: "anthropic", name: model },
    system: "You are a benchmark agent.",
    max_steps: 4,
    tools: realisticTools(n).map((t, i) => ({ ...t, execution: { type: "client" }, defer: i >= 10 })),
  };
}

/** A bench agent's config with one http tool, get_weather, served by the mock (`{mockUrl}/_tool`). */
export function weatherToolAgent(model, mockUrl) {
  return {
    model: { provider: "anthropic", name: model },
    system: "You are a benchmark agent.",
    max_steps: 4,
    tools: [
      {
        name: "get_weather",
        description: "Weather for a city",
        input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        execution: { type: "http", url: `${mockUrl}/_tool` },
      },
    ],
  };
}

export async function newSession(env, agent) {
  return (await env.api.createSession(env.key, agent)).id;
}

/**
 * Reads an SSE body as it arrives. `isContent(frame)` marks the first frame that carries model content;
 * returns times (ms, relative to `t0`) of the first content frame and of the end, plus frame counts.
 */
export async function readTimedSse(res, t0, isContent) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  let firstContent = null;
  let frames = 0;
  let contentFrames = 0;
  let done = false;
  const kinds = {};
  for (;;) {
    const { value, done: eof } = await reader.read();
    if (eof) break;
    const now = performance.now();
    for (const frame of parser.feed(decoder.decode(value, { stream: true }))) {
      if (frame.data === "[DONE]") {
        done = true;
        continue;
      }
      frames++;
      const kind = frame.json?.type ?? frame.event ?? "?";
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      if (isContent(frame)) {
        contentFrames++;
        if (firstContent === null) firstContent = now - t0;
      }
    }
    if (done) {
      await reader.cancel().catch(() => {});
      break;
    }
  }
  return { firstContent, end: performance.now() - t0, frames, contentFrames, done, kinds };
}

/** Deterministic prose of `n` words (each word is one delta in the mock's word chunking). */
export function words(n, seed = 0) {
  const vocab = [
    "the",
    "switchboard",
    "routes",
    "every",
    "chat",
    "session",
    "to",
    "its",
    "own",
    "durable",
    "object,",
    "which",
    "streams",
    "model",
    "output",
    "and",
    "keeps",
    "history",
    "in",
    "sqlite.",
  ];
  const out = [];
  for (let i = 0; i < n; i++) out.push(vocab[(i + seed) % vocab.length]);
  return out.join(" ");
}

/** Nearest-rank percentile of a numeric array (p in 0..100). */
export function pct(values, p) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1];
}

export function mean(values) {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

export function round(value, digits = 1) {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Prints a plain aligned table: headers + rows of cells (numbers right-aligned). */
export function table(title, headers, rows) {
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === null || c === undefined ? "-" : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  const line = (r, isHeader) =>
    r
      .map((c, i) => (isHeader || i === 0 || Number.isNaN(Number(c)) ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join("  ");
  console.log(`\n${title}`);
  console.log(line(cells[0], true));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of cells.slice(1)) console.log(line(r, false));
}

/** Runs `tasks` (functions returning promises) with at most `limit` in flight. */
export async function pool(tasks, limit) {
  const results = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

/** Turn events of a session after `after` (pages through the whole list). */
export async function eventsAfter(env, sessionId, after = 0) {
  const out = [];
  let cursor = after;
  for (let i = 0; i < 100; i++) {
    const page = await env.api.events(env.key, sessionId, cursor);
    out.push(...page.events);
    if (page.events.length === 0 || page.next === null || page.next === undefined) break;
    cursor = page.next;
  }
  return out;
}

/**
 * CPU time (ms, user + system) each process of a process group (a `wrangler dev`: wrangler's Node processes, its
 * proxy's workerd and the runtime's) has used so far, from /proc (Linux; empty elsewhere). Clock ticks are 10 ms:
 * read it around hundreds of requests, not one.
 */
export async function groupCpu(pgid) {
  const out = [];
  for (const pid of await readdir("/proc").catch(() => [])) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
    if (!stat) continue;
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    // After the comm: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(f[2]) === pgid) out.push({ pid, comm, ms: (Number(f[11]) + Number(f[12])) * 10 });
  }
  return out;
}

/** CPU time (ms) of the workerd processes of a process group (see groupCpu); null when none is found. */
export async function workerdCpuMs(pgid) {
  const workerds = (await groupCpu(pgid)).filter((p) => p.comm.startsWith("workerd"));
  return workerds.length ? workerds.reduce((sum, p) => sum + p.ms, 0) : null;
}
