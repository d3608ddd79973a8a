#!/usr/bin/env node
// `npm run schemas`: writes the Ajv standalone validators of the API's fixed schemas to
// src/json-schema/generated/ (committed). With --check it writes nothing and exits 1 when the committed
// files are stale (test/unit/scripts/build-schemas.test.ts runs that). The schemas are TypeScript, so
// they are loaded through Vite's module runner.
import { readFile, writeFile } from "node:fs/promises";
import { runnerImport } from "vite";
import { fixedValidatorsCode } from "./fixed-validators-code.mjs";

const root = new URL("..", import.meta.url);
const { module } = await runnerImport(new URL("src/http/fixed-schemas.ts", root).pathname, {
  configFile: false,
  logLevel: "error",
});
const { js, dts } = fixedValidatorsCode(module.FIXED_SCHEMAS);
const files = [
  [new URL("src/json-schema/generated/fixed-validators.js", root), js],
  [new URL("src/json-schema/generated/fixed-validators.d.ts", root), dts],
];
if (process.argv.includes("--check")) {
  const stale = [];
  for (const [file, text] of files) {
    if ((await readFile(file, "utf8").catch(() => "")) !== text) stale.push(file.pathname);
  }
  if (stale.length > 0) {
    console.error(`stale (run \`npm run schemas\`): ${stale.join(", ")}`);
    process.exit(1);
  }
  console.log("generated validators are up to date");
} else {
  for (const [file, text] of files) await writeFile(file, text);
  console.log(`wrote ${Object.keys(module.FIXED_SCHEMAS).length} validators to src/json-schema/generated/`);
}
