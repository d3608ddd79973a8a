// ECMA-262 patterns in RE2's syntax (src/json-schema/ecma-pattern.ts): what RE2 cannot run is refused with the reason
// a schema's author is shown, and a pattern's steps and work are counted as RE2 compiles it.
import { describe, expect, it } from "vitest";
import { translatePattern } from "../../../src/json-schema/ecma-pattern";

describe("translatePattern refuses", () => {
  const LOOKAHEAD = "has a lookahead ((?= or (?!), which the linear-time regex engine cannot run";
  const BACKREFERENCE = "has a backreference (\\1 or \\k<name>), which the linear-time regex engine cannot run";

  it.each([
    ["^(?=.*\\d).{8,}$", LOOKAHEAD],
    ["^(?!tmp_)\\w+$", LOOKAHEAD],
    ["^(a)\\1$", BACKREFERENCE],
    ["^(?<q>['\"]).*\\k<q>$", BACKREFERENCE],
    ["(?i:abc)", "has inline modifiers ((?i: …)), which the linear-time regex engine does not read"],
    ["\\p{Bidi_Control}", "uses \\p{Bidi_Control}, a Unicode property the linear-time regex engine does not have"],
    [
      "\\p{Script_Extensions=Greek}",
      "uses \\p{Script_Extensions=Greek}: the linear-time regex engine has no Script_Extensions (use Script=)",
    ],
    [`${"(".repeat(1001)}a${")".repeat(1001)}`, "nests groups deeper than 1000 levels"],
  ])("%j", (source, reason) => {
    expect(translatePattern(source)).toEqual({ ok: false, reason });
  });
});

describe("translatePattern counts", () => {
  it("a counted repetition as that many copies of what it repeats", () => {
    expect(translatePattern("^a{500}$")).toMatchObject({ ok: true, steps: 502 });
    expect(translatePattern("^(?:ab){2,4}$")).toMatchObject({ ok: true, steps: 2 + 2 * 2 + 2 * 3 });
  });

  it("a class as one step, and its members as work, once however often it repeats", () => {
    expect(translatePattern("[a-z0-9_]{10}")).toMatchObject({ ok: true, steps: 10, work: 13 });
  });

  it("each Unicode property as 16 steps of work", () => {
    expect(translatePattern("\\p{L}[\\p{N}]")).toMatchObject({ ok: true, steps: 2, work: 2 + 16 + 1 + 16 });
  });
});
