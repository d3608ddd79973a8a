// The JSON Schema compiler (src/json-schema): what compileStrict refuses in a schema (roots, keywords, drafts, $ref,
// size), what compileLenient rewrites instead, and how a compiled schema validates values.
import { describe, expect, it } from "vitest";
import {
  type CompiledSchema,
  type CompileResult,
  compileLenient,
  compileStrict,
  formatIssues,
  type SchemaIssue,
} from "../../../src/json-schema/index";

const strict = (schema: unknown, requireObjectRoot = true) => compileStrict(schema, { requireObjectRoot });

function errorOf(r: CompileResult): string {
  if (r.ok) throw new Error("expected the schema to be refused");
  return r.error;
}

describe("compileStrict: the root", () => {
  it("accepts an object root, and a type union containing object", () => {
    expect(strict({ type: "object", properties: { a: { type: "string" } } }).ok).toBe(true);
    expect(strict({ type: ["object", "null"] }).ok).toBe(true);
  });

  it("refuses non-object roots when an object root is required", () => {
    for (const bad of [true, {}, [], { type: "array", items: { type: "string" } }, { type: "string" }]) {
      expect(errorOf(strict(bad))).toMatch(/root must|must be a JSON object/);
    }
  });

  it("accepts a root with no type that is a union of object schemas (a Pydantic or zod union of models)", () => {
    const defs = {
      A_cr: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
      B_cr: { type: "object", properties: { b: { type: "number" } }, required: ["b"] },
    };
    const union = strict({ anyOf: [{ $ref: "#/$defs/A_cr" }, { $ref: "#/$defs/B_cr" }], $defs: defs });
    if (!union.ok) throw new Error(union.error);
    expect(union.schema.validate({ b: 1 })).toEqual({ ok: true });
    expect(strict({ oneOf: [{ $ref: "#/$defs/A_cr" }, { type: "object" }], $defs: defs }).ok).toBe(true);
    expect(strict({ allOf: [{ $ref: "#/$defs/A_cr" }, { required: ["a"] }], $defs: defs }).ok).toBe(true);
  });

  it("refuses a root with no type that could be something other than an object", () => {
    const A = { type: "object", properties: { a: { type: "string" } } };
    for (const bad of [
      { anyOf: [{ $ref: "#/$defs/A" }, { type: "string" }], $defs: { A } },
      { oneOf: [{ $ref: "#/$defs/A" }, {}], $defs: { A } },
      { allOf: [{ minProperties: 1 }] },
      { anyOf: [] },
      { $ref: "#/$defs/A", $defs: { A } },
      { anyOf: [{ $ref: "#" }] },
    ]) {
      expect(errorOf(strict(bad))).toMatch(/root must have "type": "object"/);
    }
  });

  it("refuses values that are not schemas at all", () => {
    for (const bad of [null, 3, "object", [{ type: "object" }]]) {
      expect(errorOf(strict(bad, false))).toMatch(/must be a JSON object/);
    }
  });

  it("accepts boolean and non-object roots when no object root is required", () => {
    expect(strict(true, false).ok).toBe(true);
    expect(strict({ type: "array", items: { type: "integer" } }, false).ok).toBe(true);
  });
});

describe("compileStrict: keywords", () => {
  it("refuses typos at depth, naming the keyword and the pointer", () => {
    const schema = {
      type: "object",
      properties: { user: { type: "object", propertees: { name: { type: "string" } } } },
    };
    const error = errorOf(strict(schema));
    expect(error).toContain('unknown keyword "propertees" at /properties/user');
    expect(error).toContain('did you mean "properties"');
  });

  it("finds typos inside arrays, maps and items", () => {
    const base = (inner: object) => ({ type: "object", properties: { list: { type: "array", items: inner } } });
    expect(errorOf(strict(base({ type: "object", requird: ["a"] })))).toContain(
      'unknown keyword "requird" at /properties/list/items',
    );
    const anyOf = { type: "object", anyOf: [{ type: "object" }, { type: "object", maxLenght: 3 }] };
    expect(errorOf(strict(anyOf))).toContain('unknown keyword "maxLenght" at /anyOf/1');
    const defs = { type: "object", $defs: { "a/b": { tpye: "string" } } };
    expect(errorOf(strict(defs))).toContain("at /$defs/a~1b");
  });

  it("reports several problems at once", () => {
    const error = errorOf(strict({ type: "object", titel: "x", descripton: "y" }));
    expect(error).toContain('"titel"');
    expect(error).toContain('"descripton"');
  });

  it("treats property names and data as data, not keywords", () => {
    const schema = {
      type: "object",
      properties: { propertees: { type: "string" }, constructor: { type: "string" } },
      default: { requird: 1 },
      examples: [{ propertees: 2 }],
      const: { anything: true },
    };
    expect(strict(JSON.parse(JSON.stringify(schema))).ok).toBe(true);
    expect(strict(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}')).ok).toBe(true);
  });

  it("refuses keyword names inherited from Object.prototype", () => {
    expect(errorOf(strict(JSON.parse('{"type":"object","constructor":{}}')))).toContain('"constructor"');
    expect(errorOf(strict(JSON.parse('{"type":"object","__proto__":{}}')))).toContain('"__proto__"');
  });

  it("accepts type unions and refuses invalid type names", () => {
    expect(strict({ type: "object", properties: { a: { type: ["string", "null"] } } }).ok).toBe(true);
    expect(errorOf(strict({ type: "object", properties: { a: { type: "int" } } }))).toMatch(
      /"type" at \/properties\/a must be one of .*got "int"/,
    );
    expect(errorOf(strict({ type: "object", properties: { a: { type: [] } } }))).toContain('"type"');
    expect(errorOf(strict({ type: "object", properties: { a: { type: ["string", "string"] } } }))).toContain(
      "distinct",
    );
  });

  it("checks keyword value shapes", () => {
    const cases: Array<[object, RegExp]> = [
      [{ required: "a" }, /"required" at \(root\) must be an array of unique strings/],
      [{ minLength: -1 }, /non-negative integer/],
      [{ multipleOf: 0 }, /greater than 0/],
      [{ properties: [] }, /"properties" .* must be an object whose values are schemas/],
      [{ properties: { a: 3 } }, /expected a schema .* at \/properties\/a/],
      [{ anyOf: [] }, /non-empty array/],
      [{ pattern: "(" }, /regular expression/],
      [{ patternProperties: { "[": {} } }, /regular expression/],
      [{ enum: "a" }, /"enum" .* must be an array/],
    ];
    for (const [extra, message] of cases) expect(errorOf(strict({ type: "object", ...extra }))).toMatch(message);
  });

  it("allows x- vendor extensions anywhere, without looking inside them", () => {
    const schema = {
      type: "object",
      "x-vendor": { propertees: 1, $ref: "http://remote/x" },
      properties: { a: { type: "string", "x-order": 1 } },
    };
    expect(strict(schema).ok).toBe(true);
  });

  it("accepts annotations of both drafts", () => {
    const schema = {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: "https://example.com/tool",
      $comment: "c",
      title: "t",
      description: "d",
      type: "object",
      deprecated: false,
      readOnly: false,
      writeOnly: false,
      properties: {
        blob: { type: "string", contentEncoding: "base64", contentMediaType: "image/png", format: "byte" },
        when: { type: "string", format: "date-time", examples: ["2024-01-01T00:00:00Z"], default: "now" },
      },
    };
    expect(strict(schema).ok).toBe(true);
  });
});

describe("compileStrict: drafts", () => {
  it("accepts draft-07 definitions, tuple items and dependencies", () => {
    const schema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      definitions: {
        point: { type: "array", items: [{ type: "number" }, { type: "number" }], additionalItems: false },
      },
      properties: { at: { $ref: "#/definitions/point" }, a: {}, b: {} },
      dependencies: { a: ["b"], b: { required: ["a"] } },
    };
    const r = strict(schema);
    expect(r.ok && r.schema.draft).toBe("7");
    if (!r.ok) return;
    expect(r.schema.validate({ at: [1, 2] })).toEqual({ ok: true });
    expect(r.schema.validate({ at: [1, 2, 3] }).ok).toBe(false);
    expect(r.schema.validate({ at: [1, "x"] }).ok).toBe(false);
  });

  it("accepts 2020-12 $defs and prefixItems", () => {
    const schema = {
      type: "object",
      $defs: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: false } },
      properties: { kv: { $ref: "#/$defs/pair" } },
    };
    const r = strict(schema);
    expect(r.ok && r.schema.draft).toBe("2020-12");
    if (!r.ok) return;
    expect(r.schema.validate({ kv: ["a", 1] })).toEqual({ ok: true });
    expect(r.schema.validate({ kv: ["a", "b"] }).ok).toBe(false);
    expect(r.schema.validate({ kv: ["a", 1, 2] }).ok).toBe(false);
  });

  it("refuses unsupported $schema values strictly, tolerates them leniently", () => {
    const schema = { $schema: "http://json-schema.org/draft-04/schema#", type: "object" };
    expect(errorOf(strict(schema))).toContain("unsupported $schema");
    const lenient = compileLenient(schema);
    expect(lenient.ok && lenient.schema.draft).toBe("7");
  });

  it("rewrites draft-04 boolean exclusive bounds leniently, refuses them strictly", () => {
    const schema = {
      $schema: "http://json-schema.org/draft-04/schema#",
      type: "object",
      properties: { n: { type: "number", minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: false } },
    };
    expect(errorOf(strict({ ...schema, $schema: undefined }))).toContain(
      '"exclusiveMinimum" at /properties/n must be a number',
    );
    const r = compileLenient(schema);
    if (!r.ok) throw new Error(r.error);
    expect(r.schema.validate({ n: 0 })).toEqual({
      ok: false,
      issues: [{ path: "/n", keyword: "exclusiveMinimum", message: "must be greater than 0 (got 0)" }],
      omitted: 0,
    });
    expect(r.schema.validate({ n: 10 })).toEqual({ ok: true });
    expect(r.schema.validate({ n: 11 }).ok).toBe(false);
  });
});

describe("compileStrict: $ref", () => {
  const withRef = (ref: string) => ({
    type: "object",
    $defs: { name: { type: "string" }, "a b": { type: "integer" } },
    properties: { x: { $ref: ref } },
  });

  it("accepts local pointers that resolve, including percent-encoded ones and anchors", () => {
    expect(strict(withRef("#/$defs/name")).ok).toBe(true);
    expect(strict(withRef("#/$defs/a%20b")).ok).toBe(true);
    const anchored = {
      type: "object",
      $defs: { n: { $anchor: "num", type: "number" } },
      properties: { x: { $ref: "#num" } },
    };
    expect(strict(anchored).ok).toBe(true);
  });

  it("allows recursion through properties (a tree)", () => {
    const tree = {
      type: "object",
      properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#" } } },
    };
    const r = strict(tree);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.schema.validate({ name: "a", children: [{ name: "b", children: [] }] })).toEqual({ ok: true });
    expect(r.schema.validate({ children: [{ name: 3 }] }).ok).toBe(false);
  });

  it("refuses refs that do not resolve, remote refs, and refs into data", () => {
    expect(errorOf(strict(withRef("#/$defs/missing")))).toContain(
      '$ref "#/$defs/missing" at /properties/x does not resolve',
    );
    expect(errorOf(strict(withRef("https://example.com/schema.json")))).toContain("is not local");
    expect(errorOf(strict(withRef("other.json#/a")))).toContain("is not local");
    expect(errorOf(strict(withRef("#nope")))).toContain("does not resolve");
    const intoData = { type: "object", default: { a: {} }, properties: { x: { $ref: "#/default/a" } } };
    expect(errorOf(strict(intoData))).toContain("does not resolve");
  });

  it("refuses a schema that refers to itself without nesting", () => {
    expect(errorOf(strict({ type: "object", $ref: "#" }))).toContain("cycle");
    const mutual = {
      type: "object",
      $defs: { a: { $ref: "#/$defs/b" }, b: { allOf: [{ $ref: "#/$defs/a" }] } },
      $ref: "#/$defs/a",
    };
    expect(errorOf(strict(mutual))).toContain("cycle");
  });
});

describe("compileStrict: references the validator does not implement", () => {
  it("refuses $dynamicRef and $dynamicAnchor, which the validator would ignore", () => {
    const dynamic = {
      type: "object",
      $dynamicAnchor: "node",
      properties: { kids: { type: "array", items: { $dynamicRef: "#node" } } },
    };
    const error = errorOf(strict(dynamic));
    expect(error).toContain('"$dynamicAnchor" at (root) is not supported');
    expect(error).toContain('"$dynamicRef" at /properties/kids/items is not supported');
  });

  it('refuses a $recursiveRef other than "#"', () => {
    const schema = {
      type: "object",
      $defs: { n: { type: "number" } },
      properties: { x: { $recursiveRef: "#/$defs/n" } },
    };
    expect(errorOf(strict(schema))).toContain('"$recursiveRef" at /properties/x is not supported');
  });

  it('refuses a $recursiveRef: "#" that applies the schema to itself without nesting', () => {
    expect(errorOf(strict({ type: "object", $recursiveRef: "#" }))).toContain("cycle");
    const viaAnchor = { type: "object", $recursiveAnchor: true, allOf: [{ $recursiveRef: "#" }] };
    expect(errorOf(strict(viaAnchor))).toContain("cycle");
  });

  it('validates a tree through $recursiveRef: "#"', () => {
    const tree = {
      $schema: "https://json-schema.org/draft/2019-09/schema",
      type: "object",
      $recursiveAnchor: true,
      properties: { name: { type: "string" }, kids: { type: "array", items: { $recursiveRef: "#" } } },
    };
    const r = strict(tree);
    if (!r.ok) throw new Error(r.error);
    expect(r.schema.validate({ name: "a", kids: [{ name: "b", kids: [] }] })).toEqual({ ok: true });
    expect(r.schema.validate({ name: "a", kids: [{ name: 3 }] })).toEqual({
      ok: false,
      issues: [{ path: "/kids/0/name", keyword: "type", message: "expected string, got integer" }],
      omitted: 0,
    });
  });

  it('treats a nested "$id": "" as no $id, as the validator does', () => {
    const inner = { $id: "", $defs: { n: { type: "string" } }, properties: { b: { $ref: "#/$defs/n" } } };
    expect(errorOf(strict({ type: "object", properties: { a: inner } }))).toContain(
      '$ref "#/$defs/n" at /properties/a/properties/b does not resolve',
    );
    const rootRelative = {
      type: "object",
      $defs: { n: { type: "string" } },
      properties: { a: { $id: "", properties: { b: { $ref: "#/$defs/n" } } } },
    };
    const r = strict(rootRelative);
    if (!r.ok) throw new Error(r.error);
    expect(r.schema.validate({ a: { b: "x" } })).toEqual({ ok: true });
    expect(r.schema.validate({ a: { b: 1 } }).ok).toBe(false);
  });
});

describe("compileStrict: patterns the linear-time regex engine cannot run", () => {
  it("refuses a pattern with a lookahead, naming it and why", () => {
    const schema = { type: "object", properties: { pw: { type: "string", pattern: "^(?=.*\\d).{8,}$" } } };
    expect(errorOf(strict(schema))).toBe(
      '"pattern" at /properties/pw: "^(?=.*\\\\d).{8,}$" has a lookahead ((?= or (?!), which the linear-time ' +
        "regex engine cannot run",
    );
  });

  it("refuses a patternProperties key with a backreference, naming it and why", () => {
    const schema = { type: "object", patternProperties: { "^(.)\\1": { type: "string" } } };
    expect(errorOf(strict(schema))).toBe(
      '"patternProperties" at (root): the key "^(.)\\\\1" has a backreference (\\1 or \\k<name>), which the ' +
        "linear-time regex engine cannot run",
    );
  });

  it("refuses such a pattern leniently too, as any other schema problem", () => {
    const schema = { type: "object", properties: { id: { type: "string", pattern: "^(?!tmp_)" } } };
    expect(errorOf(compileLenient(schema))).toContain('"pattern" at /properties/id: "^(?!tmp_)" has a lookahead');
  });

  it("refuses patterns past the work compiling a schema's patterns may take, naming the first over it", () => {
    const properties = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [`p${i}`, { type: "string", pattern: `^[a-z]{${900 + i}}$` }]),
    );
    expect(errorOf(strict({ type: "object", properties }))).toMatch(
      /^"pattern" at \/properties\/p21: "\^\[a-z\]\{921\}\$" takes the schema's patterns past the 20000 steps of work/,
    );
  });
});

describe("compileStrict: size and depth", () => {
  it("refuses schemas larger than 4 MiB", () => {
    const properties: Record<string, object> = {};
    const description = "d".repeat(1000);
    for (let i = 0; i < 4300; i++) properties[`p${i}`] = { type: "string", description };
    const error = errorOf(strict({ type: "object", properties }));
    expect(error).toContain(`larger than ${4 * 1024 * 1024} bytes`);
  });

  it("honours a smaller maxBytes, counting UTF-8 bytes", () => {
    const schema = { type: "object", description: "é".repeat(600) };
    expect(compileStrict(schema, { requireObjectRoot: true, maxBytes: 1000 }).ok).toBe(false);
    expect(compileStrict(schema, { requireObjectRoot: true, maxBytes: 2000 }).ok).toBe(true);
  });

  it("refuses absurd nesting instead of overflowing the stack", () => {
    let deep: object = { type: "string" };
    for (let i = 0; i < 200; i++) deep = { not: deep };
    expect(errorOf(strict({ type: "object", properties: { a: deep } }))).toContain("nests deeper");
  });
});

describe("compileLenient", () => {
  it("drops unknown keywords but still requires an object root and resolvable refs", () => {
    const sloppy = {
      type: "object",
      nullable: true,
      properties: { a: { type: "string", example: "x", propertees: {} } },
      required: ["a"],
    };
    const r = compileLenient(sloppy);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.schema.validate({ a: 1 }).ok).toBe(false);
    expect(compileLenient({ type: "array" }).ok).toBe(false);
    expect(compileLenient({ type: "object", properties: { a: { $ref: "#/nope" } } }).ok).toBe(false);
  });

  it("drops the references the validator does not implement", () => {
    const schema = {
      type: "object",
      $dynamicAnchor: "n",
      properties: { a: { $dynamicRef: "#n" }, b: { $recursiveRef: "x" } },
    };
    const r = compileLenient(schema);
    if (!r.ok) throw new Error(r.error);
    expect(r.schema.validate({ a: 1, b: 2 })).toEqual({ ok: true });
  });

  it("does not touch the caller's schema and exposes a frozen copy", () => {
    const schema = { type: "object", extra: 1, properties: { a: { type: "string" } } };
    const r = compileLenient(schema);
    expect(schema.extra).toBe(1);
    expect(r.ok && Object.isFrozen(r.schema.source)).toBe(true);
    expect(r.ok && r.schema.source).toEqual(schema);
  });

  it("normalises a draft-07 tuple to prefixItems and items, and still checks each position", () => {
    const schema = {
      type: "object",
      properties: { p: { type: "array", items: [{ type: "number" }, { type: "string" }], additionalItems: false } },
    };
    const r = compileLenient(schema);
    if (!r.ok) throw new Error(r.error);
    expect(r.schema.normalized).toEqual({
      type: "object",
      properties: { p: { type: "array", prefixItems: [{ type: "number" }, { type: "string" }], items: false } },
    });
    expect(r.schema.validate({ p: [1, "a"] })).toEqual({ ok: true });
    expect(r.schema.validate({ p: [1, 2] }).ok).toBe(false);
    expect(r.schema.validate({ p: [1, "a", 3] }).ok).toBe(false);
  });

  it("caches compilations by content", () => {
    const a = compileStrict({ type: "object", title: "cache me" }, { requireObjectRoot: true });
    const b = compileStrict({ type: "object", title: "cache me" }, { requireObjectRoot: true });
    expect(a.ok && b.ok && a.schema === b.schema).toBe(true);
  });
});

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

  it("names a key that is not allowed, and the path to it, by the key's head when the key is long", () => {
    const long = "k".repeat(10_000);
    const [issue] = issues(order, { customer: { id: "c" }, items: [], [long]: { deep: 1 } });
    expect(issue?.message).toBe(`property "${"k".repeat(59)}…" is not allowed`);
    const [nested] = issues(order, { customer: { id: "c" }, items: [{ id: "a", qty: 1, [long]: 1 }] });
    expect(nested?.message).toBe(`property "${"k".repeat(59)}…" is not allowed`);
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
