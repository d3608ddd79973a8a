// The model layer's JSON helpers (src/model/json.ts): canonical text (approval signatures sign it), isPlainObject and
// resultValue.
import { describe, expect, it } from "vitest";
import { canonical, isPlainObject, resultValue } from "../../../src/model/json";

describe("canonical", () => {
  it("writes the same text whatever the key order (approval signatures sign it)", () => {
    expect(canonical({ b: 1, a: { d: "x", c: [2, { f: null, e: true }] } })).toBe(
      canonical({ a: { c: [2, { e: true, f: null }], d: "x" }, b: 1 }),
    );
  });

  it("keeps the exact text stored signatures were made over: sorted keys, no spaces, undefined as null", () => {
    expect(canonical({ q: 'caf\u00e9 "x"', n: 1.5, list: [undefined, null], u: undefined })).toBe(
      '{"list":[null,null],"n":1.5,"q":"café \\"x\\"","u":null}',
    );
    expect(canonical(undefined)).toBe("null");
  });
});

describe("isPlainObject", () => {
  it("is true for an object only, not for null or an array", () => {
    expect([{}, { a: 1 }, null, [], "x", 1].map(isPlainObject)).toEqual([true, true, false, false, false, false]);
  });
});

describe("resultValue", () => {
  it("gives JSON object or array text as its value and any other text as the string", () => {
    expect(resultValue(' {"temp_c": 21}')).toEqual({ temp_c: 21 });
    expect(resultValue("[1, 2]")).toEqual([1, 2]);
    expect(resultValue("42")).toBe("42");
    expect(resultValue("{not json")).toBe("{not json");
    expect(resultValue("sunny")).toBe("sunny");
  });
});
