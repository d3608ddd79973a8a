#!/usr/bin/env node
// `npm run schemas`: writes the Ajv standalone validators of the API's fixed schemas to
// src/json-schema/generated/ (committed; a unit test fails when they are stale). The schemas are
// TypeScript, so they are loaded through Vite's module runner.
import { writeFile } from "node:fs/promises";
import { runnerImport } from "vite";
import { fixedValidatorsCode } from "./fixed-validators-code.mjs";

const root = new URL("..", import.meta.url);
const { module } = await runnerImport(new URL("src/http/fixed-schemas.ts", root).pathname, {
  configFile: false,
  logLevel: "error",
});
const { js, dts } = fixedValidatorsCode(module.FIXED_SCHEMAS);
await writeFile(new URL("src/json-schema/generated/fixed-validators.js", root), js);
await writeFile(new URL("src/json-schema/generated/fixed-validators.d.ts", root), dts);
console.log(`wrote ${Object.keys(module.FIXED_SCHEMAS).length} validators to src/json-schema/generated/`);
