// uniqueItems in compiled schemas (src/json-schema): duplicates found without comparing every pair, equality as JSON
// Schema defines it, and the keyword applied only where the validator applies it.
import { describe, expect, it } from "vitest";
import { type CompiledSchema, compileStrict, type SchemaResult } from "../../../src/json-schema/index";

function compiled(schema: unknown): CompiledSchema {
  const r = compileStrict(schema, { requireObjectRoot: true });
  if (!r.ok) throw new Error(r.error);
  return r.schema;
}

const issuesOf = (r: SchemaResult) => (r.ok ? [] : r.issues);

describe("uniqueItems", () => {
  it("reads each of 1,000 objects a bounded number of times to find the one duplicate, not once per pair", () => {
    const s = compiled({ type: "object", properties: { rows_u1: { type: "array", uniqueItems: true } } });
    let reads = 0;
    // Counts how often any item's keys are listed: the validator's pairwise pass lists them per pair compared.
    const counted = (o: object) =>
      new Proxy(o, {
        ownKeys: (t) => {
          reads++;
          return Reflect.ownKeys(t);
        },
      });
    const rows = Array.from({ length: 1000 }, (_, i) => counted({ id: i }));
    rows.push(counted({ id: 999 }));
    expect(issuesOf(s.validate({ rows_u1: rows }))).toEqual([
      {
        path: "/rows_u1",
        keyword: "uniqueItems",
        message: "must not contain duplicates (items 999 and 1000 are equal)",
      },
    ]);
    expect(reads).toBeLessThan(20 * rows.length);
  });

  it("checks each of 1,000 short arrays without comparing it with every duplicated array elsewhere in the value", () => {
    const s = compiled({
      type: "object",
      properties: { pairs_u5: { type: "array", items: { type: "array", uniqueItems: true } }, other_u5: {} },
    });
    let reads = 0;
    // Counts every property read of the duplicated arrays no uniqueItems covers: a comparison with one reads them.
    const counted = (a: number[]) =>
      new Proxy(a, {
        get: (t, key) => {
          reads++;
          return Reflect.get(t, key);
        },
      });
    const pairs = Array.from({ length: 1000 }, (_, i) => [i, -i - 1]);
    const other = Array.from({ length: 1000 }, (_, i) => counted([i + 0.5, i + 0.5]));
    expect(s.validate({ pairs_u5: pairs, other_u5: other })).toEqual({ ok: true });
    expect(issuesOf(s.validate({ pairs_u5: [...pairs, [7, 7]], other_u5: other }))).toEqual([
      {
        path: "/pairs_u5/1000",
        keyword: "uniqueItems",
        message: "must not contain duplicates (items 0 and 1 are equal)",
      },
    ]);
    expect(reads).toBeLessThan(40 * other.length);
  });

  it("counts 1 and 1.0, and objects whose keys differ only in order, as equal", () => {
    const s = compiled({ type: "object", properties: { set_u2: { type: "array", uniqueItems: true } } });
    const value = JSON.parse('{"set_u2": [{"a": 1, "b": [2]}, 3, {"b": [2.0], "a": 1.0}]}');
    expect(issuesOf(s.validate(value))).toEqual([
      { path: "/set_u2", keyword: "uniqueItems", message: "must not contain duplicates (items 0 and 2 are equal)" },
    ]);
    expect(s.validate({ set_u2: [{ a: 1 }, { a: "1" }, [1], 1] })).toEqual({ ok: true });
  });

  it("refuses duplicates only where the keyword applies, as the validator applies it (through $ref and anyOf)", () => {
    const s = compiled({
      type: "object",
      properties: {
        tags_u3: { anyOf: [{ $ref: "#/$defs/Tags" }, { type: "null" }] },
        free_u3: { type: "array" },
      },
      $defs: { Tags: { type: "array", uniqueItems: true, items: { type: "string" } } },
    });
    expect(s.validate({ tags_u3: ["a", "b"], free_u3: [1, 1] })).toEqual({ ok: true });
    const twice = s.validate({ tags_u3: ["a", "b", "a"], free_u3: [1, 1] });
    expect(issuesOf(twice)).toContainEqual({
      path: "/tags_u3",
      keyword: "uniqueItems",
      message: "must not contain duplicates (items 0 and 2 are equal)",
    });
  });

  it("keeps a subschema's own not beside its uniqueItems", () => {
    const s = compiled({
      type: "object",
      properties: { pair_u4: { type: "array", uniqueItems: true, not: { maxItems: 0 } } },
    });
    expect(issuesOf(s.validate({ pair_u4: [5, 5] }))).toEqual([
      { path: "/pair_u4", keyword: "uniqueItems", message: "must not contain duplicates (items 0 and 1 are equal)" },
    ]);
    expect(issuesOf(s.validate({ pair_u4: [] })).map((i) => i.keyword)).toEqual(["not"]);
    expect(s.validate({ pair_u4: [5, 6] })).toEqual({ ok: true });
  });
});
