/**
 * The input schema a provider is sent for a tool (`declaredSchema`). Anthropic refuses a tool whose
 * `input_schema` has `oneOf`, `anyOf` or `allOf` at the top level ("input_schema does not support oneOf, allOf,
 * or anyOf at the top level"), OpenAI's strict mode refuses a root `anyOf`, and OpenAI-compatible servers refuse
 * a root without `type: "object"`: one such schema (a turn's json_schema, an agent tool, an MCP tool) would fail
 * every request. So a root combinator is folded away for the declaration only, and a root `type` list with "object"
 * in it (`["object", "null"]`, which the compiler accepts) is sent as `"object"`: arguments are still validated
 * against the full schema, and a call the declaration let through is answered with what to fix.
 */
import { localRefTarget, MAX_SHAPE_DEPTH } from "../json-schema/index";
import type { JsonObject, JsonValue } from "../model/json";
import { isPlainObject } from "../model/json";

const COMBINATORS = ["allOf", "anyOf", "oneOf"] as const;

/**
 * `schema` unchanged when its root has no `allOf`/`anyOf`/`oneOf` and no `type` list (one with "object" becomes
 * `type: "object"`); else a root `type: "object"` whose properties
 * are the union of the root's and every branch's (a name declared differently in several becomes an `anyOf` of
 * those declarations, which is allowed below the root), whose `required` names what every alternative requires
 * (all of `allOf`'s, the ones common to each `anyOf`/`oneOf` branch), with the combinators left out and named in
 * its description. Schemas are not mutated. Called where a tool's wire form is built once (`wireOnce`), not per step.
 */
export function declaredSchema(schema: JsonObject): JsonObject {
  if (COMBINATORS.some((k) => k in schema)) return fold(schema);
  return Array.isArray(schema.type) && schema.type.includes("object") ? { ...schema, type: "object" } : schema;
}

function fold(schema: JsonObject): JsonObject {
  const { allOf, anyOf, oneOf, ...rest } = schema;
  const all = branches(allOf, schema);
  const unions: Array<[string, JsonObject[]]> = [
    ["anyOf", branches(anyOf, schema)],
    ["oneOf", branches(oneOf, schema)],
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
  for (const b of [...all, ...unions.flatMap(([, bs]) => bs)]) addProperties(b.properties);

  const required = new Set(names(rest.required));
  for (const b of all) for (const n of names(b.required)) required.add(n);
  const notes: string[] = [];
  for (const [keyword, bs] of unions) {
    if (bs.length === 0) continue;
    const sets = bs.map((b) => names(b.required));
    for (const n of sets[0] ?? []) if (sets.every((s) => s.includes(n))) required.add(n);
    const which = keyword === "oneOf" ? "exactly one" : "at least one";
    const alternatives = sets.map((s) => (s.length ? `{${s.join(", ")}}` : "{}")).join(" | ");
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
  const note = `The arguments must match ${notes.join(" and ")}.`;
  out.description = typeof rest.description === "string" ? `${rest.description}\n\n${note}` : note;
  return out;
}

/**
 * A combinator's object branches, a local `$ref` (`#/$defs/…`: how Pydantic and zod write a union of models)
 * replaced by what it names, and a ref there by what that names, as far as the compiler follows them to accept the
 * union (json-schema/local-ref.ts), so the properties and required names at the chain's end count. A ref's
 * siblings win over its target's keywords. The definitions stay in the folded schema, so refs inside them and
 * inside properties still resolve.
 */
function branches(v: JsonValue | undefined, root: JsonObject): JsonObject[] {
  if (!Array.isArray(v)) return [];
  return v.filter((b): b is JsonObject => isPlainObject(b)).map((b) => resolved(b, root));
}

/** `branch` with its chain of local refs merged in; a ref that leads nowhere, or back into the chain, is left. */
function resolved(branch: JsonObject, root: JsonObject): JsonObject {
  let out = branch;
  // The root is a branch's container, never its definition: a `#` ref is a cycle too.
  const seen = new Set<unknown>([root]);
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
