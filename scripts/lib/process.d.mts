// Types of process.mjs: the process helpers shared by `npm start`, the e2e tests and the benches.
import type { ChildProcess, SpawnOptions } from "node:child_process";

export declare const repoRoot: string;
export declare const HOST: string;
/** `wrangler dev` arguments for the API together with the web client's worker (web/wrangler.toml). */
export declare const WITH_WEB_CLIENT: string[];
export declare const NODE_FOR_WRANGLER: readonly [number, number];
export declare const NODE_FOR_TS: readonly [number, number];

export declare function sleep(ms: number): Promise<void>;

/** A Node binary of at least `min` (default: what wrangler needs): this one, else the `node` devDependency. */
export declare function nodeBinary(opts?: { root?: string; min?: readonly [number, number] }): string;
/** wrangler's JS entry point (run it with nodeBinary(), never through a shell). */
export declare function wranglerEntry(root?: string): string;
/** This environment with nothing reaching Cloudflare (metrics, the Request.cf fetch). */
export declare function offlineEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;
/** offlineEnv, plus quiet and non-interactive: for wrangler children whose output is captured. */
export declare function wranglerEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;

/** Asks the OS for a free port on `host` (there is a small race until the caller binds it). */
export declare function freePort(host?: string): Promise<number>;
export declare function portIsFree(port: number, host?: string): Promise<boolean>;

export interface WaitForHttpOptions {
  /** Named in the error (default: the URL). */
  what?: string;
  timeoutMs?: number;
  intervalMs?: number;
  /** The server's process: waiting ends with an error when it exits. */
  child?: ChildProcess;
  /** Waiting ends with an error once this returns true. */
  stopped?: () => boolean;
}

/** Polls GET `url` until it answers 200. */
export declare function waitForHttp(url: string, opts?: WaitForHttpOptions): Promise<void>;
/** True once `child` has exited, false when `ms` pass first. */
export declare function waitForExit(child: ChildProcess, ms: number): Promise<boolean>;

/** Spawns `command` as the leader of its own process group. */
export declare function spawnGroup(command: string, args: readonly string[], options?: SpawnOptions): ChildProcess;
/** Signals a process group; a group already gone is ignored. */
export declare function killGroup(pid: number, signal: NodeJS.Signals): void;
/** SIGTERM to the group, SIGKILL after `graceMs`, then a last SIGKILL to the group. */
export declare function stopGroup(child: ChildProcess, graceMs?: number): Promise<void>;
/** Kills the group `pid` when this process exits (and on unhandled signals); returns the hooks' remover. */
export declare function killGroupOnExit(pid: number, opts?: { signals?: boolean }): () => void;
/** Kills a child (not a group) and resolves once it has exited. */
export declare function killChild(child: ChildProcess, signal?: NodeJS.Signals): Promise<void>;

export declare function tail(text: string, lines?: number): string;
/** Copies a stream to `out` line by line, each line prefixed. */
export declare function prefixLines(stream: NodeJS.ReadableStream, prefix: string, out: NodeJS.WritableStream): void;
/** Runs a command to completion; resolves with its output, rejects with its tail. */
export declare function runCommand(
  command: string,
  args: readonly string[],
  opts?: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; what?: string },
): Promise<string>;

export interface MockProcess {
  url: string;
  port: number;
  pid: number | undefined;
  child: ChildProcess;
  /** SIGTERM, then SIGKILL to its group. */
  stop(): Promise<void>;
}

/** The mock model server in its own process; `prefix` copies its output (lines prefixed), else it runs quiet. */
export declare function startMockProcess(opts?: {
  port?: number;
  prefix?: string;
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}): Promise<MockProcess>;

/** Applies local D1 migrations into `persistDir` (idempotent). */
export declare function applyMigrations(opts: {
  persistDir: string;
  cwd?: string;
  database?: string;
  env?: NodeJS.ProcessEnv;
}): Promise<string>;

export type WranglerLogLevel = "debug" | "info" | "log" | "warn" | "error" | "none";

export interface StartWranglerOptions {
  /** Port for the worker (default: a free one). Always on 127.0.0.1. */
  port?: number;
  /** Worker variables, passed as `--var KEY:VALUE` (they override wrangler.toml [vars] and .dev.vars). */
  vars?: Record<string, string>;
  /** A dotenv file of worker variables (`--env-file`), which keeps secrets out of argv. */
  envFile?: string;
  /** Local state (D1, DO SQLite). Default: a fresh temp dir, removed by stop(). */
  persistDir?: string;
  /** Project root holding wrangler.toml (default: this repository). */
  cwd?: string;
  /** D1 binding or database name whose migrations are applied (default "DB"); false skips migrations. */
  migrate?: string | false;
  /** How long to wait for GET /healthz to answer 200 (default 60 s). */
  timeoutMs?: number;
  logLevel?: WranglerLogLevel;
  /** "inherit": wrangler writes to this process's stdout/stderr; default: captured (see output()). */
  output?: "capture" | "inherit";
  /** Copy captured output to this process's stderr as it arrives (default: env E2E_WRANGLER_LOGS=1). */
  echo?: boolean;
  /** The child's environment (default: wranglerEnv()). */
  env?: NodeJS.ProcessEnv;
  /** Kill the group on SIGINT/SIGTERM/SIGHUP nobody else handles (default true; false when the caller handles them). */
  killOnSignals?: boolean;
  /** Extra wrangler dev arguments (before the --var list). */
  extraArgs?: string[];
}

export interface WranglerServer {
  /** Base URL, e.g. http://127.0.0.1:53211 (no trailing slash). */
  url: string;
  port: number;
  persistDir: string;
  pid: number;
  child: ChildProcess;
  /** wrangler's captured stdout and stderr so far (the last 256 KiB), for failure messages. */
  output(): string;
  /** Kills the whole process group (wrangler and workerd); removes the persist dir if it was a temp one. */
  stop(): Promise<void>;
}

/** Starts `wrangler dev` on 127.0.0.1 and resolves once GET /healthz answers 200. */
export declare function startWrangler(opts?: StartWranglerOptions): Promise<WranglerServer>;
