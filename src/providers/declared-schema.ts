/**
 * The input schema a provider is sent for a tool (`declaredSchema`). Anthropic refuses a tool whose
 * `input_schema` has `oneOf`, `anyOf` or `allOf` at the top level ("input_schema does not support oneOf, allOf,
 * or anyOf at the top level"), OpenAI's strict mode refuses a root `anyOf`, and OpenAI-compatible servers refuse
 * a root without `type: "object"`: one such schema (a turn's json_schema, an agent tool, an MCP tool) would fail
 * every request. So a root combinator (and any union nested in its branches) is folded away for the declaration
 * only, and a root `type` list with "object" in it (`["object", "null"]`, which the compiler accepts) is sent as
 * `"object"`: arguments are still validated against the full schema, and a call the declaration let through is
 * answered with what to fix.
 */
import { localRefTarget, MAX_SHAPE_DEPTH } from "../json-schema/index";
import type { JsonObject, JsonValue } from "../model/json";
import { isPlainObject } from "../model/json";

const COMBINATORS = ["allOf", "anyOf", "oneOf"] as const;
/**
 * How many nested unions one declaration folds in all: with the depth bound (MAX_SHAPE_DEPTH, as far as the
 * compiler follows nested unions to accept a root), a union of refs to unions of refs cannot make the fold explode.
 */
const MAX_NESTED_FOLDS = 256;

const hasCombinator = (schema: JsonObject) => COMBINATORS.some((k) => k in schema);

/**
 * `schema` unchanged when its root has no `allOf`/`anyOf`/`oneOf` and no `type` list (one with "object" becomes
 * `type: "object"`); else a root `type: "object"` whose properties
 * are the union of the root's and every branch's (a name declared differently in several becomes an `anyOf` of
 * those declarations, which is allowed below the root), whose `required` names what every alternative requires
 * (all of `allOf`'s, the ones common to each `anyOf`/`oneOf` branch), with the combinators left out and named in
 * its description. A branch that is itself a union (inline, through a `$ref`, or an `allOf` member) is folded the
 * same way first, so its alternatives' fields are declared too. Schemas are not mutated. Called where a tool's wire
 * form is built once (`wireOnce`), not per step.
 */
export function declaredSchema(schema: JsonObject): JsonObject {
  if (hasCombinator(schema)) {
    // The root is a branch's container, never its definition: a `#` ref is a cycle too.
    const { schema: out, notes } = fold(schema, { root: schema, left: MAX_NESTED_FOLDS }, new Set([schema]), 0);
    const note = `The arguments must match ${notes.join(" and ")}.`;
    out.description = typeof schema.description === "string" ? `${schema.description}\n\n${note}` : note;
    return out;
  }
  return Array.isArray(schema.type) && schema.type.includes("object") ? { ...schema, type: "object" } : schema;
}

/** What one fold shares with the folds nested in it. */
interface Folding {
  readonly root: JsonObject;
  /** Nested folds still allowed (MAX_NESTED_FOLDS). */
  left: number;
}

/** A schema with its combinators folded away, and what they said (empty for a branch that had none). */
interface Folded {
  schema: JsonObject;
  notes: string[];
}

/** `path`: the nodes being folded around this one (the root, the refs followed), so a recursive ref stops. */
function fold(schema: JsonObject, folding: Folding, path: ReadonlySet<unknown>, depth: number): Folded {
  const { allOf, anyOf, oneOf, ...rest } = schema;
  const all = branches(allOf, folding, path, depth);
  const unions: Array<[string, Folded[]]> = [
    ["anyOf", branches(anyOf, folding, path, depth)],
    ["oneOf", branches(oneOf, folding, path, depth)],
  ];
  // Each property's distinct declarations, in first-seen order.
  const declared = new Map<string, JsonValue[]>();
  const addProperties = (props: JsonValue | undefined) => {
    if (!isPlainObject(props)) return;
    for (const [name, s] of Object.entries(props)) {
      const list = declared.get(name) ?? [];
      if (!list.some((d) => JSON.stringify(d) === JSON.stringify(s))) list.push(s);
      declared.set(name, list);
    }
  };
  addProperties(rest.properties);
  for (const b of [...all, ...unions.flatMap(([, bs]) => bs)]) addProperties(b.schema.properties);

  const required = new Set(names(rest.required));
  for (const b of all) for (const n of names(b.schema.required)) required.add(n);
  const notes: string[] = [];
  for (const [keyword, bs] of unions) {
    if (bs.length === 0) continue;
    const sets = bs.map((b) => names(b.schema.required));
    for (const n of sets[0] ?? []) if (sets.every((s) => s.includes(n))) required.add(n);
    const which = keyword === "oneOf" ? "exactly one" : "at least one";
    // A folded branch is shown by what it says, its alternatives' required names included.
    const alternatives = bs
      .map((b, i) => (b.notes.length ? `(${b.notes.join(" and ")})` : `{${sets[i]?.join(", ") ?? ""}}`))
      .join(" | ");
    notes.push(`${which} of ${bs.length} alternatives (${keyword}), requiring ${alternatives}`);
  }
  if (all.length) notes.push(`all of ${all.length} schemas (allOf)`);

  const out: JsonObject = { ...rest, type: "object" };
  if (declared.size > 0) {
    out.properties = Object.fromEntries(
      [...declared].map(([name, list]) => [name, list.length === 1 ? (list[0] as JsonValue) : { anyOf: list }]),
    );
  }
  if (required.size > 0) out.required = [...required];
  else delete out.required;
  return { schema: out, notes };
}

/**
 * A combinator's object branches, a local `$ref` (`#/$defs/…`: how Pydantic and zod write a union of models)
 * replaced by what it names, and a ref there by what that names, as far as the compiler follows them to accept the
 * union (json-schema/local-ref.ts), so the properties and required names at the chain's end count. A ref's
 * siblings win over its target's keywords. A branch that is a union itself is folded, within the depth and count
 * bounds (past them it counts as it is: its own properties and required names only). The definitions stay in the
 * folded schema, so refs inside them and inside properties still resolve.
 */
function branches(v: JsonValue | undefined, folding: Folding, path: ReadonlySet<unknown>, depth: number): Folded[] {
  if (!Array.isArray(v)) return [];
  return v
    .filter((b): b is JsonObject => isPlainObject(b))
    .map((b) => {
      const seen = new Set(path);
      const schema = resolved(b, folding.root, seen);
      if (!hasCombinator(schema) || depth >= MAX_SHAPE_DEPTH || folding.left <= 0) return { schema, notes: [] };
      folding.left--;
      return fold(schema, folding, seen, depth + 1);
    });
}

/**
 * `branch` with its chain of local refs merged in; a ref that leads nowhere, or into `seen` (the chain so far and
 * the folds around it), is left. Each target followed is added to `seen`.
 */
function resolved(branch: JsonObject, root: JsonObject, seen: Set<unknown>): JsonObject {
  let out = branch;
  for (let i = 0; i < MAX_SHAPE_DEPTH && typeof out.$ref === "string"; i++) {
    // Within the root, so a JSON value.
    const target = localRefTarget(root, out.$ref) as JsonValue | undefined;
    if (!isPlainObject(target) || seen.has(target)) break;
    seen.add(target);
    const { $ref: _ref, ...siblings } = out;
    out = { ...target, ...siblings };
  }
  return out;
}

function names(v: JsonValue | undefined): string[] {
  return Array.isArray(v) ? v.filter((n): n is string => typeof n === "string") : [];
}
