// cyrb53 (src/crypto/cyrb53.ts): a digest that stays the same across releases (stored MCP fingerprints compare
// with it) and tells apart texts one character apart.
import { describe, expect, it } from "vitest";
import { cyrb53 } from "../../../src/crypto/cyrb53";

describe("cyrb53", () => {
  it("gives the same base-36 digest for the same text across releases (stored MCP fingerprints compare with it)", () => {
    expect(cyrb53("")).toBe("wvjl67o803");
    expect(cyrb53("switchboard")).toBe("1r3aqp121ds");
  });

  it("tells apart texts that differ in one character", () => {
    expect(cyrb53("switchboarD")).not.toBe(cyrb53("switchboard"));
  });
});
