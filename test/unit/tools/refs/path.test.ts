// The `$path` syntax of chained arguments (src/tools/refs/path.ts): parsePath's keys, indexes, quoted keys, errors and
// bounds, and formatPath round-tripping through it.
import { describe, expect, it } from "vitest";
import { formatPath, type PathSegment, parsePath } from "../../../../src/tools/refs/index";

function segments(path: string): PathSegment[] {
  const r = parsePath(path);
  if (!r.ok) throw new Error(r.error);
  return r.segments;
}

function error(path: string): string {
  const r = parsePath(path);
  if (r.ok) throw new Error(`expected ${path} to be refused`);
  return r.error;
}

describe("parsePath", () => {
  it("parses keys and indexes", () => {
    expect(segments("a.b[0].c")).toEqual(["a", "b", 0, "c"]);
    expect(segments("items[12][3]")).toEqual(["items", 12, 3]);
    expect(segments("a.0")).toEqual(["a", "0"]);
  });

  it("accepts an optional leading $ or .", () => {
    expect(segments("$.a.b")).toEqual(["a", "b"]);
    expect(segments(".a")).toEqual(["a"]);
    expect(segments("$[0].a")).toEqual([0, "a"]);
    expect(segments("[1]")).toEqual([1]);
  });

  it("treats an empty path and a lone $ as the whole result", () => {
    expect(segments("")).toEqual([]);
    expect(segments("$")).toEqual([]);
    expect(segments("  ")).toEqual([]);
  });

  it("keeps a $ that starts a key", () => {
    expect(segments("$ref.x")).toEqual(["$ref", "x"]);
  });

  it("supports quoted keys with dots, spaces, brackets and escapes", () => {
    expect(segments('["key with.dots"].x')).toEqual(["key with.dots", "x"]);
    expect(segments("meta['content-type']")).toEqual(["meta", "content-type"]);
    expect(segments('a["say \\"hi\\""]')).toEqual(["a", 'say "hi"']);
    expect(segments("a['it\\'s']")).toEqual(["a", "it's"]);
    expect(segments('a["[0]"]')).toEqual(["a", "[0]"]);
    expect(segments('[""]')).toEqual([""]);
  });

  it("rejects malformed paths with a clear error", () => {
    expect(error("a..b")).toBe('invalid path "a..b": empty key at position 2');
    expect(error("a.")).toContain('path ends with "."');
    expect(error("a[")).toContain('unterminated "["');
    expect(error("a[x]")).toContain('invalid index "[x]"');
    expect(error("a[-1]")).toContain("negative indexes are not supported");
    expect(error("a[01]")).toContain("invalid index");
    expect(error("a[1.5]")).toContain("invalid index");
    expect(error('a["open')).toContain("unterminated quoted key");
    expect(error('a["x"')).toContain('expected "]"');
    expect(error("a]")).toContain('unexpected "]"');
    expect(error("a[0]b")).toContain('unexpected "b"');
    expect(error("a[99999999999999999999]")).toContain("invalid index");
  });

  it("bounds length and segment count", () => {
    expect(error("a".repeat(2000))).toContain("longer than");
    expect(error(Array.from({ length: 70 }, () => "a").join("."))).toContain("more than 64 segments");
  });
});

describe("formatPath", () => {
  it("round-trips through parsePath", () => {
    const cases: PathSegment[][] = [["a", "b", 0, "c"], ["key with.dots", 1], [0], ["$x"], ["a", 'q"uote'], []];
    for (const c of cases) expect(segments(formatPath(c))).toEqual(c);
    expect(formatPath(["a", "b", 0])).toBe("a.b[0]");
    expect(formatPath(["a b"])).toBe('["a b"]');
  });
});
