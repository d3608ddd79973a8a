#!/usr/bin/env node
// `npm run lint`, after check-headers: every export of a src/ module is imported by some other file (src/,
// test/, web/src/, mock/, scripts/, bench/, packages/); an export used only inside its own file should not be
// exported. Reads imports with regular expressions (static imports, `export … from`, `import("…").Name`, and
// `const { … } = await import(…)` / a bench's `load("src/…")`), follows `export * from`, and allows the entry
// points in ENTRY and the exports in ALLOWED below. Prints each unused export and exits 1.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { repoRoot as ROOT } from "./lib/process.mjs";
import { sources } from "./lib/sources.mjs";

const DIRS = ["src", "test", "web/src", "mock", "scripts", "bench", "packages"];

/** Files whose exports something other than our code imports (the runtime, a build), all of them allowed. */
const ENTRY = new Set([
  // The worker's entry, read by wrangler: the default export (fetch + scheduled) and the Durable Object classes.
  "src/index.ts",
]);
/** Single exports allowed though no other file imports them yet. */
const ALLOWED = new Map([]);
/** Folders left out: generated code, whose exports its generator decides (scripts/build-schemas.mjs). */
const GENERATED = /^src\/json-schema\/generated\//;

const files = [...new Set((await Promise.all(DIRS.map(sources))).flat())];
const known = new Set(files);
const texts = new Map(await Promise.all(files.map(async (f) => [f, await readFile(path.join(ROOT, f), "utf8")])));

/** The repo file an import specifier names, or null for a package or a file we do not scan. */
function resolve(from, spec) {
  let base;
  if (spec.startsWith(".")) base = path.join(path.dirname(from), spec);
  else if (spec.startsWith("src/")) base = spec;
  else return null;
  const stem = base.replace(/\.(js|mjs)$/, "");
  for (const c of [
    base,
    `${stem}.ts`,
    `${base}.ts`,
    `${base}.tsx`,
    `${base}.mts`,
    `${base}.mjs`,
    `${base}.js`,
    `${base}/index.ts`,
  ]) {
    if (known.has(c)) return c;
  }
  return null;
}

/** `a, type b, c as d` → [[a, a], [b, b], [c, d]] (name in the module, name at the use site). */
function specifiers(list) {
  return list
    .split(",")
    .map((s) =>
      s
        .replace(/\/\/.*$/gm, "")
        .trim()
        .replace(/^type\s+/, ""),
    )
    .filter(Boolean)
    .map((s) => {
      const [name, alias] = s.split(/\s+as\s+/);
      return [name.trim(), (alias ?? name).trim()];
    });
}

const COMMENT = /\/\*[\s\S]*?\*\/|(^|[^:"'`])\/\/.*$/gm;
const exported = new Map(); // file → Set of names it exports
const stars = new Map(); // file → files it re-exports with `export *`
const used = new Map(); // file → Set of names other files import from it
const use = (file, name) => {
  if (!used.has(file)) used.set(file, new Set());
  used.get(file).add(name);
};

for (const [file, raw] of texts) {
  const text = raw.replace(COMMENT, "$1");
  if (file.startsWith("src/")) {
    const names = new Set();
    for (const m of text.matchAll(
      /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|const|let|var|class|interface|type|enum)\s+([\w$]+)/gm,
    )) {
      names.add(m[1]);
    }
    if (/^export\s+default\b/m.test(text)) names.add("default");
    for (const m of text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
      for (const [, alias] of specifiers(m[1])) names.add(alias);
    }
    exported.set(file, names);
  }
  const imports = [
    ...text.matchAll(
      /\bimport\s+(?:type\s+)?(?:([\w$]+)\s*,?\s*)?(?:\{([^}]*)\}|\*\s+as\s+([\w$]+))?\s*from\s*["']([^"']+)["']/g,
    ),
  ];
  for (const [, byDefault, list, ns, spec] of imports) {
    const target = resolve(file, spec);
    if (!target) continue;
    if (list) for (const [name] of specifiers(list)) use(target, name);
    if (ns) {
      // A namespace import uses the members read through it (`ns.name`), or all of them when it escapes whole.
      const members = [...text.matchAll(new RegExp(`\\b${ns}\\.([\\w$]+)`, "g"))].map((m) => m[1]);
      const whole = new RegExp(`\\b${ns}\\b(?!\\.)`, "g");
      if ([...text.matchAll(whole)].length > 1) use(target, "*");
      for (const name of members) use(target, name);
    }
    if (byDefault) use(target, "default");
  }
  for (const [, list, spec] of text.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}\s*from\s*["']([^"']+)["']/gm)) {
    const target = resolve(file, spec);
    if (target) for (const [name] of specifiers(list)) use(target, name);
  }
  for (const [, spec] of text.matchAll(/^export\s+\*\s+from\s*["']([^"']+)["']/gm)) {
    const target = resolve(file, spec);
    if (target) stars.set(file, [...(stars.get(file) ?? []), target]);
  }
  for (const [, spec, name] of text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)\.([\w$]+)/g)) {
    const target = resolve(file, spec);
    if (target) use(target, name);
  }
  for (const [, list, spec] of text.matchAll(/\{([^}]*)\}\s*=\s*await\s+[\w$.]+\(\s*["']([^"']+)["']/g)) {
    const target = resolve(file, spec);
    if (target) for (const [name] of specifiers(list.replace(/:\s*[\w$]+/g, ""))) use(target, name);
  }
}

// `export * from`: a name imported from the re-exporting file and not its own is the re-exported file's.
for (let changed = true; changed; ) {
  changed = false;
  for (const [file, targets] of stars) {
    for (const name of used.get(file) ?? []) {
      if (exported.get(file)?.has(name)) continue;
      for (const target of targets) {
        if (exported.get(target)?.has(name) && !used.get(target)?.has(name)) {
          use(target, name);
          changed = true;
        }
      }
    }
  }
}

const unused = [];
for (const [file, names] of [...exported].sort(([a], [b]) => a.localeCompare(b))) {
  if (ENTRY.has(file) || GENERATED.test(file)) continue;
  const imported = used.get(file) ?? new Set();
  if (imported.has("*")) continue;
  const allowed = ALLOWED.get(file) ?? [];
  for (const name of names) if (!imported.has(name) && !allowed.includes(name)) unused.push(`${file}: ${name}`);
}
if (unused.length > 0) {
  console.error(`${unused.length} export(s) of src/ that no other file imports (drop \`export\`, or delete them):`);
  for (const line of unused) console.error(`  ${line}`);
  process.exit(1);
}
const count = [...exported.values()].reduce((n, s) => n + s.size, 0);
console.log(`✔ every export of src/ is imported by another file (${count} exports)`);
