// widenSchema (src/tools/refs/widen.ts): every value position of a tool's input schema also accepts a reference
// sentinel, the root stays an object, and the result still compiles strictly.
import { describe, expect, it } from "vitest";
import { compileStrict } from "../../../../src/json-schema/index";
import { REF_SCHEMA, widenSchema } from "../../../../src/tools/refs/index";

const REF = { ...REF_SCHEMA };
/** Widened positions point to the one shared copy of REF_SCHEMA in the root's $defs. */
const PTR = { $ref: "#/$defs/tool_ref" };
const orRef = (schema: object) => ({ anyOf: [schema, PTR] });

describe("widenSchema", () => {
  it("widens every property but keeps the root an object schema", () => {
    const schema = { type: "object", properties: { a: { type: "string" }, b: { type: "integer" } }, required: ["a"] };
    expect(widenSchema(schema)).toEqual({
      type: "object",
      properties: { a: orRef({ type: "string" }), b: orRef({ type: "integer" }) },
      required: ["a"],
      $defs: { tool_ref: REF },
    });
  });

  it("widens nested objects, arrays, tuples, additionalProperties and inside $defs, wrapping each use", () => {
    const schema = {
      type: "object",
      $defs: { id: { type: "string" }, addr: { type: "object", properties: { zip: { type: "string" } } } },
      properties: {
        user: { type: "object", properties: { name: { type: "string" } } },
        tags: { type: "array", items: { type: "string" } },
        pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }] },
        map: { type: "object", additionalProperties: { type: "number" } },
        ref: { $ref: "#/$defs/id" },
      },
    };
    expect(widenSchema(schema)).toEqual({
      type: "object",
      $defs: {
        id: { type: "string" },
        addr: { type: "object", properties: { zip: orRef({ type: "string" }) } },
        tool_ref: REF,
      },
      properties: {
        user: orRef({ type: "object", properties: { name: orRef({ type: "string" }) } }),
        tags: orRef({ type: "array", items: orRef({ type: "string" }) }),
        pair: orRef({ type: "array", prefixItems: [orRef({ type: "string" }), orRef({ type: "number" })] }),
        map: orRef({ type: "object", additionalProperties: orRef({ type: "number" }) }),
        ref: orRef({ $ref: "#/$defs/id" }),
      },
    });
  });

  it("appends to a bare anyOf instead of nesting", () => {
    const schema = {
      type: "object",
      properties: {
        v: { description: "d", anyOf: [{ type: "string" }, { type: "object", properties: { x: { type: "number" } } }] },
      },
    };
    expect(widenSchema(schema).properties.v).toEqual({
      description: "d",
      anyOf: [{ type: "string" }, { type: "object", properties: { x: orRef({ type: "number" }) } }, PTR],
    });
  });

  it("wraps oneOf and allOf once, and an anyOf that has constraints of its own", () => {
    const oneOf = { oneOf: [{ type: "string" }, { type: "number" }] };
    const allOf = { allOf: [{ type: "string" }, { minLength: 2 }] };
    const constrained = { type: "object", required: ["a"], anyOf: [{ required: ["b"] }] };
    const widened = widenSchema({ type: "object", properties: { oneOf, allOf, constrained } });
    expect(widened.properties).toEqual({ oneOf: orRef(oneOf), allOf: orRef(allOf), constrained: orRef(constrained) });
  });

  it("leaves boolean schemas, if and not alone", () => {
    const schema = {
      type: "object",
      properties: { any: true, never: false, cond: { if: { properties: { k: { const: 1 } } }, not: { type: "null" } } },
      additionalProperties: false,
    };
    const widened = widenSchema(schema);
    expect(widened.properties.any).toBe(true);
    expect(widened.properties.never).toBe(false);
    expect(widened.additionalProperties).toBe(false);
    expect(widened.properties.cond).toEqual(orRef(schema.properties.cond));
  });

  it("stores the reference schema once however many positions accept it, under a free $defs name", () => {
    const props = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${i}`, { type: "string" }]));
    const widened = widenSchema({ type: "object", properties: props, $defs: { tool_ref: { type: "number" } } });
    const text = JSON.stringify(widened);
    expect(text.split("Reference to an earlier tool result").length - 1).toBe(1);
    const other = { $ref: "#/$defs/tool_ref_" };
    expect(widened.$defs).toEqual({ tool_ref: { type: "number" }, tool_ref_: REF });
    expect(widened.properties.p0).toEqual({ anyOf: [{ type: "string" }, other] });
  });

  it("is idempotent and does not mutate its input", () => {
    const schema = {
      type: "object",
      properties: {
        a: { anyOf: [{ type: "string" }, { type: "null" }] },
        b: { oneOf: [{ type: "string" }, { type: "number" }] },
        c: { type: "array", items: { type: "object", properties: { d: { type: "string" } } } },
      },
    };
    const before = JSON.stringify(schema);
    const once = widenSchema(schema);
    expect(widenSchema(once)).toEqual(once);
    expect(JSON.stringify(schema)).toBe(before);
  });

  it("recognises an already-widened schema whatever its key order", () => {
    const reordered = JSON.parse(
      JSON.stringify(widenSchema({ type: "object", properties: { a: { type: "string" } } })),
    );
    const ref = reordered.properties.a.anyOf[1];
    reordered.properties.a.anyOf[1] = Object.fromEntries(Object.entries(ref).reverse());
    expect(widenSchema(reordered).properties.a.anyOf).toHaveLength(2);
  });

  it("produces a schema that accepts sentinels where values go and still compiles strictly", () => {
    const schema = {
      type: "object",
      additionalProperties: false,
      required: ["city", "days"],
      properties: {
        city: { type: "string" },
        days: { type: "integer" },
        opts: { type: "array", items: { type: "string" } },
      },
    };
    const compiled = compileStrict(widenSchema(schema), { requireObjectRoot: true });
    if (!compiled.ok) throw new Error(compiled.error);
    const v = compiled.schema;
    expect(v.validate({ city: { $tool: "toolu_1", $path: "name" }, days: 3 }).ok).toBe(true);
    expect(
      v.validate({ city: "Oslo", days: { $tool: "toolu_2" }, opts: [{ $tool: "toolu_3", $path: "[0]" }] }).ok,
    ).toBe(true);
    expect(v.validate({ city: { $tool: 5 }, days: 1 }).ok).toBe(false);
    expect(v.validate({ city: { $tool: "t", extra: 1 }, days: 1 }).ok).toBe(false);
    expect(v.validate({ $tool: "toolu_1" }).ok).toBe(false);
  });

  it("widens below a nested $id into a schema that still compiles strictly and accepts sentinels there", () => {
    const schema = {
      type: "object",
      properties: {
        user: {
          $id: "https://example.com/user",
          type: "object",
          $defs: { name: { type: "string" } },
          properties: { name: { $ref: "#/$defs/name" }, tags: { type: "array", items: { type: "string" } } },
        },
        city: { type: "string" },
      },
    };
    const compiled = compileStrict(widenSchema(schema), { requireObjectRoot: true });
    if (!compiled.ok) throw new Error(compiled.error);
    const v = compiled.schema;
    expect(v.validate({ user: { name: { $tool: "toolu_1", $path: "name" }, tags: [{ $tool: "toolu_2" }] } })).toEqual({
      ok: true,
    });
    expect(v.validate({ user: { name: "Ada", tags: ["x"] }, city: { $tool: "toolu_3" } })).toEqual({ ok: true });
    expect(v.validate({ user: { $tool: "toolu_4" }, city: "Oslo" })).toEqual({ ok: true });
    expect(v.validate({ user: { name: 5 } }).ok).toBe(false);
  });

  it("keeps a root union of $refs an object: the definitions are not wrapped, their properties are", () => {
    const pet = {
      type: "object",
      anyOf: [{ $ref: "#/$defs/Cat_wd" }, { $ref: "#/$defs/Dog_wd" }],
      $defs: {
        Cat_wd: { type: "object", properties: { meow: { type: "string" } }, required: ["meow"] },
        Dog_wd: { type: "object", properties: { bark: { type: "string" } }, required: ["bark"] },
      },
    };
    const widened = widenSchema(pet);
    expect(widened.$defs.Cat_wd).toEqual({
      type: "object",
      properties: { meow: orRef({ type: "string" }) },
      required: ["meow"],
    });
    const compiled = compileStrict(widened, { requireObjectRoot: true });
    if (!compiled.ok) throw new Error(compiled.error);
    expect(compiled.schema.validate({ meow: { $tool: "toolu_1" } })).toEqual({ ok: true });
    expect(compiled.schema.validate({ $tool: "toolu_1" }).ok).toBe(false);
  });

  it("keeps proto-looking property names as plain keys", () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}');
    const widened = widenSchema(schema);
    expect(Object.getPrototypeOf(widened.properties)).toBe(Object.prototype);
    expect(Object.hasOwn(widened.properties, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).type).toBeUndefined();
  });
});
