// `npm start` as people run it (scripts/start.mjs through npm): with the production URL policy it stays up and
// says why the demo tool is missing, it prints the web app's URL, a SIGTERM to npm — which reaches only the
// `sh -c` npm runs the script in — still stops every process it started, workerd included, and a rate limit set in
// the shell reaches the worker without refusing the script's own setup.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alive } from "../helpers/alive.ts";
import { freePort, repoRoot } from "../helpers/index.ts";

const READY_MS = 120_000;
const adminKey = `sb_admin_start_${process.pid}_${Date.now()}`;

let npm: ChildProcess;
let output = "";
let stateDir: string;
let baseUrl: string;
/** Every process under npm once the stack is up: [pid, command line]. */
let tree: Array<[number, string]> = [];

/** The processes below `root` (inclusive), from one `ps` snapshot. */
async function descendants(root: number): Promise<Array<[number, string]>> {
  const { stdout } = await promisify(execFile)("ps", ["-A", "-o", "pid=,ppid=,args="]);
  const rows = stdout
    .split("\n")
    .map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/))
    .filter((m) => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] ?? "" }));
  const found: Array<[number, string]> = [];
  const visit = (pid: number) => {
    for (const row of rows.filter((r) => r.ppid === pid)) {
      found.push([row.pid, row.args]);
      visit(row.pid);
    }
  };
  visit(root);
  return found;
}

function waitForOutput(pattern: RegExp, ms: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      clearInterval(poll);
      reject(new Error(`npm start did not print ${pattern} within ${ms / 1000} s:\n${output.slice(-4000)}`));
    }, ms);
    const poll = setInterval(() => {
      const match = output.match(pattern);
      if (match || npm.exitCode !== null) {
        clearTimeout(timer);
        clearInterval(poll);
        if (match) resolve(match);
        else reject(new Error(`npm start exited with ${npm.exitCode}:\n${output.slice(-4000)}`));
      }
    }, 100);
  });
}

/**
 * Runs `npm start` on `stateDir`, with `shell` added to its environment, and waits until it says it is up;
 * `output`, `baseUrl` and `tree` describe it.
 */
async function start(shell: Record<string, string> = {}): Promise<void> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    SWITCHBOARD_STATE_DIR: stateDir,
    SWITCHBOARD_ALLOW_PRIVATE_URLS: "false",
    SWITCHBOARD_ADMIN_KEY: adminKey,
    WRANGLER_LOG_LEVEL: "warn",
    ...shell,
  };
  delete env.ANTHROPIC_API_KEY;
  delete env.OPENAI_API_KEY;
  output = "";
  npm = spawn("npm", ["start"], { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] });
  npm.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  npm.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  baseUrl = `http://127.0.0.1:${port}`;
  await waitForOutput(/Ctrl-C stops everything/, READY_MS);
  if (npm.pid !== undefined) tree = await descendants(npm.pid);
}

/** Stops `npm start` with a SIGTERM to npm; the processes still alive after 30 s. */
async function stop(): Promise<Array<[number, string]>> {
  npm.kill("SIGTERM");
  const deadline = Date.now() + 30_000;
  let left = tree.filter(([pid]) => alive(pid));
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    left = tree.filter(([pid]) => alive(pid));
  }
  return left;
}

beforeAll(async () => {
  stateDir = await mkdtemp(path.join(tmpdir(), "switchboard-start-test-"));
  await start();
}, READY_MS + 10_000);

afterAll(async () => {
  // Whatever the tests did, leave nothing running.
  if (npm?.pid !== undefined && alive(npm.pid)) npm.kill("SIGKILL");
  for (const [pid] of tree) if (alive(pid)) process.kill(pid, "SIGKILL");
  if (stateDir) await rm(stateDir, { recursive: true, force: true });
});

describe("npm start", () => {
  it("stays up under the production URL policy and says the demo tool needs private URLs", async () => {
    expect(output).toMatch(/the demo agent has no get_weather tool/);
    expect(output).toMatch(/SWITCHBOARD_ALLOW_PRIVATE_URLS=true/);
    expect(npm.exitCode).toBeNull();
    const agent = await fetch(`${baseUrl}/v1/agents/demo`, { headers: { authorization: `Bearer ${adminKey}` } });
    expect(agent.status).toBe(200);
    expect(((await agent.json()) as { tools: unknown[] }).tools).toEqual([]);
  });

  it("prints the web app's URL with a working session token, and it serves the app", async () => {
    const url = new URL(output.match(/Web app: (http:\/\/\S+)/)?.[1] ?? "http://invalid/");
    expect(`${url.origin}${url.pathname}`).toBe(`${baseUrl}/`);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    const fragment = new URLSearchParams(url.hash.slice(1));
    expect(fragment.get("session")).toBe("demo");
    const token = fragment.get("token") ?? "";
    expect(token).toMatch(/^sbt_/);
    const session = await fetch(`${baseUrl}/v1/sessions/demo`, { headers: { authorization: `Bearer ${token}` } });
    expect(session.status).toBe(200);
  });

  it("a SIGTERM to npm stops every process it started, workerd included", async () => {
    expect(tree.some(([, args]) => /workerd/.test(args))).toBe(true);
    expect(await stop()).toEqual([]);
  }, 40_000);

  it(
    "starts again on the state the first start left, its demo session and key reused",
    async () => {
      await start();
      const url = new URL(output.match(/Web app: (http:\/\/\S+)/)?.[1] ?? "http://invalid/");
      const token = new URLSearchParams(url.hash.slice(1)).get("token") ?? "";
      const session = await fetch(`${baseUrl}/v1/sessions/demo`, { headers: { authorization: `Bearer ${token}` } });
      expect(session.status).toBe(200);
      expect(await stop()).toEqual([]);
    },
    READY_MS + 40_000,
  );

  it(
    "applies a rate limit from the shell once its setup is done: the dev key's second request is refused",
    async () => {
      // A third start on this state: its setup spends three requests of the dev key (probe, session, token).
      await start({ SWITCHBOARD_RATE_LIMIT_PER_MIN: "1" });
      const devKey = output.match(/dev API key: +(sk_sb_\S+)/)?.[1] ?? "";
      const statuses: number[] = [];
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${baseUrl}/v1/sessions/demo`, { headers: { authorization: `Bearer ${devKey}` } });
        statuses.push(res.status);
      }
      expect(statuses).toEqual([200, 429]);
      expect(await stop()).toEqual([]);
    },
    READY_MS + 40_000,
  );
});
