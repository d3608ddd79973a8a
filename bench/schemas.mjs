// Validation time per request body: the build-time engine (Ajv standalone code, what the worker runs for
// the API's fixed schemas: `validateFixed`) vs the run-time engine (@cfworker/json-schema, which
// validated request bodies before: `compileStrict(...).validate`), both through src/json-schema, issues
// included. Same schemas, same bodies (the agreement test's examples), one Node process, no worker; the
// worker's V8 runs the same JavaScript. A second table times large values (wrong items, uniqueItems)
// through the run-time engine. A value with an array holding a duplicate took the validator's pairwise
// uniqueItems pass until src/json-schema/unique-items.ts; on one busy 2-core host, before → after, ms:
// 30k integers + a copy 8,557 → 130, 5k objects + a copy 6,100 → 61, 30k distinct integers beside an
// unrelated [true, true] 12,942 → 18. Each array checked was then compared with every duplicated array of the
// value, until arrays of up to 32 items went to the pairwise pass (median of 7, same host, before → after, ms):
// 5k pairs under uniqueItems beside 5k duplicated pairs 7,507 → 91; 5k objects + a copy 34 → 19 (noise: one
// array of over 32 items, unchanged). A third and a fourth table time a schema's patterns: V8's RegExp (which the
// validator built anew at every check) against re2js, the linear-time engine src/json-schema/linear-pattern.ts runs
// them on, per test on ordinary patterns and texts, with what compiling each costs; then values that make V8
// backtrack, the bound's worst case for re2js, and the `regex` format on a long class of Unicode properties.
// Figures only; nothing here asserts.
//
//   node bench/schemas.mjs          (npm run bench:schemas)
import { runnerImport } from "vite";
import { performance, round, table } from "./lib.mjs";

const root = new URL("..", import.meta.url).pathname;
const load = async (file) => (await runnerImport(`${root}${file}`, { configFile: false, logLevel: "error" })).module;
const { FIXED_SCHEMAS } = await load("src/http/fixed-schemas.ts");
const { compileStrict, validateFixed } = await load("src/json-schema/index.ts");
const { FIXED_EXAMPLES } = await load("test/unit/json-schema/fixed-examples.ts");
const { compilePattern } = await load("src/json-schema/linear-pattern.ts");

/** Median of 7 runs of `n` calls, in microseconds per call. */
function perCall(fn, n) {
  for (let i = 0; i < n; i++) fn(); // warm-up: JIT and caches
  const runs = [];
  for (let r = 0; r < 7; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn();
    runs.push(((performance.now() - t0) * 1000) / n);
  }
  return runs.sort((a, b) => a - b)[3];
}

/** The example with one field broken the way clients most often break it: an unknown property. */
const invalid = (body) => ({ ...body, unknown_field: 1 });

const rows = [];
const summary = {};
for (const [name, schema] of Object.entries(FIXED_SCHEMAS)) {
  const body = FIXED_EXAMPLES[name];
  const bad = invalid(body);
  const cfworker = compileStrict(schema, { requireObjectRoot: true }).schema;
  if (!validateFixed(name, body).ok || !cfworker.validate(body).ok) throw new Error(`${name}: example invalid`);
  const n = Math.max(1000, Math.round(100_000 / (JSON.stringify(body).length + 50)));
  const ajvOk = perCall(() => validateFixed(name, body), n);
  const cfOk = perCall(() => cfworker.validate(body), n);
  const ajvBad = perCall(() => validateFixed(name, bad), n);
  const cfBad = perCall(() => cfworker.validate(bad), n);
  summary[name] = {
    ajv_valid_us: round(ajvOk, 2),
    cfworker_valid_us: round(cfOk, 2),
    ajv_invalid_us: round(ajvBad, 2),
  };
  summary[name].cfworker_invalid_us = round(cfBad, 2);
  rows.push([
    name,
    JSON.stringify(body).length,
    round(ajvOk, 2),
    round(cfOk, 2),
    `${round(cfOk / ajvOk, 1)}x`,
    round(ajvBad, 2),
    round(cfBad, 2),
    `${round(cfBad / ajvBad, 1)}x`,
  ]);
}
table(
  "Validation time per request body, µs per call (median of 7 runs; invalid = example + one unknown property)",
  ["schema", "bytes", "ajv valid", "cfworker valid", "speedup", "ajv invalid", "cfworker invalid", "speedup"],
  rows,
);

// Large values through the run-time engine: what a $tool reference can hand a tool (a 169 KB result of
// 30,000 ids), wrong items and uniqueItems. Milliseconds per call, median of 3.
const arraySchema = (items) =>
  compileStrict({ type: "object", properties: { list: { type: "array", ...items } } }, { requireObjectRoot: true })
    .schema;
const numbers = Array.from({ length: 30_000 }, (_, i) => i);
const objects = Array.from({ length: 20_000 }, (_, i) => ({ id: i, tag: "x" }));
const fiveK = objects.slice(0, 5000);
const withFlags = compileStrict(
  { type: "object", properties: { list: { type: "array", uniqueItems: true }, flags: { type: "array" } } },
  { requireObjectRoot: true },
).schema;
// 5,000 pairs checked by uniqueItems beside 5,000 duplicated pairs no uniqueItems covers: each checked pair was
// compared with every duplicated one (the shared enum) until short arrays went to the pairwise pass.
const pairsSchema = compileStrict(
  {
    type: "object",
    properties: { list: { type: "array", items: { type: "array", uniqueItems: true } }, other: {} },
  },
  { requireObjectRoot: true },
).schema;
const checkedPairs = Array.from({ length: 5000 }, (_, i) => [i, -i - 1]);
const duplicatedPairs = Array.from({ length: 5000 }, (_, i) => [i + 0.5, i + 0.5]);
const large = [
  ["30k integers, items: string (invalid)", arraySchema({ items: { type: "string" } }), numbers],
  ["30k distinct integers, uniqueItems", arraySchema({ uniqueItems: true }), numbers],
  ["20k distinct objects, uniqueItems", arraySchema({ uniqueItems: true }), objects],
  ["30k integers + a copy of the last, uniqueItems", arraySchema({ uniqueItems: true }), [...numbers, 29_999]],
  [
    "5k objects + a copy of the last, uniqueItems",
    arraySchema({ uniqueItems: true }),
    [...fiveK, { tag: "x", id: 4999 }],
  ],
  ["30k distinct integers, uniqueItems, beside flags: [true, true]", withFlags, numbers, { flags: [true, true] }],
  [
    "5k distinct pairs, each uniqueItems, beside 5k duplicated pairs",
    pairsSchema,
    checkedPairs,
    { other: duplicatedPairs },
  ],
];
const largeRows = large.map(([name, schema, list, beside = {}]) => {
  const runs = [];
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    schema.validate({ list, ...beside });
    runs.push(performance.now() - t0);
  }
  const ms = runs.sort((a, b) => a - b)[1];
  summary.large = { ...summary.large, [name]: round(ms, 1) };
  return [name, round(ms, 1)];
});
table("Large values, run-time engine, ms per call (median of 3)", ["value", "ms"], largeRows);

/** Median of `runs` timings of `fn`, in milliseconds. */
function msOnce(fn, runs = 3) {
  const times = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

const linear = (source) => {
  const r = compilePattern(source);
  if (!r.ok) throw new Error(`${source}: ${JSON.stringify(r)}`);
  return r.pattern;
};
const ORDINARY = [
  ["email", "^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$", ["john.doe@example.com", "not-an-email"]],
  ["date", "^\\d{4}-\\d{2}-\\d{2}$", ["2024-05-01", "2024-5-1"]],
  ["uuid", "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", ["123e4567-e89b-12d3-a456-426614174000"]],
  ["name", "^[a-zA-Z0-9_-]{1,64}$", ["ok_name-1", "bad name!"]],
  ["word, unanchored", "error|warning", ["all fine here", "an error occurred"]],
  ["letters", "^[\\p{L}\\p{N} _-]+$", ["Grüße aus Köln 2024", "tab\there"]],
  ["1 KB of base64", "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$", ["QUJD".repeat(256)]],
  ["10 KB of text, no < >", "^[^<>]*$", ["lorem ipsum ".repeat(850)]],
];
const patternRows = ORDINARY.map(([name, source, texts]) => {
  const native = new RegExp(source, "u");
  const pattern = linear(source);
  const n = Math.max(500, Math.round(200_000 / texts.join("").length));
  const v8 = perCall(() => texts.map((t) => native.test(t)), n);
  const v8New = perCall(() => texts.map((t) => new RegExp(source, "u").test(t)), n);
  const re2 = perCall(() => texts.map((t) => pattern.test(t)), n);
  const compile = perCall(() => compilePattern(source), 50);
  summary.patterns = { ...summary.patterns, [name]: { v8_us: round(v8, 2), re2js_us: round(re2, 2) } };
  return [name, texts.length, round(v8, 2), round(v8New, 2), round(re2, 2), round(compile, 0)];
});
table(
  "A schema's patterns, µs per check of the texts (median of 7): V8 compiled once, V8 built at each check (the validator's way), re2js; µs to compile for re2js",
  ["pattern", "texts", "V8", "V8 new", "re2js", "re2js compile"],
  patternRows,
);

const nested = linear("^(a+)+$");
const bound = "[a-z]{998}!";
let letters = "";
while (letters.length < 100_000) letters += `${"b".repeat(997)}!`;
/** A fresh class of 20,000 `\\p{L}` at each call: V8 caches what it compiled by source. */
let calls = 0;
const properties = () => `[${"\\p{L}".repeat(20_000)}${calls++}]`;
const formatRegex = compileStrict(
  { type: "object", properties: { re: { type: "string", format: "regex" } } },
  { requireObjectRoot: true },
).schema;
const hostile = [
  ["^(a+)+$, 24 a's and a !", () => /^(a+)+$/u.test(`${"a".repeat(24)}!`), () => nested.test(`${"a".repeat(24)}!`)],
  ["^(a+)+$, 100,000 a's and a !", null, () => nested.test(`${"a".repeat(100_000)}!`)],
  [
    `${bound} over 100,000 letters (re2js's NFA, the bound's worst)`,
    () => new RegExp(bound, "u").test(letters),
    () => linear(bound).test(letters),
  ],
  [
    "format regex, a class of 20,000 \\p{L}",
    () => new RegExp(properties(), "u"),
    () => formatRegex.validate({ re: properties() }),
  ],
];
const hostileRows = hostile.map(([name, v8, re2]) => {
  const v8Ms = v8 ? msOnce(v8) : null;
  const re2Ms = msOnce(re2);
  summary.hostile = { ...summary.hostile, [name]: { v8_ms: v8Ms && round(v8Ms, 1), ours_ms: round(re2Ms, 1) } };
  return [name, v8Ms === null ? "(hours)" : round(v8Ms, 1), round(re2Ms, 1)];
});
table(
  "Values V8 backtracks on, and the bounds' worst, ms per call (median of 3)",
  ["value", "V8", "ours"],
  hostileRows,
);
console.log(JSON.stringify({ schemas: summary }));
