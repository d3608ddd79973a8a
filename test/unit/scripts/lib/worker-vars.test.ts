// The worker variables `npm start` takes from the shell (scripts/lib/worker-vars.mjs): every one docs/API.md's
// configuration table documents reaches the worker when the shell sets it, and nothing else does.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect, it } from "vitest";
import { repoRoot } from "../../../../scripts/lib/process.mjs";
import { envVariableNames, workerVarsFromShell } from "../../../../scripts/lib/worker-vars.mjs";

/** The variable names in the first column of docs/API.md's "Configuration (worker variables)" table. */
async function documentedVariables(): Promise<string[]> {
  const api = await readFile(path.join(repoRoot, "docs", "API.md"), "utf8");
  const section = api.split("## Configuration (worker variables)")[1]?.split("\n## ")[0] ?? "";
  const rows = section.split("\n").filter((line) => line.startsWith("| `"));
  return rows.flatMap((row) => [...(row.split("|")[1] ?? "").matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1] ?? ""));
}

it("passes on every documented worker variable the shell sets, and no variable of the script's own", async () => {
  const documented = await documentedVariables();
  expect(documented).toContain("SWITCHBOARD_RATE_LIMIT_PER_MIN");
  expect(documented).toContain("SWITCHBOARD_RETENTION_SESSION_IDLE_DAYS");
  const shell: Record<string, string> = { PORT: "8790", SWITCHBOARD_STATE_DIR: "/tmp/state", HOME: "/root" };
  for (const name of documented) shell[name] = `value of ${name}`;
  expect(workerVarsFromShell(shell)).toEqual(Object.fromEntries(documented.map((n) => [n, `value of ${n}`])));
});

it("leaves out a variable the shell does not set or sets empty", () => {
  const names = ["SWITCHBOARD_TOKEN_SECRET", "SWITCHBOARD_MCP_TTL_MS", "SWITCHBOARD_DEBUG_SEED"];
  expect(workerVarsFromShell({ SWITCHBOARD_TOKEN_SECRET: "s3cret", SWITCHBOARD_MCP_TTL_MS: "" }, names)).toEqual({
    SWITCHBOARD_TOKEN_SECRET: "s3cret",
  });
});

it("reads the names of the string variables of Env, not its bindings", () => {
  const source = [
    "/** The worker's env. */",
    "export interface Env {",
    "  DB: D1Database;",
    "  /** A key. */",
    "  ANTHROPIC_API_KEY?: string;",
    "  SWITCHBOARD_RETENTION_STREAM_S?: string;",
    "  RATE_LIMIT?: RateLimit;",
    "}",
    "",
    "export interface Other {",
    "  NOT_A_WORKER_VARIABLE?: string;",
    "}",
  ].join("\n");
  expect(envVariableNames(source)).toEqual(["ANTHROPIC_API_KEY", "SWITCHBOARD_RETENTION_STREAM_S"]);
});
