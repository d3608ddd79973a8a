// resolveRefs (src/tools/refs/resolve.ts): `$tool` references in tool arguments replaced by values of earlier results,
// with clear errors, no prototype tricks and size limits; containsRefs and REFS_PROMPT.
import { afterEach, describe, expect, it } from "vitest";
import {
  containsRefs,
  type Lookup,
  type LookupResult,
  REFS_PROMPT,
  resolveRefs,
} from "../../../../src/tools/refs/index";

const results: Record<string, LookupResult> = {
  toolu_a: {
    ok: true,
    value: { user: { name: "Ada", emails: ["ada@example.com", "a@example.org"] }, "key with.dots": 7, list: [] },
  },
  toolu_text: { ok: true, value: "plain text result" },
  toolu_arr: { ok: true, value: [{ id: 1 }, { id: 2 }] },
  toolu_bad: { ok: false, reason: "failed" },
  toolu_wait: { ok: false, reason: "pending" },
  toolu_cut: { ok: false, reason: "cut", stored: { kept: 262_000, original: 300_000 } },
  toolu_cut_early: { ok: false, reason: "cut", stored: null },
  toolu_nested: { ok: true, value: { inner: { $tool: "toolu_a" } } },
  toolu_proto: {
    ok: true,
    value: JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 1}}, "ok": 1}'),
  },
};
const lookup: Lookup = (id) => results[id] ?? { ok: false, reason: "unknown" };

function resolved(args: unknown) {
  const r = resolveRefs(args, lookup);
  if (!r.ok) throw new Error(r.error);
  return r;
}

function failure(args: unknown, limits?: Parameters<typeof resolveRefs>[2]): string {
  const r = resolveRefs(args, lookup, limits);
  if (r.ok) throw new Error("expected resolution to fail");
  return r.error;
}

afterEach(() => {
  // Every test must leave Object.prototype untouched.
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
});

describe("resolveRefs", () => {
  it("replaces sentinels by deep paths, array indexes and whole results", () => {
    const r = resolved({
      to: { $tool: "toolu_a", $path: "user.emails[1]" },
      name: { $tool: "toolu_a", $path: "$.user.name" },
      dotted: { $tool: "toolu_a", $path: '["key with.dots"]' },
      first: { $tool: "toolu_arr", $path: "[0].id" },
      all: { $tool: "toolu_arr" },
      text: { $tool: "toolu_text" },
      keep: [1, "two", null, { x: true }],
    });
    expect(r.value).toEqual({
      to: "a@example.org",
      name: "Ada",
      dotted: 7,
      first: 1,
      all: [{ id: 1 }, { id: 2 }],
      text: "plain text result",
      keep: [1, "two", null, { x: true }],
    });
    expect(r.refs).toEqual(["toolu_a", "toolu_arr", "toolu_text"]);
  });

  it("resolves sentinels inside arrays and returns fresh copies", () => {
    const r = resolved({ ids: [{ $tool: "toolu_arr", $path: "[1]" }] });
    expect(r.value).toEqual({ ids: [{ id: 2 }] });
    const copy = (r.value as { ids: object[] }).ids[0];
    const source = (results.toolu_arr as { value: object[] }).value[1];
    expect(copy).not.toBe(source);
  });

  it("does not resolve sentinels found inside a referenced value", () => {
    expect(resolved({ v: { $tool: "toolu_nested" } }).value).toEqual({ v: { inner: { $tool: "toolu_a" } } });
  });

  it("never treats the arguments object itself as a reference", () => {
    const r = resolved({ $tool: "toolu_a" });
    expect(r.value).toEqual({ $tool: "toolu_a" });
    expect(r.refs).toEqual([]);
  });

  it("explains unknown, failed and pending calls", () => {
    expect(failure({ q: { $tool: "toolu_x" } })).toBe("reference to unknown tool call toolu_x (at argument /q)");
    expect(failure({ q: { $tool: "toolu_bad" } })).toContain("tool call toolu_bad failed; its result cannot be used");
    expect(failure({ q: { $tool: "toolu_wait" } })).toContain("toolu_wait has no result yet");
  });

  it("explains a result cut for storage, whatever the path, and asks for a smaller part", () => {
    const cut =
      "the result of toolu_cut was cut to its first 262000 of 300000 bytes when stored, so it cannot be passed; ask the tool for a smaller part and reference that";
    expect(failure({ q: { $tool: "toolu_cut" } })).toBe(`${cut} (at argument /q)`);
    expect(failure({ q: { $tool: "toolu_cut", $path: "meta.count" } })).toBe(`${cut} (at argument /q)`);
  });

  it("explains a result its tool cut before it was stored, whatever the path, and asks for a smaller part", () => {
    const cut =
      "the result of toolu_cut_early was cut before it was stored (its text ends saying where), so it cannot be passed; ask the tool for a smaller part and reference that";
    expect(failure({ q: { $tool: "toolu_cut_early" } })).toBe(`${cut} (at argument /q)`);
    expect(failure({ q: { $tool: "toolu_cut_early", $path: "meta.count" } })).toBe(`${cut} (at argument /q)`);
  });

  it("explains paths that are not in the result", () => {
    expect(failure({ q: { $tool: "toolu_a", $path: "user.emails[3]" } })).toBe(
      'path "user.emails[3]" not found in the result of toolu_a (user.emails has 2 items) (at argument /q)',
    );
    expect(failure({ q: { $tool: "toolu_a", $path: "user.phone" } })).toContain(
      'user has no key "phone"; its keys are "name", "emails"',
    );
    expect(failure({ q: { $tool: "toolu_a", $path: "user.emails.first" } })).toContain(
      "user.emails is an array; use an index such as user.emails[0]",
    );
    expect(failure({ q: { $tool: "toolu_a", $path: "user.name.first" } })).toContain("user.name is a string");
    expect(failure({ q: { $tool: "toolu_a", $path: "list[0]" } })).toContain("list has 0 items");
    expect(failure({ q: { $tool: "toolu_text", $path: "x" } })).toContain("the result is a string");
    expect(failure({ q: { $tool: "toolu_a", $path: "a..b" } })).toContain('invalid path "a..b"');
  });

  it("names a result's long keys by their heads when a key is not found", () => {
    const value = { ["a".repeat(10_000)]: 1, ["b".repeat(10_000)]: 2 };
    const r = resolveRefs({ q: { $tool: "toolu_keys", $path: "c" } }, () => ({ ok: true, value }));
    if (r.ok) throw new Error("expected resolution to fail");
    expect(r.error).toContain(`has no key "c"; its keys are "${"a".repeat(59)}…", "${"b".repeat(59)}…"`);
  });

  it("accepts canonical numeric keys on arrays", () => {
    expect(resolved({ q: { $tool: "toolu_arr", $path: "1.id" } }).value).toEqual({ q: 2 });
  });

  it("reports malformed sentinels instead of passing them on", () => {
    expect(failure({ q: { $tool: "toolu_a", extra: 1 } })).toContain("malformed reference");
    expect(failure({ q: { $tool: 3 } })).toContain('"$tool" must be a tool_use id');
    expect(failure({ q: [{ $tool: "toolu_a", $path: 1 }] })).toContain('"$path" must be a string (at argument /q/0)');
  });
});

describe("resolveRefs: prototype safety", () => {
  it("refuses __proto__, constructor and prototype segments", () => {
    for (const path of [
      "__proto__",
      "constructor",
      "constructor.prototype",
      'user["__proto__"].x',
      "user.constructor",
    ]) {
      expect(failure({ q: { $tool: "toolu_a", $path: path } })).toMatch(/forbidden key "(__proto__|constructor)"/);
    }
    expect(failure({ q: { $tool: "toolu_proto", $path: "__proto__.polluted" } })).toContain("forbidden");
    expect(failure({ q: { $tool: "toolu_arr", $path: "[0].prototype" } })).toContain("forbidden");
  });

  it("never follows inherited properties", () => {
    expect(failure({ q: { $tool: "toolu_a", $path: "user.toString" } })).toContain('no key "toString"');
    expect(failure({ q: { $tool: "toolu_a", $path: "user.emails.length" } })).toContain("is an array");
  });

  it("copies hostile __proto__ keys in arguments as plain own data", () => {
    const args = JSON.parse(
      '{"a": {"__proto__": {"polluted": 1}}, "__proto__": {"polluted": 2}, "b": {"$tool": "toolu_a", "$path": "user.name"}}',
    );
    const r = resolved(args);
    const out = r.value as Record<string, Record<string, unknown>>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(out.a)).toBe(Object.prototype);
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect(Object.hasOwn(out.a as object, "__proto__")).toBe(true);
    expect(out.polluted).toBeUndefined();
    expect(JSON.stringify(out)).toBe('{"a":{"__proto__":{"polluted":1}},"__proto__":{"polluted":2},"b":"Ada"}');
  });

  it("copies hostile keys in referenced results as plain own data", () => {
    const r = resolved({ v: { $tool: "toolu_proto" } });
    const v = (r.value as { v: Record<string, unknown> }).v;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.hasOwn(v, "__proto__")).toBe(true);
    expect(v.polluted).toBeUndefined();
    expect(resolved({ v: { $tool: "toolu_proto", $path: "ok" } }).value).toEqual({ v: 1 });
  });
});

describe("resolveRefs: limits", () => {
  it("bounds the nesting depth of the arguments", () => {
    let deep: unknown = { $tool: "toolu_a", $path: "user.name" };
    for (let i = 0; i < 40; i++) deep = { n: deep };
    expect(failure(deep)).toBe("arguments nest deeper than 32 levels");
    expect(failure({ a: [[[[{ b: 1 }]]]] }, { maxDepth: 3 })).toContain("deeper than 3");
  });

  it("bounds the number of values", () => {
    expect(failure({ list: Array.from({ length: 50 }, (_, i) => i) }, { maxNodes: 20 })).toBe(
      "arguments have more than 20 values",
    );
  });

  it("bounds the size of referenced values, one by one and together", () => {
    results.toolu_big = { ok: true, value: { blob: "x".repeat(300 * 1024), small: "y".repeat(100 * 1024) } };
    expect(failure({ q: { $tool: "toolu_big", $path: "blob" } })).toMatch(
      /"blob" in the result of toolu_big is too large to pass \(\d+ bytes; limit 262144\)/,
    );
    expect(resolved({ q: { $tool: "toolu_big", $path: "small" } }).refs).toEqual(["toolu_big"]);
    const many = Object.fromEntries(
      Array.from({ length: 11 }, (_, i) => [`k${i}`, { $tool: "toolu_big", $path: "small" }]),
    );
    expect(failure(many)).toContain("exceed 1048576 bytes in total");
  });
});

describe("containsRefs and REFS_PROMPT", () => {
  it("finds sentinels anywhere below the root, including malformed ones", () => {
    expect(containsRefs({ a: 1, b: [{ c: { $tool: "toolu_a" } }] })).toBe(true);
    expect(containsRefs({ a: { $tool: 5 } })).toBe(true);
    expect(containsRefs({ a: 1, b: ["$tool"], $path: "x" })).toBe(false);
    expect(containsRefs({ $tool: "toolu_a" })).toBe(false);
    expect(containsRefs("text")).toBe(false);
    expect(containsRefs({ big: Array.from({ length: 200_000 }, () => 1) })).toBe(false);
  });

  it("describes the sentinel in a few lines", () => {
    const lines = REFS_PROMPT.split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.length).toBeLessThanOrEqual(4);
    expect(REFS_PROMPT).toContain('"$tool"');
    expect(REFS_PROMPT).toContain('"$path"');
  });
});
