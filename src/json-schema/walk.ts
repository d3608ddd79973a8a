/**
 * Walks a schema tree knowing which keywords hold subschemas, checks every keyword's value (compiling each
 * pattern for the linear-time engine, linear-pattern.ts), and collects what is needed to prove each `$ref`
 * resolves. The walked tree is the compiler's private
 * copy: vendor extensions (and, when lenient, unknown keywords) are deleted from it so the validator
 * never sees them — @cfworker/json-schema's dereference otherwise descends into any object it finds.
 */
import { isPlainObject } from "../model/json";
import { isExtension, KEYWORDS, type KeywordKind, suggestKeyword, TYPE_NAMES } from "./keywords";
import { compilePattern, type LinearPattern, MAX_SCHEMA_PATTERN_WORK } from "./linear-pattern";
import { show } from "./reduce-issues";

/** Stop after a handful of problems: enough to fix several typos at once, short enough to read. */
const MAX_PROBLEMS = 5;

interface RefUse {
  at: string;
  resource: string;
  ref: string;
  /** The subschema holding the `$ref`, whose value is rewritten when it names a tuple's old spelling. */
  node: Record<string, unknown>;
}

interface Walk {
  lenient: boolean;
  problems: string[];
  /** Absolute JSON pointers of every subschema position (what the validator can resolve a $ref to). */
  positions: Set<string>;
  /** `${resourcePointer}#${name}` (for `$anchor` and draft-07 `$id: "#name"`) → the anchored position. */
  anchors: Map<string, string>;
  refs: RefUse[];
  /** `$recursiveRef: "#"` uses, and the subschemas that say `$recursiveAnchor: true` (its possible targets). */
  recursiveRefs: Array<{ at: string; resource: string }>;
  recursiveAnchors: string[];
  /** Subschemas applied to the same instance (allOf, not, if, $ref…); a cycle here never terminates. */
  inPlace: Map<string, string[]>;
  /** Subschemas with `uniqueItems: true` (compile.ts keeps a copy without them, see there). */
  uniqueItems: string[];
  /** Every distinct `pattern` and `patternProperties` key, compiled once, by source; and their work summed. */
  patterns: Map<string, LinearPattern>;
  patternWork: number;
  /** Subschemas whose draft-07 tuple was rewritten (modernizeTuple), where a `$ref` may use the old spelling. */
  tuples: Set<string>;
  /** Subschemas written with a draft-07 tuple (an `items` array), as given: before any rewrite. */
  draft07Tuples: string[];
}

export function where(pointer: string): string {
  return pointer === "" ? "(root)" : pointer;
}

function escapeSegment(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * Keywords the validator silently ignores, so a schema relying on them would accept anything there:
 * refused strictly, dropped leniently. Returns why, or undefined for a supported use.
 */
function unsupported(key: string, value: unknown): string | undefined {
  if (key === "$dynamicRef" || key === "$dynamicAnchor") return "dynamic references are not implemented; use $ref";
  if (key === "$recursiveRef" && value !== "#") return 'only "$recursiveRef": "#" is implemented';
  return undefined;
}

function problem(w: Walk, message: string): void {
  if (w.problems.length < MAX_PROBLEMS) w.problems.push(message);
}

function link(w: Walk, from: string, to: string): void {
  const list = w.inPlace.get(from);
  if (list) list.push(to);
  else w.inPlace.set(from, [to]);
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((s) => typeof s === "string");
}

/**
 * Compiles a pattern for the walk (once per source): "invalid" when it is no regular expression (in `u` mode, as the
 * validator builds it), why the linear-time engine cannot run it, or undefined when it is ready.
 */
function patternProblem(w: Walk, source: string): "invalid" | { reason: string } | undefined {
  // Once the schema is refused for as many problems as are listed, no further pattern is worth compiling.
  if (w.patterns.has(source) || w.problems.length >= MAX_PROBLEMS) return undefined;
  const overBudget = {
    reason: `takes the schema's patterns past the ${MAX_SCHEMA_PATTERN_WORK} steps of work compiling them may take`,
  };
  if (w.patternWork > MAX_SCHEMA_PATTERN_WORK) return overBudget;
  const compiled = compilePattern(source);
  if (!compiled.ok) return compiled.invalid ? "invalid" : { reason: compiled.reason };
  w.patterns.set(source, compiled.pattern);
  w.patternWork += compiled.pattern.work;
  return w.patternWork > MAX_SCHEMA_PATTERN_WORK ? overBudget : undefined;
}

/** Checks a non-subschema keyword value; returns what it must be when it is wrong. */
function valueProblem(kind: KeywordKind, v: unknown): string | undefined {
  switch (kind) {
    case "string":
      return typeof v === "string" ? undefined : "a string";
    case "boolean":
      return typeof v === "boolean" ? undefined : "a boolean";
    case "number":
      return typeof v === "number" && Number.isFinite(v) ? undefined : "a number";
    case "positiveNumber":
      return typeof v === "number" && Number.isFinite(v) && v > 0 ? undefined : "a number greater than 0";
    case "nonNegativeInteger":
      return Number.isSafeInteger(v) && (v as number) >= 0 ? undefined : "a non-negative integer";
    case "regex":
      // Compiled by walkKeyword (patternProblem), which needs the walk.
      return typeof v === "string" ? undefined : "a valid regular expression";
    case "stringArray":
      return isStringArray(v) && new Set(v).size === v.length ? undefined : "an array of unique strings";
    case "stringArrayMap":
      return isPlainObject(v) && Object.values(v).every(isStringArray) ? undefined : "an object of string arrays";
    case "booleanMap":
      return isPlainObject(v) && Object.values(v).every((b) => typeof b === "boolean")
        ? undefined
        : "an object of booleans";
    case "array":
      return Array.isArray(v) ? undefined : "an array";
    case "type":
      return typeProblem(v);
    default:
      return undefined;
  }
}

function typeProblem(v: unknown): string | undefined {
  const names = typeof v === "string" ? [v] : v;
  if (!isStringArray(names) || names.length === 0) return "a type name or a non-empty array of type names";
  const bad = names.find((n) => !TYPE_NAMES.has(n));
  if (bad !== undefined) return `one of ${[...TYPE_NAMES].join(", ")} (got "${bad}")`;
  if (new Set(names).size !== names.length) return "an array of distinct type names";
  return undefined;
}

/**
 * Draft-04 wrote exclusive bounds as booleans beside minimum/maximum. Lenient compilation rewrites
 * them to the draft-07 numeric form, which is the only form the validator checks outside draft-04.
 */
function modernizeBounds(node: Record<string, unknown>): void {
  for (const [exclusive, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    if (typeof node[exclusive] !== "boolean") continue;
    if (node[exclusive] === true && typeof node[bound] === "number") {
      node[exclusive] = node[bound];
      delete node[bound];
    } else delete node[exclusive];
  }
}

/**
 * Draft-07 wrote a tuple as an `items` array, with `additionalItems` for the rest. Lenient compilation rewrites it
 * to 2020-12's `prefixItems` and `items` (the validator reads both the same way), so the normalised schema is one
 * a 2020-12 consumer (a provider) accepts. `additionalItems` beside a single `items` schema never applies: dropped.
 */
function modernizeTuple(w: Walk, node: Record<string, unknown>, pointer: string): void {
  if (Array.isArray(node.items) && node.prefixItems === undefined) {
    if (node.items.length > 0) node.prefixItems = node.items;
    delete node.items;
    if (node.additionalItems !== undefined) node.items = node.additionalItems;
    w.tuples.add(pointer);
  }
  delete node.additionalItems;
}

/** Where a rewritten tuple now holds what a pointer written against its draft-07 form names. */
const TUPLE_RENAMES = new Map([
  ["items", "prefixItems"],
  ["additionalItems", "items"],
]);

/**
 * A `$ref` pointer (relative to `resource`) written against the schema as given, spelled for the rewritten tree.
 * zod-to-json-schema, for one, writes refs such as `#/properties/pair/items/0`; the normalised schema is what a
 * provider is declared, so its refs must resolve in it, not only in the validator's reading.
 */
function respell(w: Walk, resource: string, fragment: string): string {
  if (fragment === "") return fragment;
  let at = resource;
  for (const segment of fragment.slice(1).split("/")) {
    at = `${at}/${(w.tuples.has(at) && TUPLE_RENAMES.get(segment)) || segment}`;
  }
  return at.slice(resource.length);
}

function walkNode(w: Walk, node: unknown, pointer: string, resource: string): void {
  if (typeof node === "boolean") {
    w.positions.add(pointer);
    return;
  }
  if (!isPlainObject(node)) {
    problem(w, `expected a schema (an object or a boolean) at ${where(pointer)}`);
    return;
  }
  w.positions.add(pointer);
  if (Array.isArray(node.items)) w.draft07Tuples.push(pointer);
  if (w.lenient) {
    modernizeBounds(node);
    modernizeTuple(w, node, pointer);
  }
  let base = resource;
  const id = node.$id;
  // The validator takes an empty $id for no $id at all.
  if (typeof id === "string" && id !== "") {
    // Draft-07 `$id: "#name"` is an anchor; any other nested $id starts a new resource, and "#/…"
    // pointers inside it resolve against that resource (as the validator resolves them).
    if (id.startsWith("#")) w.anchors.set(`${resource}${id}`, pointer);
    else if (id.includes("#") && !id.endsWith("#")) problem(w, `$id "${id}" at ${where(pointer)} has a fragment`);
    else if (pointer !== "") base = pointer;
  }
  if (typeof node.$anchor === "string") w.anchors.set(`${base}#${node.$anchor}`, pointer);

  for (const key of Object.keys(node)) {
    const value = node[key];
    const here = `${pointer}/${escapeSegment(key)}`;
    if (isExtension(key)) {
      delete node[key];
      continue;
    }
    const why = unsupported(key, value);
    if (why !== undefined) {
      if (w.lenient) delete node[key];
      else problem(w, `"${key}" at ${where(pointer)} is not supported: ${why}`);
      continue;
    }
    const kind = KEYWORDS.get(key);
    if (kind === undefined) {
      if (w.lenient) {
        delete node[key];
        continue;
      }
      const guess = suggestKeyword(key);
      problem(w, `unknown keyword "${key}" at ${where(pointer)}${guess ? ` (did you mean "${guess}"?)` : ""}`);
      continue;
    }
    walkKeyword(w, node, key, kind, value, pointer, here, base);
  }
}

const IN_PLACE = new Set(["allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies"]);

function walkKeyword(
  w: Walk,
  parent: Record<string, unknown>,
  key: string,
  kind: KeywordKind,
  value: unknown,
  pointer: string,
  here: string,
  base: string,
) {
  const child = (v: unknown, p: string) => {
    if (IN_PLACE.has(key)) link(w, pointer, p);
    walkNode(w, v, p, base);
  };
  const must = (what: string) => problem(w, `"${key}" at ${where(pointer)} must be ${what}`);
  switch (kind) {
    case "schema":
      child(value, here);
      return;
    case "items":
      if (Array.isArray(value)) for (const [i, s] of value.entries()) child(s, `${here}/${i}`);
      else child(value, here);
      return;
    case "schemaArray":
      if (!Array.isArray(value) || value.length === 0) must("a non-empty array of schemas");
      else for (const [i, s] of value.entries()) child(s, `${here}/${i}`);
      return;
    case "schemaMap":
    case "patternMap":
    case "dependencies":
      if (!isPlainObject(value)) {
        must("an object whose values are schemas");
        return;
      }
      for (const [name, sub] of Object.entries(value)) {
        const bad = kind === "patternMap" ? patternProblem(w, name) : undefined;
        if (bad === "invalid") must(`keyed by valid regular expressions (not "${name}")`);
        else if (bad !== undefined)
          problem(w, `"${key}" at ${where(pointer)}: the key ${show(name, 80)} ${bad.reason}`);
        // Draft-07 `dependencies` values may be property-name lists rather than schemas.
        else if (kind === "dependencies" && Array.isArray(sub)) {
          if (!isStringArray(sub)) must("an object of schemas or string arrays");
        } else child(sub, `${here}/${escapeSegment(name)}`);
      }
      return;
    default: {
      const wanted = valueProblem(kind, value);
      if (wanted !== undefined) must(wanted);
      else if (key === "pattern") {
        const bad = patternProblem(w, value as string);
        if (bad === "invalid") must("a valid regular expression");
        else if (bad !== undefined) problem(w, `"pattern" at ${where(pointer)}: ${show(value, 80)} ${bad.reason}`);
      } else if (key === "$ref") w.refs.push({ at: pointer, resource: base, ref: value as string, node: parent });
      else if (key === "uniqueItems" && value === true) w.uniqueItems.push(pointer);
      else if (key === "$recursiveRef") w.recursiveRefs.push({ at: pointer, resource: base });
      else if (key === "$recursiveAnchor" && value === true) w.recursiveAnchors.push(pointer);
    }
  }
}

function resolveRefs(w: Walk): void {
  for (const { at, resource, ref, node } of w.refs) {
    if (!ref.startsWith("#")) {
      problem(w, `$ref "${ref}" at ${where(at)} is not local; only "#/…" pointers into this schema are allowed`);
      continue;
    }
    let fragment: string;
    try {
      fragment = decodeURIComponent(ref.slice(1));
    } catch {
      problem(w, `$ref "${ref}" at ${where(at)} is not a valid URI fragment`);
      continue;
    }
    const isPointer = fragment === "" || fragment.startsWith("/");
    if (isPointer && w.tuples.size > 0) {
      const respelled = respell(w, resource, fragment);
      // Written as the validator's own lookup keys are (cfworker encodePointer), so it finds the same subschema.
      if (respelled !== fragment) node.$ref = `#${encodeURI(respelled).replaceAll("#", "%23")}`;
      fragment = respelled;
    }
    const target = isPointer ? `${resource}${fragment}` : w.anchors.get(`${resource}#${fragment}`);
    if (target === undefined || !w.positions.has(target)) {
      problem(w, `$ref "${ref}" at ${where(at)} does not resolve to a subschema of this schema`);
    } else link(w, at, target);
  }
  // `$recursiveRef: "#"` applies its resource's root, or whichever `$recursiveAnchor: true` subschema
  // (or other such root) is in scope at run time: every one of them is a possible in-place target.
  const targets = new Set([...w.recursiveRefs.map((r) => r.resource), ...w.recursiveAnchors]);
  for (const { at } of w.recursiveRefs) for (const target of targets) link(w, at, target);
}

/** A schema that reaches itself through $ref (or $recursiveRef) without consuming input would recurse forever. */
function findCycle(w: Walk): string | undefined {
  const state = new Map<string, 1 | 2>(); // 1 = on the current path, 2 = finished
  for (const start of w.inPlace.keys()) {
    if (state.has(start)) continue;
    const stack: Array<[string, number]> = [[start, 0]];
    state.set(start, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const next = w.inPlace.get(top[0])?.[top[1]++];
      if (next === undefined) {
        state.set(top[0], 2);
        stack.pop();
      } else if (state.get(next) === 1) {
        return next;
      } else if (!state.has(next)) {
        state.set(next, 1);
        stack.push([next, 0]);
      }
    }
  }
  return undefined;
}

interface SchemaTree {
  /** What makes the schema unusable; empty when it is usable. */
  problems: string[];
  /** Pointers of the subschemas that say `uniqueItems: true`. */
  uniqueItems: string[];
  /** Pointers of the subschemas written with a draft-07 tuple (`items` as an array of schemas). */
  draft07Tuples: string[];
  /** Every distinct `pattern` and `patternProperties` key, compiled for linear-time tests, by source. */
  patterns: ReadonlyMap<string, LinearPattern>;
}

/** Checks (and prunes, see above) a parsed schema. */
export function checkSchemaTree(root: unknown, lenient: boolean): SchemaTree {
  const w: Walk = {
    lenient,
    problems: [],
    positions: new Set(),
    anchors: new Map(),
    refs: [],
    recursiveRefs: [],
    recursiveAnchors: [],
    inPlace: new Map(),
    uniqueItems: [],
    patterns: new Map(),
    patternWork: 0,
    tuples: new Set(),
    draft07Tuples: [],
  };
  walkNode(w, root, "", "");
  if (w.problems.length === 0) resolveRefs(w);
  if (w.problems.length === 0) {
    const cycle = findCycle(w);
    if (cycle !== undefined) problem(w, `$ref cycle at ${where(cycle)}: the schema refers to itself without nesting`);
  }
  return { problems: w.problems, uniqueItems: w.uniqueItems, draft07Tuples: w.draft07Tuples, patterns: w.patterns };
}
