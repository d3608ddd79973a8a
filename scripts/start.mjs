#!/usr/bin/env node
// `npm start`: run Switchboard locally in real workerd (wrangler dev), offline unless provider keys are set.
//
// - With neither ANTHROPIC_API_KEY nor OPENAI_API_KEY in the environment, starts the bundled mock model
//   server (mock/server.ts) on a free port and points both provider base URLs at it.
// - Admin key: SWITCHBOARD_ADMIN_KEY, or a development key generated once and kept in the state dir.
// - Every worker variable the shell sets (those of src/env.ts: docs/API.md "Configuration") reaches the worker.
//   SWITCHBOARD_ALLOW_PRIVATE_URLS defaults to "true"; PORT defaults to 8787 (always on 127.0.0.1). With the
//   production policy ("false") the demo agent gets no tool: its local endpoint is a private URL the policy refuses.
//   SWITCHBOARD_RATE_LIMIT_PER_MIN applies once the demo is set up (wrangler starts again with it).
// - State persists in .wrangler/state (SWITCHBOARD_STATE_DIR overrides); D1 migrations are applied first.
// - Bootstraps a demo, idempotently: an API key for tenant "dev", an agent "demo" with one http tool
//   `get_weather` (served by a tiny endpoint this script runs), and a session "demo"; then prints a curl.
// - Builds the web client and prints its URL (with a session token for the demo session) and a curl.
// - Ctrl-C, SIGTERM or SIGHUP stops everything: wrangler (and workerd), the mock, the tool endpoint. So does the end
//   of the parent process: `npm start` runs this script under `sh -c`, and a SIGTERM to npm reaches only that shell.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  HOST,
  NODE_FOR_TS,
  nodeBinary,
  offlineEnv,
  portIsFree,
  repoRoot as root,
  runCommand,
  startMockProcess,
  startWrangler,
  WITH_WEB_CLIENT,
  wranglerEntry,
} from "./lib/process.mjs";
import { workerVarsFromShell } from "./lib/worker-vars.mjs";

const env = process.env;
const port = Number(env.PORT || 8787);
const stateDir = path.resolve(root, env.SWITCHBOARD_STATE_DIR || ".wrangler/state");
const credentialsFile = path.join(stateDir, "switchboard-dev.json");
const useMock = !env.ANTHROPIC_API_KEY && !env.OPENAI_API_KEY;
const quiet = env.SWITCHBOARD_QUIET === "1";

/** @type {Array<() => Promise<void> | void>} */
const cleanups = [];
let stopping = false;

function log(message) {
  console.log(`[start] ${message}`);
}

function fail(message) {
  console.error(`[start] error: ${message}`);
  return shutdown(1);
}

// ---------------------------------------------------------------- helpers

const childEnv = offlineEnv();

/** Stops everything if a child this script started exits while nothing is stopping. */
function watch(name, child) {
  child.on("exit", (code, signal) => {
    if (!stopping) {
      console.error(`[start] ${name} exited unexpectedly (code ${code}, signal ${signal})`);
      void shutdown(1);
    }
  });
}

/** Writes a dotenv file wrangler reads as the worker's local vars/secrets (keeps keys out of argv). */
function dotenv(vars) {
  return Object.entries(vars)
    .map(([k, v]) => {
      if (/['\n\r$]/.test(v))
        throw new Error(`${k} contains a character this script cannot pass safely ( ' $ or newline)`);
      return `${k}='${v}'`;
    })
    .join("\n");
}

async function api(baseUrl, method, p, key, body) {
  const res = await fetch(`${baseUrl}${p}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      accept: "application/json",
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

async function readCredentials() {
  try {
    return JSON.parse(await readFile(credentialsFile, "utf8"));
  } catch {
    return {};
  }
}

async function saveCredentials(credentials) {
  await mkdir(stateDir, { recursive: true });
  await writeFile(credentialsFile, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
}

// ---------------------------------------------------------------- the demo tool

function startWeatherTool() {
  const server = createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (c) => {
      raw += c;
    });
    req.on("end", () => {
      let city = "Paris";
      try {
        const input = JSON.parse(raw).input ?? {};
        if (typeof input.city === "string" && input.city.trim()) city = input.city.trim();
      } catch {}
      const body = JSON.stringify({ city, forecast: "sunny", temp_c: 21 });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
      if (!quiet) log(`tool get_weather called for ${city}`);
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, HOST, () => {
      cleanups.push(
        () =>
          new Promise((r) => {
            server.close(() => r());
            server.closeAllConnections();
          }),
      );
      resolve(`http://${HOST}:${server.address().port}`);
    });
  });
}

// ---------------------------------------------------------------- main

async function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch (error) {
      console.error(`[start] cleanup failed: ${error?.message ?? error}`);
    }
  }
  process.exit(code);
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    if (!stopping) log(`${signal}: stopping…`);
    void shutdown(0);
  });
}

// `npm start` → `sh -c "node scripts/start.mjs"`: a SIGTERM to npm stops npm and the shell but never reaches this
// process, which is then re-parented. Noticing that is the one portable way to stop with them.
const parentPid = process.ppid;
setInterval(() => {
  if (process.ppid !== parentPid && !stopping) {
    log(`the parent process (${parentPid}) has exited: stopping…`);
    void shutdown(0);
  }
}, 250).unref();

async function main() {
  // A Node that can run wrangler (>= 22.12) and the TypeScript mock (type stripping, >= 22.18).
  const node = nodeBinary({ min: NODE_FOR_TS });
  const wrangler = wranglerEntry();
  if (!existsSync(wrangler)) return fail("node_modules/wrangler is missing; run `npm ci` first");
  if (!Number.isInteger(port) || port <= 0 || port > 65535) return fail(`PORT must be a TCP port, got ${env.PORT}`);
  if (!(await portIsFree(port))) return fail(`port ${port} on ${HOST} is in use; set PORT to another one`);

  const credentials = await readCredentials();
  const adminKey =
    env.SWITCHBOARD_ADMIN_KEY || credentials.admin_key || `sb_admin_dev_${randomBytes(18).toString("base64url")}`;
  if (!env.SWITCHBOARD_ADMIN_KEY && credentials.admin_key !== adminKey) {
    credentials.admin_key = adminKey;
    await saveCredentials(credentials);
  }

  // 1. The model provider: the bundled mock, unless real keys are set.
  const logLevel = env.WRANGLER_LOG_LEVEL || "info";
  // Every worker variable the shell sets (src/env.ts lists them), then the ones this script decides.
  const vars = {
    ...workerVarsFromShell(env),
    SWITCHBOARD_ADMIN_KEY: adminKey,
    SWITCHBOARD_ALLOW_PRIVATE_URLS: env.SWITCHBOARD_ALLOW_PRIVATE_URLS || "true",
    // wrangler prints the worker's console.log lines from `--log-level log` on; below that it still carries each
    // one over its inspector pipe (~7 ms of CPU per turn's pair of lines, bench/peer.mjs) and drops it. So the
    // session event lines are on exactly when they are shown, unless set.
    SWITCHBOARD_LOG_EVENTS: env.SWITCHBOARD_LOG_EVENTS || (["log", "debug"].includes(logLevel) ? "true" : "false"),
  };
  // The worker's own reading of the flag (src/env.ts `flag`).
  const allowPrivate = ["true", "1"].includes(vars.SWITCHBOARD_ALLOW_PRIVATE_URLS);
  let demoModel;
  if (useMock) {
    const mock = await startMockProcess({ prefix: "[mock] ", env: childEnv });
    cleanups.push(() => mock.stop());
    watch("mock model server", mock.child);
    const mockUrl = mock.url;
    Object.assign(vars, {
      ANTHROPIC_API_KEY: "mock-anthropic-key",
      ANTHROPIC_BASE_URL: mockUrl,
      OPENAI_API_KEY: "mock-openai-key",
      OPENAI_BASE_URL: `${mockUrl}/v1`,
    });
    demoModel = { provider: "anthropic", name: "mock-demo" };
    log(`no ANTHROPIC_API_KEY / OPENAI_API_KEY set: using the mock model server at ${mockUrl}`);
  } else if (env.ANTHROPIC_API_KEY) {
    demoModel = { provider: "anthropic", name: env.SWITCHBOARD_DEMO_MODEL || "claude-sonnet-4-5" };
  } else {
    demoModel = { provider: "openai", name: env.SWITCHBOARD_DEMO_MODEL || "gpt-4o-mini" };
  }

  // 2. The demo tool endpoint: a loopback URL, so only when the URL policy allows private targets.
  const toolUrl = allowPrivate ? await startWeatherTool() : undefined;

  // 3. The web client (web/ → web/dist, its own assets-only worker), local D1 migrations, then wrangler dev.
  log("building the web client (web/ → web/dist)");
  await runCommand(
    node,
    [path.join(root, "node_modules", "vite", "bin", "vite.js"), "build", "--config", "web/vite.config.ts"],
    { env: childEnv, what: "vite build" },
  );
  await mkdir(stateDir, { recursive: true });

  const varsDir = await mkdtemp(path.join(tmpdir(), "switchboard-start-"));
  cleanups.push(() => rm(varsDir, { recursive: true, force: true }));
  const varsFile = path.join(varsDir, "worker.env");
  /** Starts wrangler dev with `workerVars`; wrangler's output goes to this terminal. */
  const launch = async (workerVars, migrate) => {
    await writeFile(varsFile, `${dotenv(workerVars)}\n`, { mode: 0o600 });
    await chmod(varsFile, 0o600);
    return startWrangler({
      port,
      persistDir: stateDir,
      envFile: varsFile,
      logLevel,
      output: "inherit",
      env: childEnv,
      // The API first (it takes the requests), then the web client's worker it forwards `/` to.
      extraArgs: WITH_WEB_CLIENT,
      // This script handles the signals itself (a graceful stop of everything, below).
      killOnSignals: false,
      timeoutMs: 90_000,
      migrate: migrate ? "DB" : false,
    });
  };
  // A rate limit from the shell applies only once the demo is set up: the setup's requests with the dev key would
  // spend its budget (a low limit would refuse them), so wrangler starts without it and then again with it.
  const { SWITCHBOARD_RATE_LIMIT_PER_MIN: rateLimit, ...setupVars } = vars;

  log(
    `applying D1 migrations into ${stateDir.startsWith(`${root}${path.sep}`) ? path.relative(root, stateDir) : stateDir}`,
  );
  // startWrangler applies the D1 migrations into the state dir first.
  let worker = await launch(setupVars, true);
  cleanups.push(() => worker.stop());
  const baseUrl = worker.url;

  // 4. Bootstrap the demo (idempotent).
  const agent = {
    model: demoModel,
    system: toolUrl
      ? "You are a helpful assistant. Use get_weather for any question about the weather."
      : "You are a helpful assistant.",
    tools: toolUrl
      ? [
          {
            name: "get_weather",
            description: "Current weather for a city.",
            input_schema: {
              type: "object",
              properties: { city: { type: "string", description: "City name, e.g. Paris" } },
              required: ["city"],
              additionalProperties: false,
            },
            execution: { type: "http", url: `${toolUrl}/get_weather` },
          },
        ]
      : [],
  };
  if (!toolUrl) {
    log(
      "SWITCHBOARD_ALLOW_PRIVATE_URLS is not true: the demo agent has no get_weather tool, because the demo tool " +
        "is served on 127.0.0.1 and the production URL policy refuses private URLs. Set " +
        "SWITCHBOARD_ALLOW_PRIVATE_URLS=true to try it; agents with public https tools work either way.",
    );
  }
  const put = await api(baseUrl, "PUT", "/v1/agents/demo", adminKey, agent);
  if (put.status >= 300) throw new Error(`PUT /v1/agents/demo → ${put.status}: ${put.text}`);

  let devKey = credentials.dev_key;
  if (devKey) {
    // Still valid in this state dir? (401 means the key is unknown or revoked.)
    const probe = await api(baseUrl, "GET", "/v1/sessions/demo", devKey);
    if (probe.status === 401) devKey = undefined;
  }
  if (!devKey) {
    const created = await api(baseUrl, "POST", "/v1/keys", adminKey, { tenant: "dev", name: "npm start" });
    if (created.status !== 201) throw new Error(`POST /v1/keys → ${created.status}: ${created.text}`);
    devKey = created.json.key;
    credentials.dev_key = devKey;
    await saveCredentials(credentials);
  }

  const session = await api(baseUrl, "POST", "/v1/sessions", devKey, { agent: "demo", id: "demo" });
  // 201 created; 200 the same session again (a later start on this state); 409 the id holds another session.
  if (session.status !== 201 && session.status !== 200 && session.status !== 409) {
    throw new Error(`POST /v1/sessions → ${session.status}: ${session.text}`);
  }

  // A session token for the web app (a browser never holds an API key): the URL fragment carries it.
  const minted = await api(baseUrl, "POST", "/v1/sessions/demo/tokens", devKey, {
    actions: ["send", "read", "stream", "approve"],
    ttl_s: 86_400,
  });
  if (minted.status !== 201) throw new Error(`POST /v1/sessions/demo/tokens → ${minted.status}: ${minted.text}`);
  if (rateLimit !== undefined) {
    log(`demo set up; restarting wrangler with SWITCHBOARD_RATE_LIMIT_PER_MIN=${rateLimit}`);
    await worker.stop();
    worker = await launch(vars, false);
  }
  watch("wrangler", worker.child);

  const appUrl = `${baseUrl}/#${new URLSearchParams({ session: "demo", token: minted.json.token })}`;

  const prompt = toolUrl ? "What is the weather in Paris? use get_weather" : "Hello! What can you do?";
  const curl =
    `curl -N -H "authorization: Bearer ${devKey}" -H 'content-type: application/json' ` +
    `-d '{"content":"${prompt}"}' ${baseUrl}/v1/sessions/demo/messages`;
  console.log(
    [
      "",
      "──────────────────────────────────────────────────────────────────────────",
      ` Switchboard is running at ${baseUrl}`,
      "",
      ` Web app: ${appUrl}`,
      '          (session "demo", a 24 h session token; open it in a browser)',
      "",
      `   model provider: ${useMock ? "bundled mock (offline)" : demoModel.provider} · agent "demo" (${demoModel.name})`,
      `   admin key:      ${adminKey}`,
      `   dev API key:    ${devKey}   (tenant "dev")`,
      `   demo session:   demo`,
      "",
      toolUrl
        ? " Stream a turn that calls the get_weather tool:"
        : " Stream a turn (no demo tool: SWITCHBOARD_ALLOW_PRIVATE_URLS is not true):",
      "",
      `   ${curl}`,
      "",
      " Ctrl-C stops everything.",
      "──────────────────────────────────────────────────────────────────────────",
      "",
    ].join("\n"),
  );
}

main().catch((error) => fail(error?.message ?? String(error)));
