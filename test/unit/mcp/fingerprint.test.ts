// An MCP server's fingerprint (src/mcp/fingerprint.ts): it changes with the URL or a header value, not with defer,
// and never shows a header value.
import { describe, expect, it } from "vitest";
import { fingerprint } from "../../../src/mcp/fingerprint";

describe("MCP server fingerprint", () => {
  it("fingerprints change with the URL or a header value, not with defer", () => {
    const a = fingerprint({ name: "s", url: "https://a/mcp", headers: { authorization: "one" } });
    expect(fingerprint({ name: "s", url: "https://a/mcp", headers: { authorization: "one" }, defer: false })).toBe(a);
    expect(fingerprint({ name: "s", url: "https://a/mcp", headers: { authorization: "two" } })).not.toBe(a);
    expect(fingerprint({ name: "s", url: "https://b/mcp", headers: { authorization: "one" } })).not.toBe(a);
    expect(a).not.toContain("one");
  });
});
