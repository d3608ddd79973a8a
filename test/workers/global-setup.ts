// The workers suite's global setup: starts the mock model server and an MCP fixture server in Node and hands the
// tests their URLs and the chaos test's CHAOS_SEEDS and CHAOS_OPS.
import type { TestProject } from "vitest/node";
import { startMock } from "../../mock/server.ts";
import { droppingTools } from "../helpers/mcp-presets.ts";
import { startMcpServer } from "../helpers/mcp-server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    mockUrl: string;
    /** An MCP server (the SDK's, test/helpers/mcp-server.ts) whose tools are `droppingTools()`. */
    mcpUrl: string;
    /** CHAOS_SEEDS and CHAOS_OPS from the shell, for session-chaos.test.ts ("" when unset). */
    chaos: { seeds: string; ops: string };
  }
}

// The mock model server and the MCP server run in Node beside the Workers runtime; DOs reach them over loopback.
export default async function setup(project: TestProject) {
  const mock = await startMock({ port: 0 });
  const mcp = await startMcpServer({ tools: droppingTools() });
  project.provide("mockUrl", mock.url);
  project.provide("mcpUrl", mcp.url);
  project.provide("chaos", { seeds: process.env.CHAOS_SEEDS ?? "", ops: process.env.CHAOS_OPS ?? "" });
  return async () => {
    await mcp.close();
    await mock.close();
  };
}
