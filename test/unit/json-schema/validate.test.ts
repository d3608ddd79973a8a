import { describe, expect, it } from "vitest";
import { type CompiledSchema, compileStrict, formatIssues, type SchemaIssue } from "../../../src/json-schema/index";

function compiled(schema: unknown): CompiledSchema {
  const r = compileStrict(schema, { requireObjectRoot: true });
  if (!r.ok) throw new Error(r.error);
  return r.schema;
}

function issues(schema: CompiledSchema, value: unknown): SchemaIssue[] {
  const r = schema.validate(value);
  if (r.ok) throw new Error("expected the value to be invalid");
  return r.issues;
}

const order = compiled({
  type: "object",
  additionalProperties: false,
  required: ["customer", "items"],
  properties: {
    customer: {
      type: "object",
      required: ["id"],
      properties: { id: { type: "string" }, tier: { enum: ["free", "pro", "team"] } },
    },
    items: {
      type: "array",
      items: {
        type: "object",
        required: ["id", "qty"],
        additionalProperties: false,
        properties: {
          id: { type: "string" },
          qty: { type: "integer", minimum: 1 },
          tags: { type: "array", items: { type: "string" } },
        },
      },
    },
    note: { type: ["string", "null"] },
  },
});

describe("CompiledSchema.validate", () => {
  it("accepts valid values", () => {
    expect(order.validate({ customer: { id: "c1" }, items: [{ id: "i1", qty: 2 }], note: null })).toEqual({
      ok: true,
    });
  });

  it("reports missing required properties at the object that lacks them", () => {
    expect(issues(order, { items: [] })).toEqual([
      { path: "(root)", keyword: "required", message: 'missing required property "customer"' },
    ]);
    expect(issues(order, { customer: {}, items: [] })).toEqual([
      { path: "/customer", keyword: "required", message: 'missing required property "id"' },
    ]);
  });

  it("reports wrong types with the expected and actual type, without wrapper noise", () => {
    expect(issues(order, { customer: { id: 7 }, items: [] })).toEqual([
      { path: "/customer/id", keyword: "type", message: "expected string, got integer" },
    ]);
    expect(issues(order, { customer: { id: "c" }, items: [], note: 3 })).toEqual([
      { path: "/note", keyword: "type", message: "expected string or null, got integer" },
    ]);
  });

  it("reports enum violations with the allowed values", () => {
    expect(issues(order, { customer: { id: "c", tier: "gold" }, items: [] })).toEqual([
      { path: "/customer/tier", keyword: "enum", message: 'must be one of "free", "pro", "team" (got "gold")' },
    ]);
  });

  it("reports properties that additionalProperties: false forbids", () => {
    expect(issues(order, { customer: { id: "c" }, items: [], extra: 1 })).toEqual([
      { path: "(root)", keyword: "additionalProperties", message: 'property "extra" is not allowed' },
    ]);
  });

  it("points into nested arrays", () => {
    const value = {
      customer: { id: "c" },
      items: [
        { id: "a", qty: 1 },
        { id: 2, qty: 0, tags: ["x", 5] },
      ],
    };
    expect(issues(order, value)).toEqual([
      { path: "/items/1/id", keyword: "type", message: "expected string, got integer" },
      { path: "/items/1/qty", keyword: "minimum", message: "must be at least 1 (got 0)" },
      { path: "/items/1/tags/1", keyword: "type", message: "expected string, got integer" },
    ]);
  });

  it("reports several problems, deduplicated, and caps them", () => {
    const items = Array.from({ length: 30 }, () => ({ id: 1, qty: 1 }));
    const r = order.validate({ customer: { id: "c" }, items });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toHaveLength(10);
    expect(r.omitted).toBe(20);
    expect(new Set(r.issues.map((e) => e.path)).size).toBe(10);
  });

  it("reports a large invalid value by its first problem in each place", () => {
    const s = compiled({ type: "object", properties: { ids: { type: "array", items: { type: "string" } } } });
    const ids = Array.from({ length: 30_000 }, (_, i) => i);
    expect(s.validate({ ids })).toEqual({
      ok: false,
      issues: [{ path: "/ids/0", keyword: "type", message: "expected string, got integer" }],
      omitted: 0,
    });
  });

  it("judges uniqueItems on 30,000 distinct items, numbers and objects alike", () => {
    const s = compiled({ type: "object", properties: { list: { type: "array", uniqueItems: true } } });
    expect(s.validate({ list: Array.from({ length: 30_000 }, (_, i) => i) })).toEqual({ ok: true });
    expect(s.validate({ list: Array.from({ length: 30_000 }, (_, i) => ({ id: i, tag: "x" })) })).toEqual({
      ok: true,
    });
  });

  it("finds duplicates among 30,000 items by JSON equality, whatever the key order", () => {
    const s = compiled({ type: "object", properties: { list: { type: "array", uniqueItems: true } } });
    const list: unknown[] = Array.from({ length: 30_000 }, (_, i) => ({ id: i, tag: "x" }));
    list.push({ tag: "x", id: 7 });
    expect(issues(s, { list })).toEqual([
      { path: "/list", keyword: "uniqueItems", message: "must not contain duplicates (items 7 and 30000 are equal)" },
    ]);
  });

  it("keeps a wrapper error when nothing more specific explains it", () => {
    const one = compiled({ type: "object", properties: { v: { oneOf: [{ type: "number" }, { type: "integer" }] } } });
    expect(issues(one, { v: 1 })).toEqual([
      { path: "/v", keyword: "oneOf", message: "matches more than one of the alternatives (exactly one must match)" },
    ]);
  });

  it("drops type errors of rejected alternatives when another alternative failed deeper", () => {
    const s = compiled({
      type: "object",
      properties: {
        v: { anyOf: [{ type: "array", items: { type: "number" } }, { type: "string" }] },
        w: { anyOf: [{ type: "object", required: ["a"] }, { type: "string" }] },
      },
    });
    expect(issues(s, { v: [1, "x"] })).toEqual([
      { path: "/v/1", keyword: "type", message: "expected number, got string" },
    ]);
    expect(issues(s, { v: true })).toEqual([
      { path: "/v", keyword: "type", message: "expected array or string, got boolean" },
    ]);
    expect(issues(s, { w: {} })).toEqual([
      { path: "/w", keyword: "required", message: 'missing required property "a"' },
      { path: "/w", keyword: "type", message: "expected string, got object" },
    ]);
  });

  it("phrases bounds, lengths, formats and const", () => {
    const s = compiled({
      type: "object",
      properties: {
        email: { type: "string", format: "email" },
        code: { type: "string", minLength: 3, maxLength: 4, pattern: "^[A-Z]+$" },
        n: { type: "number", exclusiveMinimum: 0, maximum: 5 },
        list: { type: "array", minItems: 1 },
        k: { const: "x" },
      },
    });
    expect(issues(s, { email: "nope", code: "ab", n: 0, list: [], k: "y" })).toEqual([
      { path: "/email", keyword: "format", message: "must be a valid email string" },
      { path: "/code", keyword: "minLength", message: "must be at least 3 characters long (got 2)" },
      { path: "/code", keyword: "pattern", message: 'does not match the required pattern (got "ab")' },
      { path: "/n", keyword: "exclusiveMinimum", message: "must be greater than 0 (got 0)" },
      { path: "/list", keyword: "minItems", message: "must have at least 1 items (got 0)" },
      { path: "/k", keyword: "const", message: 'must equal "x"' },
    ]);
    expect(issues(s, { n: 6 })).toEqual([{ path: "/n", keyword: "maximum", message: "must be at most 5 (got 6)" }]);
  });

  it("escapes and decodes property names in paths", () => {
    const s = compiled({ type: "object", properties: { "a b/c": { type: "string" } } });
    expect(issues(s, { "a b/c": 1 })).toEqual([
      { path: "/a b~1c", keyword: "type", message: "expected string, got integer" },
    ]);
  });

  it("turns validator exceptions into issues", () => {
    const s = compiled({ type: "object" });
    const r = s.validate(undefined);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]?.message).toMatch(/could not be validated/);
  });

  it("formats issues for a tool_result", () => {
    const text = formatIssues(
      [
        { path: "(root)", keyword: "required", message: 'missing required property "city"' },
        { path: "/days", keyword: "type", message: "expected integer, got string" },
      ],
      3,
    );
    expect(text).toBe(
      '- (root): missing required property "city"\n- /days: expected integer, got string\n- …and 3 more problems',
    );
  });
});
