// The run-time engine's replaced `format` checks (src/json-schema/formats.ts), through a compiled schema as tools and
// structured output use them: `url` answers in linear time, what it accepts and what it refuses; `regex` judges a
// long string of Unicode properties without V8 building each one.
import { describe, expect, it } from "vitest";
import { compileStrict, type SchemaResult } from "../../../src/json-schema/index";

/** `value` as the property `link` of an object under `format`. */
function validateAs(format: string, value: string): SchemaResult {
  const compiled = compileStrict(
    { type: "object", properties: { link: { type: "string", format } } },
    { requireObjectRoot: true },
  );
  if (!compiled.ok) throw new Error(compiled.error);
  return compiled.schema.validate({ link: value });
}

const validateUrl = (value: string) => validateAs("url", value);

const refusedAsUrl = {
  ok: false,
  issues: [{ path: "/link", keyword: "format", message: "must be a valid url string" }],
  omitted: 0,
};

describe("format: url", () => {
  // The library's regex backtracks exponentially here: this never returned.
  it("refuses http:// and 60 letters (a host with no dot), and returns", () => {
    expect(validateUrl(`http://${"a".repeat(60)}`)).toEqual(refusedAsUrl);
  });

  // The same regex took 6.7 s for 30 letters although it matched: this never returned either.
  it("accepts a domain whose top-level label is 60 letters long", () => {
    expect(validateUrl(`http://a.${"a".repeat(60)}`)).toEqual({ ok: true });
  });

  it("accepts https://example.com", () => {
    expect(validateUrl("https://example.com")).toEqual({ ok: true });
  });

  // A format says what a string is, not where a request may go: the library's regex refused these.
  it("accepts localhost and private addresses", () => {
    expect(validateUrl("http://localhost:8080/x")).toEqual({ ok: true });
    expect(validateUrl("http://10.0.0.1/")).toEqual({ ok: true });
    expect(validateUrl("http://[::1]:8080/")).toEqual({ ok: true });
  });

  // The URL parser's IDNA step is quadratic in a label's length: such a host is refused before it is parsed.
  it("refuses a host longer than a DNS name can be", () => {
    const label = Array.from({ length: 300_000 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20_000)));
    expect(validateUrl(`https://${label.join("")}.com/`)).toEqual(refusedAsUrl);
  });

  it("refuses other schemes, a name without a top-level domain, spaces and a third slash, as the library did", () => {
    for (const value of [
      "mailto:a@example.com",
      "http://intranet/x",
      "http://exa mple.com",
      "http:///example.com",
      "http://a.b",
      "example.com",
    ]) {
      expect(validateUrl(value)).toEqual(refusedAsUrl);
    }
  });
});

describe("a format named after an object's own method", () => {
  it("is a format the validator does not know, so not checked", () => {
    for (const name of ["isPrototypeOf", "__proto__", "hasOwnProperty"]) {
      const compiled = compileStrict(
        { type: "object", properties: { v: { type: "string", format: name } } },
        { requireObjectRoot: true },
      );
      if (!compiled.ok) throw new Error(compiled.error);
      expect(compiled.schema.validate({ v: "anything" })).toEqual({ ok: true });
    }
  });
});

describe("format: regex", () => {
  const validateRegex = (value: string) => validateAs("regex", value);

  // V8 builds the set of each `\p{L}` anew, 0.1-0.2 ms apiece inside a class: this took 59 s.
  it("accepts a class of 250,000 \\p{L} escapes, and returns", () => {
    expect(validateRegex(`[${"\\p{L}".repeat(250_000)}]`)).toEqual({ ok: true });
  });

  it("refuses what is no regular expression in u mode, an unknown property among them", () => {
    for (const value of ["(", "a{", "\\p{Nope}", `[${"\\p{L}".repeat(1000)}\\p{Nope}]`, "\\Z"]) {
      expect(validateRegex(value)).toEqual({
        ok: false,
        issues: [{ path: "/link", keyword: "format", message: "must be a valid regex string" }],
        omitted: 0,
      });
    }
  });
});
