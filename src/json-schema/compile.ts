/**
 * The run-time engine: compiles JSON Schemas first seen at run time (agent tool schemas, MCP tools,
 * structured output's `json_schema`), held in one bounded cache.
 *
 * Validation runs inside workerd, which refuses eval/new Function at request time, so this uses
 * @cfworker/json-schema (an interpreter, no code generation). That validator is permissive about
 * what it is given — unknown keywords are silently ignored, bad `$ref`s only throw when reached —
 * so everything it would not catch is checked here, before a schema is accepted. Its regexes are V8's, which
 * backtrack: a schema's patterns are compiled for re2js instead and run in linear time (linear-pattern.ts,
 * linear-regexp.ts), and one re2js cannot run is refused here. The API's own fixed schemas do not come here: they
 * are compiled at build time (`validate-fixed.ts`).
 */
import { dereference, type Schema, type SchemaDraft, validate } from "@cfworker/json-schema";
import { utf8Bytes } from "../storage/fit";
import { cfworkerIssues } from "./cfworker-issues";
// Replaces the library's exponential `url` check and its `regex` check before any schema is validated.
import "./formats";
import type { SchemaResult } from "./issue";
import type { LinearPattern } from "./linear-pattern";
import { withLinearPatterns } from "./linear-regexp";
import { localRefTarget, MAX_SHAPE_DEPTH } from "./local-ref";
import { reduceIssues } from "./reduce-issues";
import { duplicatedArrays, lookupWith, replaceUniqueItems, uniqueItemsErrors } from "./unique-items";
import { checkSchemaTree, where } from "./walk";

const DEFAULT_MAX_SCHEMA_BYTES = 4 * 1024 * 1024;
/** The walker and the validator recurse; bounding nesting keeps both far from the stack limit. */
const MAX_SCHEMA_DEPTH = 128;
/**
 * Listing every problem costs the validator an error per bad element (and a 30,000-item tool result
 * is one $tool reference away), so only values up to this many nodes get the full list; a larger
 * invalid value is reported by the first problem the validator meets in each place it stops.
 */
const MAX_LISTED_NODES = 2000;

export interface CompiledSchema {
  /** A private copy of the schema as given (the validator works on its own pruned copy). */
  readonly source: unknown;
  /**
   * The schema as the validator reads it: vendor extensions dropped and, when lenient, unknown and unsupported
   * keywords too, draft-04 boolean bounds and draft-07 tuples rewritten (walk.ts). What a provider can be sent
   * for a schema we do not own (MCP tools). `source` itself when nothing changed.
   */
  readonly normalized: unknown;
  readonly draft: SchemaDraft;
  /**
   * Pointers of the subschemas written with a draft-07 tuple (`items` as an array of schemas) in `source`. Valid
   * draft-07, but a 2020-12 reader (a provider declared the schema) refuses it: a strict caller decides.
   */
  readonly draft07Tuples: readonly string[];
  validate(value: unknown): SchemaResult;
}

export type CompileResult = { ok: true; schema: CompiledSchema } | { ok: false; error: string };

interface CompileOptions {
  /** Tool parameters must be objects: providers require `type: "object"` at the root. */
  requireObjectRoot: boolean;
  maxBytes?: number;
}

function draftFor(root: unknown, lenient: boolean): SchemaDraft | undefined {
  const uri = typeof root === "object" && root !== null ? (root as { $schema?: unknown }).$schema : undefined;
  if (uri === undefined) return "2020-12";
  if (typeof uri !== "string") return undefined;
  if (/draft-0[67]\b/.test(uri)) return "7";
  if (uri.includes("draft/2019-09")) return "2019-09";
  if (uri.includes("draft/2020-12")) return "2020-12";
  // MCP servers still ship draft-04 schemas; once their boolean bounds are rewritten (see walk.ts)
  // draft-07 rules validate them the same way.
  if (lenient) return uri.includes("draft-04") ? "7" : "2020-12";
  return undefined;
}

/** Iterative, so a hostile 4 MiB `{"not":{"not":…}}` cannot overflow the stack before it is refused. */
function deeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (depth > limit) return true;
    if (typeof v === "object" && v !== null) for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Cached compilations are shared, so the source they expose must not be mutable by any one caller. */
function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "object" && v !== null && !Object.isFrozen(v)) {
      Object.freeze(v);
      stack.push(...Object.values(v));
    }
  }
  return value;
}

function isSchemaObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function typeIncludesObject(type: unknown): boolean {
  return type === "object" || (Array.isArray(type) && type.includes("object"));
}

/**
 * The root must describe objects: `type: "object"` (or a type list with it), or no `type` and a union whose every
 * branch is an object schema, as Pydantic and zod write a union of models (`{anyOf: [{$ref: "#/$defs/A"}, …]}`).
 * Providers are sent such a root folded, with `type: "object"` (providers/declared-schema.ts); a root `$ref` alone
 * is not followed, since the fold would send it without a type.
 */
function objectRootProblem(root: unknown): string | undefined {
  if (!isSchemaObject(root)) return 'the schema root must be an object schema with "type": "object"';
  // Each node is judged once (a hostile allOf of a thousand `{"$ref": "#"}` would otherwise explode), and one met
  // again on its own path counts as not an object: a cycle proves nothing.
  const known = new Map<object, boolean>();
  const describesObjects = (node: unknown, depth: number): boolean => {
    if (!isSchemaObject(node) || depth > MAX_SHAPE_DEPTH) return false;
    const seen = known.get(node);
    if (seen !== undefined) return seen;
    known.set(node, false);
    const result =
      node.type !== undefined
        ? typeIncludesObject(node.type)
        : combinesObjects(node, depth) || describesObjects(localRefTarget(root, node.$ref), depth + 1);
    known.set(node, result);
    return result;
  };
  /** Every branch of the node's `anyOf` or `oneOf`, or some member of its `allOf`, describes objects. */
  const combinesObjects = (node: Record<string, unknown>, depth: number): boolean => {
    const each = (list: unknown) =>
      Array.isArray(list) && list.length > 0 && list.every((b) => describesObjects(b, depth + 1));
    const some = (list: unknown) => Array.isArray(list) && list.some((m) => describesObjects(m, depth + 1));
    return each(node.anyOf) || each(node.oneOf) || some(node.allOf);
  };
  const ok = root.type !== undefined ? typeIncludesObject(root.type) : combinesObjects(root, 0);
  return ok
    ? undefined
    : 'the schema root must have "type": "object", or be an anyOf/oneOf whose every branch is an object schema ' +
        "(tool arguments are always an object)";
}

/** Whether `value` has more than `limit` nodes (arrays, objects and scalars); stops counting there. */
function moreNodesThan(value: unknown, limit: number): boolean {
  const stack: unknown[] = [value];
  let count = 0;
  while (stack.length > 0) {
    if (++count > limit) return true;
    const v = stack.pop();
    if (typeof v === "object" && v !== null) for (const child of Object.values(v)) stack.push(child);
  }
  return false;
}

/** A schema as the validator holds it: the tree and its `$ref` lookup table. */
interface Prepared {
  schema: Schema | boolean;
  lookup: ReturnType<typeof dereference>;
}

function prepare(schema: unknown): Prepared {
  return { schema: schema as Schema | boolean, lookup: dereference(schema as Schema | boolean) };
}

class Compiled implements CompiledSchema {
  readonly source: unknown;
  readonly normalized: unknown;
  readonly draft: SchemaDraft;
  readonly draft07Tuples: readonly string[];
  /** The schema with each `uniqueItems` in its linear form (unique-items.ts), when it has any. */
  readonly #exact: Prepared;
  /** The same schema without `uniqueItems`, when it has any (see `validate`). */
  readonly #noUnique: Prepared | undefined;
  /** Its patterns, each compiled once, tested in linear time (linear-pattern.ts) where the validator meets them. */
  readonly #patterns: ReadonlyMap<string, LinearPattern>;

  constructor(
    source: unknown,
    normalized: unknown,
    draft: SchemaDraft,
    draft07Tuples: readonly string[],
    prepared: { exact: Prepared; noUnique: Prepared | undefined; patterns: ReadonlyMap<string, LinearPattern> },
  ) {
    this.source = source;
    this.normalized = normalized;
    this.draft = draft;
    this.draft07Tuples = draft07Tuples;
    this.#exact = prepared.exact;
    this.#noUnique = prepared.noUnique;
    this.#patterns = prepared.patterns;
  }

  validate(value: unknown): SchemaResult {
    let errors: ReturnType<typeof validate>["errors"];
    try {
      // Where no array of the value holds two equal items uniqueItems cannot fail, so the schema without it gives
      // the same verdict and issues; otherwise the value's duplicated arrays are what it refuses.
      const duplicated = this.#noUnique ? duplicatedArrays(value) : [];
      const prepared = this.#noUnique && duplicated.length === 0 ? this.#noUnique : this.#exact;
      const lookup = duplicated.length > 0 ? lookupWith(prepared.lookup, duplicated) : prepared.lookup;
      const run = (shortCircuit: boolean) =>
        withLinearPatterns(this.#patterns, () => validate(value, prepared.schema, this.draft, lookup, shortCircuit));
      // Stopping at the first bad item or property gives the same verdict at a bounded cost.
      const first = run(true);
      if (first.valid) return { ok: true };
      errors = moreNodesThan(value, MAX_LISTED_NODES) ? first.errors : run(false).errors;
      if (duplicated.length > 0) errors = uniqueItemsErrors(errors, prepared.schema, lookup, value);
    } catch (e) {
      // Non-JSON values (undefined, bigint) and pathological recursion end up here, not as a crash.
      const reason = e instanceof Error ? e.message.split("\n")[0] : String(e);
      const issue = { path: "(root)", keyword: "schema", message: `could not be validated: ${reason}` };
      return { ok: false, issues: [issue], omitted: 0 };
    }
    return { ok: false, ...reduceIssues(cfworkerIssues(errors, value), value) };
  }
}

/** Compiled schemas keyed by mode and text; bounded by entries and by total text held. */
const CACHE_ENTRIES = 256;
const CACHE_CHARS = 16 * 1024 * 1024;
const cache = new Map<string, CompiledSchema>();
let cachedChars = 0;

function remember(key: string, compiled: CompiledSchema): void {
  if (key.length > CACHE_CHARS / 4) return;
  cache.set(key, compiled);
  cachedChars += key.length;
  for (const oldest of cache.keys()) {
    if (cache.size <= CACHE_ENTRIES && cachedChars <= CACHE_CHARS) break;
    cache.delete(oldest);
    cachedChars -= oldest.length;
  }
}

function compile(schema: unknown, opts: CompileOptions, lenient: boolean): CompileResult {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_SCHEMA_BYTES;
  if (typeof schema !== "boolean" && (typeof schema !== "object" || schema === null || Array.isArray(schema))) {
    return { ok: false, error: "a schema must be a JSON object (or a boolean)" };
  }
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch (e) {
    return { ok: false, error: `the schema is not serializable JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  // UTF-8 never takes fewer bytes than UTF-16 code units, so the cheap length check is exact when it refuses.
  if (text.length > maxBytes || (text.length * 3 > maxBytes && utf8Bytes(text) > maxBytes)) {
    return { ok: false, error: `the schema is larger than ${maxBytes} bytes` };
  }
  const key = `${lenient ? "L" : "S"}${opts.requireObjectRoot ? "O" : "-"}${text}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key); // re-insert: most recently used last
    cache.set(key, hit);
    return { ok: true, schema: hit };
  }

  // Work on fresh parses: the caller's object is never touched, and JSON.parse yields plain data.
  const working: unknown = JSON.parse(text);
  if (deeperThan(working, MAX_SCHEMA_DEPTH)) {
    return { ok: false, error: `the schema nests deeper than ${MAX_SCHEMA_DEPTH} levels` };
  }
  if (opts.requireObjectRoot) {
    const problem = objectRootProblem(working);
    if (problem) return { ok: false, error: problem };
  }
  const draft = draftFor(working, lenient);
  if (draft === undefined) {
    const uri = JSON.stringify((working as { $schema?: unknown }).$schema);
    return { ok: false, error: `unsupported $schema ${uri}; use draft-07 or 2020-12` };
  }
  const tree = checkSchemaTree(working, lenient);
  if (tree.problems.length > 0) return { ok: false, error: tree.problems.join("; ") };

  // Taken before the validator adds its own (non-enumerable) bookkeeping to the tree.
  const normalText = JSON.stringify(working);
  let exact: Prepared;
  let noUnique: Prepared | undefined;
  try {
    const unique = tree.uniqueItems;
    noUnique = unique.length > 0 ? prepare(replaceUniqueItems(working, unique, false)) : undefined;
    exact = prepare(unique.length > 0 ? replaceUniqueItems(working, unique, true) : working);
  } catch (e) {
    return { ok: false, error: `invalid schema: ${e instanceof Error ? e.message : String(e)}` };
  }
  const source = deepFreeze(JSON.parse(text) as unknown);
  const normalized = normalText === text ? source : deepFreeze(JSON.parse(normalText) as unknown);
  const draft07Tuples = Object.freeze(tree.draft07Tuples);
  const compiled = new Compiled(source, normalized, draft, draft07Tuples, { exact, noUnique, patterns: tree.patterns });
  remember(key, compiled);
  return { ok: true, schema: compiled };
}

/**
 * Compiles a user-supplied schema strictly: unknown keywords (typos such as "requird") are refused
 * with the pointer where they are, every `$ref` must resolve inside the schema, size is capped.
 */
export function compileStrict(schema: unknown, opts: CompileOptions): CompileResult {
  return compile(schema, opts, false);
}

/**
 * For schemas we do not own (MCP servers are often sloppy): unknown keywords are dropped instead of
 * refused; everything else — object root, value shapes, local resolvable refs, size — still holds.
 */
export function compileLenient(schema: unknown, opts: Partial<CompileOptions> = {}): CompileResult {
  return compile(schema, { requireObjectRoot: opts.requireObjectRoot ?? true, maxBytes: opts.maxBytes }, true);
}

/**
 * Compiles a schema declared to a provider (an agent tool's input, a turn's json_schema) as one is accepted: strictly,
 * with an object root, and not one a provider would refuse (`providerRefusal`).
 */
export function compileDeclared(schema: unknown): CompileResult {
  const compiled = compileStrict(schema, { requireObjectRoot: true });
  if (!compiled.ok) return compiled;
  const refusal = providerRefusal(compiled.schema);
  return refusal ? { ok: false, error: refusal } : compiled;
}

/**
 * Why a provider would refuse to be sent this strictly compiled schema (a tool's input or a turn's json_schema),
 * or null. Strict compiling accepts valid draft-07, but providers read these schemas as JSON Schema 2020-12: a
 * draft-07 tuple (`items` as an array of schemas) is refused there on every request that declares it.
 * (Draft-04 boolean bounds never get this far: strictly, exclusiveMinimum/Maximum must be numbers.)
 */
function providerRefusal(compiled: CompiledSchema): string | null {
  const tuple = compiled.draft07Tuples[0];
  if (tuple === undefined) return null;
  return (
    `"items" at ${where(tuple)} is a draft-07 tuple (an array of schemas), which providers refuse (they read ` +
    'these schemas as JSON Schema 2020-12); write "prefixItems" for the positions and "items" for the rest ' +
    '(instead of "additionalItems")'
  );
}
