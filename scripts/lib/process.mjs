// The process helpers shared by `npm start` (scripts/start.mjs), the e2e tests (test/helpers) and the benches
// (bench/lib.mjs): a Node that can run wrangler, offline child environments, free ports, waiting for an HTTP
// server to answer, process groups killed cleanly (wrangler *and* workerd), the mock model server as its own
// process, local D1 migrations and `wrangler dev` itself. Plain JavaScript, so `npm start` runs on any Node
// wrangler accepts; the types are in process.d.mts.
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this file lives in scripts/lib/). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Every server these helpers start listens on loopback only. */
export const HOST = "127.0.0.1";

/**
 * `wrangler dev` arguments for the API together with the web client's worker (web/wrangler.toml), which the API
 * forwards the paths it has no route for to (src/http/web-client.ts). The first config takes the requests.
 */
export const WITH_WEB_CLIENT = ["--config", "wrangler.toml", "--config", path.join("web", "wrangler.toml")];

/** The oldest Node wrangler runs on. */
export const NODE_FOR_WRANGLER = [22, 12];
/** The oldest Node that runs the TypeScript mock server directly (type stripping). */
export const NODE_FOR_TS = [22, 18];

const OUTPUT_LIMIT = 256 * 1024;

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function nodeIsAtLeast(version, [wantMajor, wantMinor]) {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  return major > wantMajor || (major === wantMajor && minor >= wantMinor);
}

/** A Node binary of at least `min`: this one when it is new enough, else the `node` devDependency. */
export function nodeBinary({ root = repoRoot, min = NODE_FOR_WRANGLER } = {}) {
  if (nodeIsAtLeast(process.version, min)) return process.execPath;
  const local = path.join(root, "node_modules", ".bin", "node");
  if (existsSync(local)) return local;
  throw new Error(`this needs Node >= ${min.join(".")}; running ${process.version} and no node_modules/.bin/node`);
}

/** wrangler's JS entry point (run it with nodeBinary(), never through a shell). */
export function wranglerEntry(root = repoRoot) {
  return path.join(root, "node_modules", "wrangler", "bin", "wrangler.js");
}

/** The environment of every child: this one, with nothing reaching Cloudflare (metrics, the Request.cf fetch). */
export function offlineEnv(extra = {}) {
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_SEND_ERROR_REPORTS: "false",
    // Otherwise miniflare fetches https://workers.cloudflare.com/cf.json at every start.
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    ...extra,
  };
}

/** Offline, quiet and non-interactive: for wrangler children whose output is captured, not shown. */
export function wranglerEnv(extra = {}) {
  return offlineEnv({
    WRANGLER_HIDE_BANNER: "true",
    CI: "true",
    NO_COLOR: "1",
    FORCE_COLOR: "0",
    ...extra,
  });
}

// ---------------------------------------------------------------- ports

/** Asks the OS for a free port on `host` (there is a small race until the caller binds it). */
export function freePort(host = HOST) {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      if (address === null || typeof address === "string") {
        server.close();
        reject(new Error("could not read the port of a probe server"));
        return;
      }
      const { port } = address;
      server.close(() => resolve(port));
    });
  });
}

/** Whether `port` on `host` can be bound now. */
export function portIsFree(port, host = HOST) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

// ---------------------------------------------------------------- waiting

function exited(child) {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * Polls GET `url` until it answers 200. Gives up when the deadline passes, when `child` (the server's process)
 * exits, or when `stopped()` turns true; the error names `what` and the last answer seen.
 */
export async function waitForHttp(url, { what = url, timeoutMs = 60_000, intervalMs = 250, child, stopped } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer yet";
  while (Date.now() < deadline) {
    if (stopped?.()) throw new Error("stopped");
    if (child && exited(child)) {
      throw new Error(`${what} exited early (code ${child.exitCode}, signal ${child.signalCode})`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      const body = await res.text();
      if (res.status === 200) return;
      last = `HTTP ${res.status}: ${body.slice(0, 500)}`;
    } catch (error) {
      last = error?.cause?.code ?? (error instanceof Error ? error.message : String(error));
    }
    await sleep(intervalMs);
  }
  throw new Error(`${what} did not answer 200 at ${url} within ${timeoutMs / 1000} s (last: ${last})`);
}

/** Resolves true once `child` has exited, false when `ms` pass first. */
export function waitForExit(child, ms) {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      child.off("exit", onExit);
      resolve(false);
    }, ms);
    child.once("exit", onExit);
  });
}

// ---------------------------------------------------------------- process groups

/** Spawns `command` as the leader of its own process group, so the whole group can be killed at once. */
export function spawnGroup(command, args, options = {}) {
  return spawn(command, args, { ...options, detached: true });
}

/** Signals a process group; a group that is already gone is ignored. */
export function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: already gone.
  }
}

/**
 * Stops a group leader's whole group: SIGTERM, then SIGKILL if it has not exited within `graceMs`, then a last
 * SIGKILL to the group (wrangler may exit before workerd).
 */
export async function stopGroup(child, graceMs = 5_000) {
  if (child.pid === undefined) return;
  killGroup(child.pid, "SIGTERM");
  if (!(await waitForExit(child, graceMs))) {
    killGroup(child.pid, "SIGKILL");
    await waitForExit(child, graceMs);
  }
  killGroup(child.pid, "SIGKILL");
}

/**
 * The last resort: when this process exits (and, with `signals`, on SIGINT/SIGTERM/SIGHUP that nobody else
 * handles, which are then re-raised) the group `pid` is killed, so no workerd outlives its parent. Returns the
 * function that removes these hooks.
 */
export function killGroupOnExit(pid, { signals = true } = {}) {
  const onExit = () => killGroup(pid, "SIGKILL");
  const names = signals ? ["SIGINT", "SIGTERM", "SIGHUP"] : [];
  const remove = () => {
    process.off("exit", onExit);
    for (const s of names) process.off(s, onSignal);
  };
  const onSignal = (signal) => {
    killGroup(pid, "SIGKILL");
    remove();
    // Nobody else handles this signal: re-raise it so the default action (exit) still happens.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  process.on("exit", onExit);
  for (const s of names) process.once(s, onSignal);
  return remove;
}

/** Kills a child (not a group) with `signal` and resolves once it has exited. */
export function killChild(child, signal = "SIGKILL") {
  return new Promise((resolve) => {
    if (exited(child)) return resolve();
    child.once("exit", () => resolve());
    child.kill(signal);
  });
}

// ---------------------------------------------------------------- output

/** The last `lines` lines of `text`. */
export function tail(text, lines = 80) {
  return text.split("\n").slice(-lines).join("\n");
}

/** Copies a stream to `out` line by line, each line prefixed (e.g. "[mock] "). */
export function prefixLines(stream, prefix, out) {
  let pending = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) out.write(`${prefix}${line}\n`);
  });
  stream.on("end", () => {
    if (pending) out.write(`${prefix}${pending}\n`);
  });
}

/** Collects a child's output, keeping the tail of a long log (ANSI colours removed); optionally echoes it. */
class OutputLog {
  #text = "";
  #echo;

  constructor(echo) {
    this.#echo = echo;
  }

  append(chunk) {
    const piece = typeof chunk === "string" ? chunk : chunk.toString("utf8");
    if (this.#echo) process.stderr.write(piece);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escape sequences
    this.#text += piece.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");
    if (this.#text.length > OUTPUT_LIMIT) this.#text = this.#text.slice(this.#text.length - OUTPUT_LIMIT);
  }

  toString() {
    return this.#text;
  }
}

/** Runs a command to completion and resolves with its output; rejects with the output's tail when it fails. */
export function runCommand(command, args, { cwd = repoRoot, env = offlineEnv(), timeoutMs = 120_000, what } = {}) {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env, maxBuffer: 16 * 1024 * 1024, timeout: timeoutMs }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`;
      const name = what ?? path.basename(args[0] ?? command);
      if (error) reject(new Error(`${name} failed (${error.message})\n${tail(output)}`));
      else resolve(output);
    });
  });
}

// ---------------------------------------------------------------- the mock model server

/**
 * The mock model server (mock/server.ts) in its own Node process and process group, so its event loop shares
 * no core with the caller. `prefix`: its output is copied to this process's stdout/stderr, lines prefixed;
 * otherwise it runs quiet and only the tail of its stderr is kept, for error messages.
 */
export async function startMockProcess({ port, prefix, timeoutMs = 20_000, env = offlineEnv() } = {}) {
  const mockPort = port ?? (await freePort());
  const child = spawnGroup(
    nodeBinary({ min: NODE_FOR_TS }),
    ["--no-warnings", path.join(repoRoot, "mock", "server.ts")],
    {
      cwd: repoRoot,
      env: { ...env, MOCK_PORT: String(mockPort), ...(prefix === undefined ? { MOCK_QUIET: "1" } : {}) },
      stdio: ["ignore", prefix === undefined ? "ignore" : "pipe", "pipe"],
    },
  );
  let spawnError = null;
  child.once("error", (error) => {
    spawnError = error;
  });
  let stderr = "";
  if (prefix === undefined) {
    child.stderr.on("data", (chunk) => {
      stderr = (stderr + chunk.toString()).slice(-8000);
    });
  } else {
    prefixLines(child.stdout, prefix, process.stdout);
    prefixLines(child.stderr, prefix, process.stderr);
  }
  const removeHooks = killGroupOnExit(child.pid, { signals: false });
  const url = `http://${HOST}:${mockPort}`;
  let stopped = null;
  const stop = () => {
    stopped ??= (async () => {
      await stopGroup(child, 3_000);
      removeHooks();
    })();
    return stopped;
  };
  try {
    await waitForHttp(`${url}/healthz`, {
      what: "the mock model server",
      timeoutMs,
      intervalMs: 100,
      child,
      stopped: () => spawnError !== null,
    });
  } catch (error) {
    await stop();
    if (spawnError) throw new Error(`could not start the mock model server: ${spawnError.message}`);
    throw new Error(`${error.message}${stderr ? `\n${stderr}` : ""}`);
  }
  return { url, port: mockPort, pid: child.pid, child, stop };
}

// ---------------------------------------------------------------- wrangler

/** Applies local D1 migrations into `persistDir` (idempotent). Throws with wrangler's output on failure. */
export function applyMigrations({ persistDir, cwd = repoRoot, database = "DB", env = wranglerEnv() }) {
  return runCommand(
    nodeBinary({ root: cwd }),
    [wranglerEntry(cwd), "d1", "migrations", "apply", database, "--local", "--persist-to", persistDir],
    { cwd, env, what: "wrangler d1 migrations apply" },
  );
}

/**
 * Starts `wrangler dev` on 127.0.0.1 in its own process group and resolves once GET /healthz answers 200.
 * Local D1 migrations are applied into the persist dir first (a fresh temp dir, removed by stop(), unless one
 * is given). Nothing may reach Cloudflare: metrics, the Request.cf fetch and remote bindings are all off.
 */
export async function startWrangler(opts = {}) {
  const cwd = opts.cwd ?? repoRoot;
  const ownsDir = opts.persistDir === undefined;
  const persistDir = opts.persistDir ?? (await mkdtemp(path.join(tmpdir(), "switchboard-wrangler-")));
  const cleanupDir = async () => {
    if (ownsDir) await rm(persistDir, { recursive: true, force: true });
  };

  try {
    if (opts.migrate !== false) await applyMigrations({ persistDir, cwd, database: opts.migrate ?? "DB" });
  } catch (error) {
    await cleanupDir();
    throw error;
  }

  const port = opts.port ?? (await freePort());
  const url = `http://${HOST}:${port}`;
  const args = [
    wranglerEntry(cwd),
    "dev",
    "--ip",
    HOST,
    "--port",
    String(port),
    "--persist-to",
    persistDir,
    "--local",
    ...(opts.envFile ? ["--env-file", opts.envFile] : []),
    "--show-interactive-dev-session=false",
    "--log-level",
    opts.logLevel ?? "info",
    ...(opts.extraArgs ?? []),
  ];
  for (const [key, value] of Object.entries(opts.vars ?? {})) args.push("--var", `${key}:${value}`);

  const inherit = opts.output === "inherit";
  const log = new OutputLog(!inherit && (opts.echo ?? process.env.E2E_WRANGLER_LOGS === "1"));
  const child = spawnGroup(nodeBinary({ root: cwd }), args, {
    cwd,
    env: opts.env ?? wranglerEnv(),
    stdio: inherit ? ["ignore", "inherit", "inherit"] : ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk) => log.append(chunk));
  child.stderr?.on("data", (chunk) => log.append(chunk));
  const pid = await new Promise((resolve, reject) => {
    child.once("spawn", () => resolve(child.pid ?? -1));
    child.once("error", reject);
  }).catch(async (error) => {
    await cleanupDir();
    throw error;
  });

  // Last-resort cleanup if this process ends without calling stop(): never leave workerd running.
  const removeHooks = killGroupOnExit(pid, { signals: opts.killOnSignals ?? true });

  let stopped = null;
  const stop = () => {
    stopped ??= (async () => {
      await stopGroup(child, 5_000);
      removeHooks();
      await cleanupDir();
    })();
    return stopped;
  };

  try {
    await waitForHttp(`${url}/healthz`, { what: "wrangler dev", timeoutMs: opts.timeoutMs ?? 60_000, child });
  } catch (error) {
    await stop();
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(inherit ? message : `${message}\n--- wrangler output (tail) ---\n${tail(log.toString())}`);
  }

  return { url, port, persistDir, pid, child, output: () => log.toString(), stop };
}
