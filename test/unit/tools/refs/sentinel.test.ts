// The reference sentinel of chained arguments (src/tools/refs/sentinel.ts): isRefSchema, refShape and containsRefs.
import { describe, expect, it } from "vitest";
import { containsRefs, isRefSchema, REF_SCHEMA, refShape } from "../../../../src/tools/refs/sentinel";

describe("isRefSchema", () => {
  it("knows REF_SCHEMA in any key order (stores may reorder keys), and nothing merely like it", () => {
    const reordered = Object.fromEntries(Object.entries(REF_SCHEMA).reverse());
    expect(Object.keys(reordered)).not.toEqual(Object.keys(REF_SCHEMA));
    expect(isRefSchema(reordered)).toBe(true);
    expect(isRefSchema({ ...REF_SCHEMA, description: "other" })).toBe(false);
  });
});

describe("refShape", () => {
  it("reads a reference, with or without a path", () => {
    expect(refShape({ $tool: "toolu_1", $path: "a.b[0]" })).toEqual({
      kind: "ref",
      ref: { $tool: "toolu_1", $path: "a.b[0]" },
    });
    expect(refShape({ $tool: "toolu_1" })).toEqual({ kind: "ref", ref: { $tool: "toolu_1" } });
  });

  it("reports an object with a $tool key that is no valid reference, rather than passing it on as data", () => {
    expect(refShape({ $tool: "toolu_1", extra: 1 }).kind).toBe("malformed");
    expect(refShape({ $tool: "" }).kind).toBe("malformed");
    expect(refShape({ $tool: "toolu_1", $path: 3 }).kind).toBe("malformed");
    expect(refShape({ city: "Oslo" })).toEqual({ kind: "none" });
  });
});

describe("containsRefs", () => {
  it("finds a reference at any depth below the arguments, never the arguments object itself", () => {
    expect(containsRefs({ a: [{ b: { $tool: "toolu_1" } }] })).toBe(true);
    expect(containsRefs({ $tool: "toolu_1" })).toBe(false);
    expect(containsRefs({ a: [1, { b: "x" }] })).toBe(false);
  });
});
