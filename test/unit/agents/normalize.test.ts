import { describe, expect, it } from "vitest";
import { normalizeAgent } from "../../../src/agents/normalize";

describe("normalizeAgent: MCP server names", () => {
  it('refuses "__" in a server name (it separates the parts of a tool name)', () => {
    expect(() =>
      normalizeAgent("a", {
        model: { provider: "anthropic", name: "m" },
        mcp_servers: [{ name: "gh__issues", url: "https://mcp.example.com/mcp" }],
      }),
    ).toThrow(/must not contain "__"/);
  });
});
