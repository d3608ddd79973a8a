#!/usr/bin/env node
// `npm run lint`, after Biome and dependency-cruiser: every source file opens with a comment that says what it
// is (a shebang may come first). Biome has no rule for this. Checks src/, mock/, web/src/, packages/*/src/,
// scripts/, bench/ and test/ (TypeScript and JavaScript modules, generated code included: its header names its
// generator), and the config files at the repo's root (*.config.ts, *.cjs, *.mjs: the Vitest configs,
// .dependency-cruiser.cjs); prints each file that does not and exits 1.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { repoRoot as ROOT } from "./lib/process.mjs";
import { sources } from "./lib/sources.mjs";

const DIRS = ["src", "mock", "web/src", "scripts", "bench", "test"];
/** The config files at the root (not below it: the folders above are the ones checked there). */
const ROOT_CONFIG = /\.config\.[cm]?[jt]s$|\.[cm]js$/;

/** True when the file's first line (after a shebang) starts a comment. */
function opensWithComment(text) {
  const lines = text.split("\n");
  const first = lines[0]?.startsWith("#!") ? lines[1] : lines[0];
  return /^\s*(\/\*|\/\/)/.test(first ?? "");
}

const packages = await readdir(path.join(ROOT, "packages")).catch(() => []);
const rootConfigs = (await readdir(ROOT, { withFileTypes: true }))
  .filter((e) => e.isFile() && ROOT_CONFIG.test(e.name))
  .map((e) => e.name);
const files = [
  ...(await Promise.all([...DIRS, ...packages.map((p) => `packages/${p}/src`)].map(sources))).flat(),
  ...rootConfigs,
];
const missing = [];
for (const file of files.sort()) {
  if (!opensWithComment(await readFile(path.join(ROOT, file), "utf8"))) missing.push(file);
}
if (missing.length > 0) {
  console.error(`${missing.length} source file(s) do not open with a comment saying what they are:`);
  for (const file of missing) console.error(`  ${file}`);
  process.exit(1);
}
console.log(`✔ every source file opens with what it is (${files.length} files)`);
