/**
 * Which tool calls need a person's approval (agent config), and the short
 * reason shown with a request. Pure: no storage, so plain Node tests import it.
 */
import type { AgentConfig } from "../agents/types";
import type { RegisteredTool } from "../tools/types";

/** Built-ins and client tools never need approval; http tools by `requires_approval`, MCP tools by their server's policy. */
export function needsApproval(agent: AgentConfig, tool: RegisteredTool): boolean {
  if (tool.source === "http") return agent.tools.some((t) => t.name === tool.name && t.requires_approval === true);
  if (tool.source !== "mcp" || !tool.mcp) return false;
  const { server, tool: own } = tool.mcp;
  const policy = agent.mcp_servers.find((s) => s.name === server)?.require_approval ?? "never";
  if (policy === "always") return true;
  if (policy === "never") return false;
  return policy.tools.includes(own) || policy.tools.includes(tool.name);
}

/** The short reason shown with a request. */
export function requestReason(tool: RegisteredTool): string {
  return tool.source === "mcp" && tool.mcp
    ? `"${tool.mcp.tool}" on MCP server "${tool.mcp.server}" requires approval before it runs`
    : `"${tool.name}" requires approval before it runs`;
}
