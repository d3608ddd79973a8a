import { describe, expect, it } from "vitest";
import { normalizeAgent } from "../../../src/agents/normalize";
import { stepTools } from "../../../src/tools/disclosure";
import { ToolRegistry } from "../../../src/tools/registry";
import type { RegisteredTool } from "../../../src/tools/types";

const agent = () => normalizeAgent("a", { model: { provider: "anthropic", name: "m" }, tools: [] });

/** An MCP tool as the catalog lists it: `mcp__<server>__<tool>`. */
const mcpTool = (server: string, tool: string): RegisteredTool => ({
  name: `mcp__${server}__${tool}`,
  description: `${tool} on ${server}`,
  input_schema: { type: "object" },
  source: "mcp",
  deferred: true,
  mcp: { server, tool },
});

describe("ToolRegistry", () => {
  it("keeps one tool per name: a second MCP tool under a name already taken is left out, never sent twice", () => {
    const first = mcpTool("gh", "issues__create");
    const second = mcpTool("gh__issues", "create");
    expect(second.name).toBe(first.name);
    const reg = new ToolRegistry(agent(), [first, second]);
    expect(reg.tools.map((t) => t.name)).toEqual(["mcp__gh__issues__create"]);
    expect(reg.get("mcp__gh__issues__create")?.mcp).toEqual({ server: "gh", tool: "issues__create" });
    const names = stepTools(reg, [], "anthropic").map((t) => t.name);
    expect(names.length).toBe(new Set(names).size);
  });
});
