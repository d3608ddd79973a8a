// A schema's pattern compiled for the linear-time engine (src/json-schema/linear-pattern.ts): it gives the verdict
// ECMA-262 gives (V8 in `u` mode, as the validator builds patterns) on ordinary patterns and on every place the two
// dialects differ; a pattern too large to run or compile within its bounds, or not a regular expression at all, is
// refused before it is compiled.
import { describe, expect, it } from "vitest";
import { compilePattern, type LinearPattern } from "../../../src/json-schema/linear-pattern";

function linear(source: string): LinearPattern {
  const r = compilePattern(source);
  if (!r.ok) throw new Error(`refused: ${JSON.stringify(r)}`);
  return r.pattern;
}

/** Each pattern with texts it is tried on; the expected verdict of each is V8's. */
const CASES: Array<[string, string[]]> = [
  // Ordinary patterns, as schemas write them.
  ["^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$", ["john@example.com", "john@", "a b@c.de"]],
  ["^\\d{4}-\\d{2}-\\d{2}$", ["2024-05-01", "2024-5-1", "٢٠٢٤-٠٥-٠١"]],
  ["^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", ["123e4567-e89b-12d3-a456-426614174000", "x"]],
  ["^[a-zA-Z0-9_-]{1,64}$", ["ok_name-1", "bad name!", "", "a".repeat(64), "a".repeat(65)]],
  ["^https?://[^\\s/$.?#].[^\\s]*$", ["https://example.com/x", "http:// x", "ftp://x"]],
  ["^(?:ab|cd)+$", ["abcd", "abc", ""]],
  ["^a{2,3}$", ["a", "aa", "aaa", "aaaa"]],
  ["^a{2,}$", ["a", "aa", "aaaaa"]],
  ["^a*?b+?c??$", ["aabbc", "b", "c"]],
  ["error", ["an error occurred", "all fine"]],
  ["", ["", "x"]],
  ["a|", ["b", ""]],
  ["^(|a)$", ["", "a", "aa"]],
  // Unanchored: JSON Schema patterns match anywhere.
  ["b+", ["abba", "aaa"]],
  // `^` and `$` are the text's ends, not a line's: `$` does not match before a final newline.
  ["a$", ["a\n", "a", "ab"]],
  ["^a", ["\na", "a"]],
  // `\d`, `\w` and `\b` are ASCII.
  ["^\\w+$", ["é", "a_1", "a-1"]],
  ["\\bfoo\\b", ["a foo b", "afoo", "éfoo"]],
  ["\\Bfoo", ["afoo", " foo"]],
  // `\s` is ECMA's white space and line terminators, wider than RE2's.
  ["^\\s+$", ["\u00a0", " \t\n\v\f\r", "\u2028\u3000\ufeff", "\u180e", "\u200b", "x"]],
  ["^\\S+$", ["\u00a0", "ab", "\u200b"]],
  ["^[\\s\\d]+$", ["1 2", "\u3000", "a"]],
  ["^[^\\s]+$", ["ab", "a b", "\u2029"]],
  ["^[\\S]+$", ["ab", "a\u00a0b"]],
  // `.` is anything but a line terminator; in `u` mode a character is a code point, a lone surrogate one too.
  ["^.$", ["\n", "\r", "\u2028", "\u2029", "a", "😀", "\ud800", "\u0085"]],
  ["^..$", ["😀", "ab"]],
  ["^[^a]$", ["\n", "😀", "a"]],
  ["^[]$", ["", "a"]],
  ["^[^]$", ["\n", "😀"]],
  ["é+", ["éé", "e"]],
  ["😀{2}", ["😀😀", "😀"]],
  ["^[😀-😂]$", ["😁", "😃"]],
  // Escapes: a surrogate pair of `\u` escapes is one character in `u` mode.
  ["^\\u0041\\x42\\u{43}$", ["ABC", "abc"]],
  ["^\\uD83D\\uDE00$", ["😀"]],
  ["^[\\uD83D\\uDE00]$", ["😀", "\ud83d"]],
  ["^\\uD83D$", ["\ud83d", "😀"]],
  ["^\\cJ\\0\\v\\f$", ["\n\0\v\f"]],
  ["^[\\b]$", ["\b", "b"]],
  ["^\\/\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$$", ["/.*+?()[]{}|^$", "x"]],
  // Classes: a dash at either end, an escaped dash, ranges of dashes, brackets and carets.
  ["^[a\\-z]+$", ["a-z", "b"]],
  ["^[-a]+$", ["-a", "b"]],
  ["^[a-]+$", ["-a", "b"]],
  ["^[--a]+$", ["-", ".", "a", "b"]],
  ["^[\\]\\[\\\\^]+$", ["[]\\^", "a"]],
  // Groups, named or not, only group.
  ["^(?<year>\\d{4})-(\\d{2})$", ["2024-05", "2024-5"]],
  // Lookbehind runs (re2js runs it in linear time).
  ["(?<=\\$)\\d+", ["$12", "12"]],
  ["(?<!\\$)\\b\\d+", ["$12", "12"]],
  // Unicode properties by their ECMA names.
  ["^\\p{L}+$", ["héllo", "h3"]],
  ["^\\p{Lu}\\p{Ll}+$", ["Hello", "hello"]],
  ["^\\p{Letter}+$", ["abc", "1"]],
  ["^\\p{General_Category=Decimal_Number}+$", ["123", "٣", "a"]],
  ["^\\p{gc=Nd}+$", ["123", "a"]],
  ["^\\p{Script=Greek}+$", ["αβ", "ab"]],
  ["^\\p{sc=Cyrillic}+$", ["да", "da"]],
  ["^\\P{L}+$", ["123", "a"]],
  ["^[\\p{L}\\p{N}_]+$", ["a1_", "a-"]],
  ["^[^\\p{L}]+$", ["12", "a"]],
  ["^\\p{ASCII}+$", ["abc", "é"]],
  ["^\\p{Any}$", ["😀", "\ud800"]],
  ["^\\p{Emoji_Presentation}$", ["😀", "a"]],
  ["^\\p{White_Space}+$", [" \u00a0\u2028", "a"]],
  ["^\\p{Alpha}+$", ["abc", "1"]],
  ["^\\p{digit}$", ["1", "a"]],
  // The pattern V8 backtracks on, where it answers quickly.
  ["^(a+)+$", ["aaaa", "aaab", ""]],
];

describe("a compiled pattern", () => {
  it.each(CASES)("gives ECMA-262's verdicts for %j", (source, texts) => {
    const pattern = linear(source);
    const native = new RegExp(source, "u");
    expect(texts.map((t) => pattern.test(t))).toEqual(texts.map((t) => native.test(t)));
  });

  it("refuses 100,000 a's and a ! under ^(a+)+$", () => {
    expect(linear("^(a+)+$").test(`${"a".repeat(100_000)}!`)).toBe(false);
  });
});

describe("compilePattern refuses", () => {
  it("what is no regular expression in u mode", () => {
    expect(compilePattern("(")).toEqual({ ok: false, invalid: true });
    expect(compilePattern("a{")).toEqual({ ok: false, invalid: true });
    expect(compilePattern("\\p{Nope}")).toEqual({ ok: false, invalid: true });
  });

  it("a pattern over 1,000 steps, counting a repetition as its copies", () => {
    expect(compilePattern("^.{0,5000}$")).toEqual({
      ok: false,
      invalid: false,
      reason:
        "is too large for the linear-time regex engine: 10002 steps, more than the 1000 a pattern may have " +
        "(x{500} is 500 copies of x); bound a length with minLength / maxLength",
    });
    expect(compilePattern("(?:a{100}){100}")).toMatchObject({ ok: false, reason: /: 10000 steps, more than/ });
  });

  it("a pattern whose classes and properties would take more than a schema's compiling work", () => {
    expect(compilePattern(`[${"\\p{L}".repeat(2000)}]`)).toEqual({
      ok: false,
      invalid: false,
      reason:
        "is too large for the linear-time regex engine to compile: 34001 steps of work, more than the 20000 a " +
        "schema's patterns may take (each member of a class is one, each \\p{…} 16)",
    });
  });

  it("a script RE2 does not know by the name written", () => {
    expect(compilePattern("\\p{Script=Grek}")).toMatchObject({
      ok: false,
      invalid: false,
      reason: /^cannot be run by the linear-time regex engine \(.*\\p\{Grek\}/,
    });
  });
});
