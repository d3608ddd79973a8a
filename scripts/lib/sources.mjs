// The source files the lint scripts read (check-headers.mjs, check-exports.mjs): the TypeScript and JavaScript
// modules below a folder of the repo, as paths relative to its root, without node_modules, dist or data.
import { readdir } from "node:fs/promises";
import path from "node:path";
import { repoRoot as ROOT } from "./process.mjs";

const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;
const SKIP = /(^|\/)(node_modules|dist|data)(\/|$)/;

/** The source files below `dir` (relative to the repo root); none when it does not exist. */
export async function sources(dir) {
  const entries = await readdir(path.join(ROOT, dir), { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile() && SOURCE.test(e.name))
    .map((e) => path.relative(ROOT, path.join(e.parentPath ?? e.path, e.name)))
    .filter((file) => !SKIP.test(file));
}
