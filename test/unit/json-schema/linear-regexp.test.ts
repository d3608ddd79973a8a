// A schema's patterns in compiled schemas (src/json-schema/linear-regexp.ts): `pattern` and `patternProperties` keys
// are tested by the linear-time engine wherever the validator meets them, so a pattern V8 would backtrack on for hours
// gives its verdict at once; `patternProperties` still decides what `additionalProperties` and
// `unevaluatedProperties` see; the global RegExp is the native one again after each validation.
import { describe, expect, it } from "vitest";
import { type CompiledSchema, compileStrict } from "../../../src/json-schema/index";

function compiled(schema: unknown): CompiledSchema {
  const r = compileStrict(schema, { requireObjectRoot: true });
  if (!r.ok) throw new Error(r.error);
  return r.schema;
}

/** Under `^(a+)+$` V8 tries every way to split the `a`s before it gives up at the `!`: 0.3 s for 26, doubling with each. */
const NESTED = "^(a+)+$";
const POISON = `${"a".repeat(40)}!`;

describe("pattern", () => {
  it("refuses 40 a's and a ! under ^(a+)+$, which V8 would take hours over", () => {
    const s = compiled({ type: "object", properties: { word_r1: { type: "string", pattern: NESTED } } });
    expect(s.validate({ word_r1: POISON })).toEqual({
      ok: false,
      issues: [
        {
          path: "/word_r1",
          keyword: "pattern",
          message: `does not match the required pattern (got "${"a".repeat(38)}…)`,
        },
      ],
      omitted: 0,
    });
  });

  it("judges a property name under propertyNames' pattern the same way", () => {
    const s = compiled({ type: "object", propertyNames: { pattern: NESTED } });
    expect(s.validate({ [POISON]: 1 }).ok).toBe(false);
  });
});

describe("patternProperties", () => {
  const s = compiled({
    type: "object",
    patternProperties: { [NESTED]: { type: "number" } },
    additionalProperties: false,
  });

  it("leaves a key its pattern does not match (40 a's and a !) to additionalProperties", () => {
    expect(s.validate({ [POISON]: 1 })).toEqual({
      ok: false,
      issues: [{ path: "(root)", keyword: "additionalProperties", message: `property "${POISON}" is not allowed` }],
      omitted: 0,
    });
  });

  it("checks a key its pattern matches against its schema, not as an additional property", () => {
    const key = "a".repeat(40);
    expect(s.validate({ [key]: 1 })).toEqual({ ok: true });
    expect(s.validate({ [key]: "one" })).toMatchObject({ ok: false, issues: [{ path: `/${key}`, keyword: "type" }] });
  });

  it("marks the keys it matches as evaluated for unevaluatedProperties", () => {
    const u = compiled({ type: "object", patternProperties: { "^x_": true }, unevaluatedProperties: false });
    expect(u.validate({ x_1: 1 })).toEqual({ ok: true });
    expect(u.validate({ x_1: 1, y: 2 })).toMatchObject({ ok: false, issues: [{ keyword: "unevaluatedProperties" }] });
  });
});

describe("the global RegExp", () => {
  it("is the native constructor again after a validation with patterns", () => {
    const native = globalThis.RegExp;
    const s = compiled({ type: "object", properties: { code_r1: { type: "string", pattern: "^[A-Z]+$" } } });
    expect(s.validate({ code_r1: "ab" }).ok).toBe(false);
    expect(globalThis.RegExp).toBe(native);
    expect(/^a+$/u.test("aaa")).toBe(true);
  });
});
