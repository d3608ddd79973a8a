// Generated inputs for the agreement test: every place of a valid example replaced by values chosen
// from the schema at that place (each bound and one past it, lengths counted in code points, enum
// members and non-members, pattern probes, duplicates) and by values of every other type; every
// property removed; an unknown property added to every object. Deterministic: no randomness.
type Schema = Record<string, unknown>;
type Path = Array<string | number>;

const OTHER_TYPES: unknown[] = [null, true, 0, -1, 1.5, "", "x", [], {}];

/** The subschemas that may apply at a path (through anyOf/oneOf branches, all of them). */
function schemasAt(schema: Schema, path: Path): Schema[] {
  let current: Schema[] = [schema];
  for (const segment of path) {
    const next: Schema[] = [];
    for (const s of current.flatMap(branches)) {
      if (typeof segment === "number") {
        if (s.items && typeof s.items === "object") next.push(s.items as Schema);
      } else {
        const props = s.properties as Record<string, Schema> | undefined;
        if (props?.[segment]) next.push(props[segment]);
        else if (s.additionalProperties && typeof s.additionalProperties === "object")
          next.push(s.additionalProperties as Schema);
      }
    }
    current = next;
  }
  return current.flatMap(branches);
}

function branches(s: Schema): Schema[] {
  const alternatives = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  return alternatives ? [s, ...alternatives.flatMap(branches)] : [s];
}

function strings(n: number): string[] {
  const out = [];
  for (const k of [n - 1, n, n + 1]) if (k >= 0) out.push("a".repeat(k), "😀".repeat(k));
  return out;
}

/** Values worth trying where a schema applies: its edges and just past them. */
function probes(s: Schema, example: unknown): unknown[] {
  const out: unknown[] = [];
  for (const key of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]) {
    const b = s[key];
    if (typeof b === "number") out.push(b - 1, b, b + 1, b + 0.5, b - 0.05);
  }
  for (const key of ["minLength", "maxLength"]) {
    const n = s[key];
    if (typeof n === "number") out.push(...strings(n));
  }
  for (const key of ["minItems", "maxItems", "minProperties", "maxProperties"]) {
    const n = s[key];
    if (typeof n !== "number") continue;
    for (const k of [n - 1, n, n + 1]) {
      if (k < 0) continue;
      if (key.endsWith("Items")) {
        const item = Array.isArray(example) && example.length > 0 ? example[0] : "x";
        out.push(Array.from({ length: k }, (_, i) => (typeof item === "string" ? `${item}${i}` : item)));
      } else out.push(Object.fromEntries(Array.from({ length: k }, (_, i) => [`k${i}`, i])));
    }
  }
  if (Array.isArray(s.enum)) out.push(...s.enum, "not-a-member", s.enum[0] === undefined ? 1 : [s.enum[0]]);
  if ("const" in s) out.push(s.const, `${String(s.const)}-other`);
  if (typeof s.pattern === "string") out.push("ok_name-1", "bad name!", "", "a".repeat(65), "a".repeat(129), "é");
  if (s.uniqueItems && Array.isArray(example) && example.length > 0) out.push([example[0], example[0]]);
  return out;
}

function get(value: unknown, path: Path): unknown {
  let cur = value;
  for (const s of path) cur = (cur as Record<string | number, unknown>)[s];
  return cur;
}

function replaced(value: unknown, path: Path, next: unknown): unknown {
  const copy = structuredClone(value);
  if (path.length === 0) return next;
  const parent = get(copy, path.slice(0, -1)) as Record<string | number, unknown>;
  parent[path[path.length - 1] as string | number] = next;
  return copy;
}

function removed(value: unknown, path: Path): unknown {
  const copy = structuredClone(value);
  const parent = get(copy, path.slice(0, -1)) as Record<string, unknown>;
  delete parent[path[path.length - 1] as string];
  return copy;
}

function paths(value: unknown, at: Path = []): Path[] {
  const out: Path[] = [at];
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) out.push(...paths(v, [...at, i]));
  } else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...at, k]));
  return out;
}

export function mutations(schema: Schema, example: unknown): unknown[] {
  const out: unknown[] = [example];
  for (const path of paths(example)) {
    const here = get(example, path);
    for (const v of OTHER_TYPES) out.push(replaced(example, path, v));
    for (const s of schemasAt(schema, path)) for (const v of probes(s, here)) out.push(replaced(example, path, v));
    if (path.length > 0 && typeof path[path.length - 1] === "string") out.push(removed(example, path));
    if (here && typeof here === "object" && !Array.isArray(here)) {
      out.push(replaced(example, path, { ...here, unknown_field: 1 }));
    }
  }
  return out;
}
