/**
 * Widens a tool's input schema so that every value position also accepts a reference sentinel.
 * This is what the model is shown; after resolution the arguments are checked against the original.
 *
 * Value positions get `{anyOf: [original, REF_SCHEMA]}`. The root is never wrapped: the arguments
 * object itself cannot be a reference, and providers require `type: "object"` at the root. Nor is a
 * `$defs` entry: the place that uses one decides (a property's `$ref` is wrapped there), and a root
 * union's `$ref` branch is the root itself, which a wrapped definition would let be a reference.
 */
import { isPlainObject } from "../../model/json";
import { setOwn } from "./json";
import { isRefSchema, REF_SCHEMA } from "./sentinel";

/** Keys that constrain nothing, so a node made only of these plus `anyOf` can take REF as one more branch. */
const ANNOTATIONS = new Set([
  "title",
  "description",
  "default",
  "examples",
  "$comment",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$defs",
  "definitions",
]);

/** The root `$defs` entry every widened position points to (one copy of REF_SCHEMA per declaration). */
const REF_DEF = "tool_ref";

/** Schemas passed in are compiled ones (nesting already bounded); this guards direct callers too. */
const MAX_DEPTH = 200;

/** Keywords whose subschemas describe values nested in the instance (positions a reference may fill). */
const VALUE_MAPS = new Set(["properties", "patternProperties"]);
const VALUE_SINGLES = new Set([
  "additionalProperties",
  "unevaluatedProperties",
  "additionalItems",
  "unevaluatedItems",
  "contains",
]);
/** Keywords whose subschemas apply to the same instance: widen inside them, never wrap them. */
const SAME_INSTANCE_ARRAYS = new Set(["allOf", "anyOf", "oneOf"]);
const SAME_INSTANCE_SINGLES = new Set(["then", "else"]);
/**
 * Draft-07 `dependencies` may hold property-name arrays; those pass through unchanged. Definitions are widened
 * like these too (inside, never wrapped): each is only what its `$ref` makes of it, and a value position that
 * refers to one is wrapped itself.
 */
const SAME_INSTANCE_MAPS = new Set(["dependentSchemas", "dependencies", "$defs", "definitions"]);

function mapValues(value: unknown, fn: (v: unknown, depth: number) => unknown, depth: number): unknown {
  if (Array.isArray(value)) return value.map((v) => fn(v, depth));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) setOwn(out, k, fn(v, depth));
  return out;
}

/** A node that is only an `anyOf` (plus annotations): REF can be one more alternative. */
function isBareAnyOf(node: Record<string, unknown>): node is Record<string, unknown> & { anyOf: unknown[] } {
  return (
    Array.isArray(node.anyOf) &&
    Object.keys(node).every((k) => k === "anyOf" || ANNOTATIONS.has(k) || k.startsWith("x-"))
  );
}

/**
 * A nested `$id` (not an anchor, not empty: see json-schema/walk.ts) starts a new resource, against
 * which a `#/…` pointer inside it resolves, so the root's shared entry cannot be reached from there.
 */
function startsResource(node: Record<string, unknown>): boolean {
  return typeof node.$id === "string" && node.$id !== "" && !node.$id.startsWith("#");
}

/**
 * The widening walk of one declaration; `pointer` is the `$ref` that value positions get, except
 * below a nested resource (`inline`), where they get a copy of REF_SCHEMA instead.
 */
function walker(pointer: string) {
  const refNode = (inline: boolean) => (inline ? JSON.parse(JSON.stringify(REF_SCHEMA)) : { $ref: pointer });
  /** REF_SCHEMA inline (older declarations) or the pointer to the shared entry: already a reference. */
  const isRef = (node: unknown): boolean =>
    isRefSchema(node) || (isPlainObject(node) && Object.keys(node).length === 1 && node.$ref === pointer);

  /**
   * Widens what is inside a schema without making the schema itself accept a reference.
   * `if` and `not` are left alone: widening a condition or a negation would change what it means.
   */
  function widenInside(node: unknown, depth: number, inline = false): unknown {
    if (!isPlainObject(node) || isRef(node) || depth > MAX_DEPTH) return node;
    const nested = inline || (depth > 0 && startsResource(node));
    const value = (v: unknown, d: number) => widenValue(v, d, nested);
    const same = (v: unknown, d: number) => widenInside(v, d, nested);
    const out: Record<string, unknown> = {};
    for (const [key, sub] of Object.entries(node)) {
      let next = sub;
      if (VALUE_MAPS.has(key)) next = mapValues(sub, value, depth + 1);
      else if (key === "items" || key === "prefixItems") {
        next = Array.isArray(sub) ? mapValues(sub, value, depth + 1) : value(sub, depth + 1);
      } else if (VALUE_SINGLES.has(key)) next = value(sub, depth + 1);
      else if (SAME_INSTANCE_ARRAYS.has(key) || SAME_INSTANCE_MAPS.has(key)) next = mapValues(sub, same, depth + 1);
      else if (SAME_INSTANCE_SINGLES.has(key)) next = same(sub, depth + 1);
      setOwn(out, key, next);
    }
    return out;
  }

  /** Widens a value position: the node itself also accepts a reference. */
  function widenValue(node: unknown, depth: number, inline: boolean): unknown {
    // `true` already accepts anything; `false` forbids the value outright, a reference included.
    if (!isPlainObject(node) || isRef(node) || depth > MAX_DEPTH) return node;
    const inside = widenInside(node, depth, inline) as Record<string, unknown>;
    if (isBareAnyOf(inside)) {
      // Appending keeps one flat anyOf; already containing a reference means already widened (idempotence).
      if (inside.anyOf.some(isRef)) return inside;
      setOwn(inside, "anyOf", [...inside.anyOf, refNode(inline)]);
      return inside;
    }
    // oneOf/allOf and anything with constraints of its own are wrapped once: appending to a oneOf
    // could make a sentinel match two branches, and siblings like `required` would reject it.
    return { anyOf: [inside, refNode(inline)] };
  }

  return widenInside;
}

/**
 * Returns a new schema in which every value below the root may be a reference sentinel. The
 * sentinel's schema is stored once, in the root's `$defs` (under `REF_DEF`, or a free variant of
 * that name), and every position points to it, so a declaration pays for it once (positions below
 * a nested `$id` resource, which cannot point there, get their own copy).
 */
export function widenSchema<T>(schema: T): T {
  // Work on a private copy so nothing shared (REF_SCHEMA is frozen; the input is the caller's) is mutated.
  const copy: unknown = JSON.parse(JSON.stringify(schema) ?? "null");
  if (!isPlainObject(copy)) return copy as T;
  const defs = isPlainObject(copy.$defs) ? copy.$defs : {};
  let name = REF_DEF;
  while (Object.hasOwn(defs, name) && !isRefSchema(defs[name])) name = `${name}_`;
  const pointer = `#/$defs/${name}`;
  const out = walker(pointer)(copy, 0) as Record<string, unknown>;
  if (JSON.stringify(out).includes(JSON.stringify(pointer))) {
    const widenedDefs = isPlainObject(out.$defs) ? out.$defs : {};
    setOwn(widenedDefs, name, JSON.parse(JSON.stringify(REF_SCHEMA)));
    setOwn(out, "$defs", widenedDefs);
  }
  return out as T;
}
