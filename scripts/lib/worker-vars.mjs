// The worker variables `npm start` (scripts/start.mjs) takes from the shell: every string variable of the worker's
// `Env` (src/env.ts, the one list of them; docs/API.md "Configuration" documents the same names) that the shell
// sets. wrangler dev itself passes no shell variable to the worker (only all of them, with
// CLOUDFLARE_INCLUDE_PROCESS_ENV), so the script hands these over in its --env-file. Plain JS; types in
// worker-vars.d.mts.
import { readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "./process.mjs";

/** The names of the string variables of `export interface Env { … }` in the source text of src/env.ts, in order. */
export function envVariableNames(source) {
  const body = source.match(/^export interface Env \{\n([\s\S]*?)^\}/m)?.[1];
  if (body === undefined) throw new Error("src/env.ts has no `export interface Env { … }`");
  return [...body.matchAll(/^\s*([A-Z][A-Z0-9_]*)\??: string;/gm)].map((m) => m[1]);
}

/** The worker's variable names, read from src/env.ts under `root` (default: this repository). */
export function workerVariableNames(root = repoRoot) {
  return envVariableNames(readFileSync(path.join(root, "src", "env.ts"), "utf8"));
}

/** The worker variables `env` sets (an empty value counts as unset), by name: what `npm start` passes on. */
export function workerVarsFromShell(env, names = workerVariableNames()) {
  return Object.fromEntries(names.filter((name) => env[name]).map((name) => [name, env[name]]));
}
