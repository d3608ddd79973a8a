// The `u`-mode syntax check (src/json-schema/regex-syntax.ts): with each property escape checked once on its own and
// `\d` in its place, it says what V8 says of the whole string, wherever the escape stands.
import { describe, expect, it } from "vitest";
import { isUnicodeRegex } from "../../../src/json-schema/regex-syntax";

function v8(source: string): boolean {
  try {
    new RegExp(source, "u");
    return true;
  } catch {
    return false;
  }
}

describe("isUnicodeRegex", () => {
  it.each([
    "^\\p{L}+$",
    "\\P{Lu}",
    "\\p{Script=Greek}",
    "\\p{sc=Grek}",
    "[^\\p{L}\\d]",
    "[\\p{L}-a]",
    "[a-\\p{L}]",
    "\\\\p{L}",
    "\\p{L",
    "\\p{}",
    "\\p{Nope}",
    "\\p{L}{2}",
    "(?<a\\p{L}>x)",
    "\\k<\\p{L}>(?<a>x)",
    "\\c\\p{L}",
    "(?<=\\p{L})x",
    "\\p{General_Category=Letter}\\p{L",
    "[\\p{L}",
    "a{",
    "",
  ])("says what V8 says of %j", (source) => {
    expect(isUnicodeRegex(source)).toBe(v8(source));
  });
});
