// Which calls need a person's yes: http tools by `requires_approval`, MCP tools by their server's
// `require_approval` (always / never / named tools), built-ins and client tools never.
import { describe, expect, it } from "vitest";
import type { AgentConfig } from "../../../src/agents/types";
import { needsApproval } from "../../../src/session/approval-policy";
import type { RegisteredTool } from "../../../src/tools/types";

const agent = {
  tools: [{ name: "charge_card", requires_approval: true }, { name: "get_weather" }],
  mcp_servers: [
    { name: "gh", url: "https://gh.example.com/mcp", require_approval: { tools: ["delete_repo"] } },
    { name: "mail", url: "https://mail.example.com/mcp", require_approval: "always" },
    { name: "docs", url: "https://docs.example.com/mcp" },
  ],
} as unknown as AgentConfig;

const tool = (
  name: string,
  source: RegisteredTool["source"],
  mcp?: { server: string; tool: string },
): RegisteredTool => ({
  name,
  description: "",
  input_schema: { type: "object" },
  source,
  deferred: false,
  ...(mcp ? { mcp } : {}),
});

describe("needsApproval", () => {
  it("follows requires_approval on http tools", () => {
    expect(needsApproval(agent, tool("charge_card", "http"))).toBe(true);
    expect(needsApproval(agent, tool("get_weather", "http"))).toBe(false);
  });

  it("follows each MCP server's policy, by the tool's own name on that server", () => {
    expect(needsApproval(agent, tool("mcp__gh__delete_repo", "mcp", { server: "gh", tool: "delete_repo" }))).toBe(true);
    expect(needsApproval(agent, tool("mcp__gh__list_issues", "mcp", { server: "gh", tool: "list_issues" }))).toBe(
      false,
    );
    expect(needsApproval(agent, tool("mcp__mail__send", "mcp", { server: "mail", tool: "send" }))).toBe(true);
    expect(needsApproval(agent, tool("mcp__docs__read", "mcp", { server: "docs", tool: "read" }))).toBe(false);
  });

  it("never asks for built-ins or client tools", () => {
    expect(needsApproval(agent, tool("tool_search", "builtin"))).toBe(false);
    expect(needsApproval(agent, tool("charge_card", "client"))).toBe(false);
  });
});
