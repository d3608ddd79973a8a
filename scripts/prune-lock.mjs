#!/usr/bin/env node
// The npm registry reachable from this project's machines mirrors only some platform builds of
// packages with per-platform binaries (biome, workerd). `npm install` then writes a lockfile whose
// optionalDependencies name platform packages it has no entry for, and `npm ci` refuses it as out
// of sync. This drops those dangling optional names so `npm ci` works; run it after changing deps:
//   npm install --package-lock-only && node scripts/prune-lock.mjs
import { readFileSync, writeFileSync } from "node:fs";

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(file, "utf8"));
const packages = lock.packages;
let pruned = 0;
for (const [key, entry] of Object.entries(packages)) {
  const optional = entry.optionalDependencies;
  if (!optional) continue;
  for (const name of Object.keys(optional)) {
    const nested = key ? `${key}/node_modules/${name}` : `node_modules/${name}`;
    if (!(nested in packages) && !(`node_modules/${name}` in packages)) {
      delete optional[name];
      pruned++;
    }
  }
  if (Object.keys(optional).length === 0) delete entry.optionalDependencies;
}
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`pruned ${pruned} optional platform dependencies without a lockfile entry`);
