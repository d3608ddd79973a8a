// Starts the worker in real workerd through `wrangler dev`, fully offline, for e2e tests and benchmarks.
//
// - local D1 migrations are applied into the persist dir first (a fresh temp dir unless one is given);
// - wrangler runs in its own process group, so stop() kills wrangler *and* workerd;
// - nothing may reach Cloudflare: metrics, the Request.cf fetch and remote bindings are all off.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./ports.ts";

/** The repository root (this file lives in test/helpers/). */
export const repoRoot: string = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

const MIN_NODE: readonly [number, number] = [22, 12];
const OUTPUT_LIMIT = 256 * 1024;

function nodeIsRecentEnough(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  return major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
}

/** A Node binary wrangler accepts: this one when it is new enough, else the `node` devDependency. */
export function nodeBinary(root: string = repoRoot): string {
  if (nodeIsRecentEnough(process.version)) return process.execPath;
  const local = path.join(root, "node_modules", ".bin", "node");
  if (existsSync(local)) return local;
  throw new Error(
    `wrangler needs Node >= ${MIN_NODE.join(".")}; running ${process.version} and no node_modules/.bin/node`,
  );
}

/** wrangler's JS entry point (run it with nodeBinary(), never through a shell). */
export function wranglerEntry(root: string = repoRoot): string {
  return path.join(root, "node_modules", "wrangler", "bin", "wrangler.js");
}

/** Environment for every wrangler child: offline, quiet, non-interactive. */
export function wranglerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_SEND_ERROR_REPORTS: "false",
    // Otherwise miniflare fetches https://workers.cloudflare.com/cf.json at every start.
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    WRANGLER_HIDE_BANNER: "true",
    CI: "true",
    NO_COLOR: "1",
    FORCE_COLOR: "0",
    ...extra,
  };
}

/**
 * The worker variables every e2e `wrangler dev` runs with: the mock model behind both providers (fake keys),
 * private URLs allowed (tools on loopback) and the debug checks on (invariant P, the 2 MB cell limit).
 */
export function workerVars(
  mockUrl: string,
  adminKey: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    SWITCHBOARD_ADMIN_KEY: adminKey,
    ANTHROPIC_API_KEY: "e2e-anthropic-key",
    ANTHROPIC_BASE_URL: mockUrl,
    OPENAI_API_KEY: "e2e-openai-key",
    OPENAI_BASE_URL: `${mockUrl}/v1`,
    SWITCHBOARD_ALLOW_PRIVATE_URLS: "true",
    SWITCHBOARD_DEBUG_CHECKS: "true",
    ...extra,
  };
}

export type WranglerLogLevel = "debug" | "info" | "log" | "warn" | "error" | "none";

export interface StartWranglerOptions {
  /** Port for the worker (default: a free one). Always on 127.0.0.1. */
  port?: number;
  /** Worker variables, passed as `--var KEY:VALUE` (they override wrangler.toml [vars] and .dev.vars). */
  vars?: Record<string, string>;
  /** Local state (D1, DO SQLite). Default: a fresh temp dir, removed by stop(). */
  persistDir?: string;
  /** Project root holding wrangler.toml (default: this repository). */
  cwd?: string;
  /** D1 binding or database name whose migrations are applied (default "DB"); false skips migrations. */
  migrate?: string | false;
  /** How long to wait for GET /healthz to answer 200 (default 60 s). */
  timeoutMs?: number;
  logLevel?: WranglerLogLevel;
  /** Copy wrangler's output to this process's stderr as it arrives (default: env E2E_WRANGLER_LOGS=1). */
  echo?: boolean;
  /** Extra wrangler dev arguments (before the --var list). */
  extraArgs?: string[];
}

export interface WranglerServer {
  /** Base URL, e.g. http://127.0.0.1:53211 (no trailing slash). */
  url: string;
  port: number;
  persistDir: string;
  pid: number;
  /** wrangler's stdout and stderr so far (the last 256 KiB), for failure messages. */
  output(): string;
  /** Kills the whole process group (wrangler and workerd); removes the persist dir if it was a temp one. */
  stop(): Promise<void>;
}

/** Output collector that keeps the tail of a long log. */
class OutputLog {
  private text = "";
  private readonly echo: boolean;

  constructor(echo: boolean) {
    this.echo = echo;
  }

  append(chunk: Buffer | string): void {
    const piece = typeof chunk === "string" ? chunk : chunk.toString("utf8");
    if (this.echo) process.stderr.write(piece);
    // wrangler colours some output even with NO_COLOR; keep the stored text plain.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escape sequences
    this.text += piece.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");
    if (this.text.length > OUTPUT_LIMIT) this.text = this.text.slice(this.text.length - OUTPUT_LIMIT);
  }

  toString(): string {
    return this.text;
  }
}

function tail(text: string, lines = 80): string {
  return text.split("\n").slice(-lines).join("\n");
}

/** Applies local D1 migrations into `persistDir` (idempotent). Throws with wrangler's output on failure. */
export function applyMigrations(opts: { persistDir: string; cwd?: string; database?: string }): Promise<string> {
  const cwd = opts.cwd ?? repoRoot;
  const args = [
    wranglerEntry(cwd),
    "d1",
    "migrations",
    "apply",
    opts.database ?? "DB",
    "--local",
    "--persist-to",
    opts.persistDir,
  ];
  return new Promise((resolve, reject) => {
    execFile(
      nodeBinary(cwd),
      args,
      { cwd, env: wranglerEnv(), maxBuffer: 16 * 1024 * 1024, timeout: 120_000 },
      (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`;
        if (error) reject(new Error(`wrangler d1 migrations apply failed (${error.message})\n${tail(output)}`));
        else resolve(output);
      },
    );
  });
}

/** Kills a detached child's process group; ignores groups that are already gone. */
function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: already gone.
  }
}

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off("exit", onExit);
      resolve(false);
    }, ms);
    const onExit = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once("exit", onExit);
  });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls GET {url}/healthz until it answers 200, the child exits, or the deadline passes. */
async function waitHealthy(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer yet";
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`wrangler dev exited early (code ${child.exitCode}, signal ${child.signalCode})`);
    }
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) });
      const body = await res.text();
      if (res.status === 200) return;
      last = `HTTP ${res.status}: ${body.slice(0, 500)}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await sleep(250);
  }
  throw new Error(`GET ${url}/healthz did not answer 200 within ${timeoutMs} ms (last: ${last})`);
}

/** Starts `wrangler dev` on 127.0.0.1 and resolves once GET /healthz answers 200. */
export async function startWrangler(opts: StartWranglerOptions = {}): Promise<WranglerServer> {
  const cwd = opts.cwd ?? repoRoot;
  const ownsDir = opts.persistDir === undefined;
  const persistDir = opts.persistDir ?? (await mkdtemp(path.join(tmpdir(), "switchboard-wrangler-")));
  const cleanupDir = async (): Promise<void> => {
    if (ownsDir) await rm(persistDir, { recursive: true, force: true });
  };

  try {
    if (opts.migrate !== false) await applyMigrations({ persistDir, cwd, database: opts.migrate ?? "DB" });
  } catch (error) {
    await cleanupDir();
    throw error;
  }

  const port = opts.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const args = [
    wranglerEntry(cwd),
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--persist-to",
    persistDir,
    "--local",
    "--show-interactive-dev-session=false",
    "--log-level",
    opts.logLevel ?? "info",
    ...(opts.extraArgs ?? []),
  ];
  for (const [key, value] of Object.entries(opts.vars ?? {})) args.push("--var", `${key}:${value}`);

  const log = new OutputLog(opts.echo ?? process.env.E2E_WRANGLER_LOGS === "1");
  const child = spawn(nodeBinary(cwd), args, {
    cwd,
    env: wranglerEnv(),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => log.append(chunk));
  child.stderr?.on("data", (chunk: Buffer) => log.append(chunk));
  const spawned = await new Promise<number>((resolve, reject) => {
    child.once("spawn", () => resolve(child.pid ?? -1));
    child.once("error", reject);
  }).catch(async (error: unknown) => {
    await cleanupDir();
    throw error;
  });
  const pid = spawned;

  // Last-resort cleanup if this process ends without calling stop(): never leave workerd running.
  const onExit = (): void => killGroup(pid, "SIGKILL");
  const onSignal = (signal: NodeJS.Signals): void => {
    killGroup(pid, "SIGKILL");
    removeHooks();
    // Nobody else handles this signal: re-raise it so the default action (exit) still happens.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  const removeHooks = (): void => {
    process.off("exit", onExit);
    for (const s of signals) process.off(s, onSignal);
  };
  process.on("exit", onExit);
  for (const s of signals) process.once(s, onSignal);

  let stopped: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      killGroup(pid, "SIGTERM");
      if (!(await waitForExit(child, 5_000))) {
        killGroup(pid, "SIGKILL");
        await waitForExit(child, 5_000);
      }
      // wrangler may exit before workerd; make sure nothing of the group survives.
      killGroup(pid, "SIGKILL");
      removeHooks();
      await cleanupDir();
    })();
    return stopped;
  };

  try {
    await waitHealthy(url, child, opts.timeoutMs ?? 60_000);
  } catch (error) {
    await stop();
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}\n--- wrangler output (tail) ---\n${tail(log.toString())}`);
  }

  return { url, port, persistDir, pid, output: () => log.toString(), stop };
}
