// ToolRegistry (src/tools/registry.ts): one tool per name, MCP core tools past the cap on tools sent with every
// request deferred, or dropped when nothing can defer, and which registries take `$tool` references.
import { describe, expect, it } from "vitest";
import { normalizeAgent } from "../../../src/agents/normalize";
import { stepTools } from "../../../src/tools/disclosure";
import { LOAD_ROOM, ToolRegistry } from "../../../src/tools/registry";
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

  it("takes `$tool` references only with a tool the session runs: client tools and built-ins take none", () => {
    const ask = {
      name: "ask_user",
      description: "Ask",
      input_schema: { type: "object" },
      execution: { type: "client" },
    };
    const clientOnly = normalizeAgent("c", {
      model: { provider: "openai", name: "m" },
      tools: [{ ...ask, defer: true }],
    });
    const reg = new ToolRegistry(clientOnly);
    expect(reg.builtins.length).toBeGreaterThan(0);
    expect(reg.takesReferences()).toBe(false);
    expect(new ToolRegistry(clientOnly, [mcpTool("gh", "issues")]).takesReferences()).toBe(true);
  });
});

describe("ToolRegistry alwaysMax: MCP core tools past the cap on tools sent with every request", () => {
  const openai = (disclosure: Record<string, unknown> = {}) =>
    normalizeAgent("o", { model: { provider: "openai", name: "m" }, tools: [], disclosure });
  const eager = (server: string, n: number): RegisteredTool[] =>
    Array.from({ length: n }, (_, i) => ({ ...mcpTool(server, `t${i}`), deferred: false }));

  it("defers the last of them, so the plain tools[] holds at most the cap and the first ones stay core", () => {
    const reg = new ToolRegistry(openai(), eager("kit", 150), { alwaysMax: 127 });
    const sent = stepTools(reg, [], "plain").map((t) => t.name);
    // The core MCP tools in configured order, then the three built-ins that deferring brought in.
    const core = 127 - LOAD_ROOM - 3;
    expect(sent.slice(0, core)).toEqual(eager("kit", core).map((t) => t.name));
    expect(sent.slice(core)).toEqual(["tool_search", "tool_info", "select_tools"]);
    expect(reg.deferred().map((t) => t.name)).toEqual(
      eager("kit", 150)
        .slice(core)
        .map((t) => t.name),
    );
    expect(reg.overCap?.action).toBe("deferred");
    expect(reg.overCap?.byServer.get("kit")?.length).toBe(150 - core);
  });

  it("leaves room under the cap to load what it deferred", () => {
    const reg = new ToolRegistry(openai(), eager("kit", 150), { alwaysMax: 127 });
    expect(127 - stepTools(reg, [], "plain").length).toBe(LOAD_ROOM);
  });

  it("defers none while they fit beside the built-ins and the room to load the agent's deferred tools", () => {
    const deferred = mcpTool("lazy", "x");
    const fits = new ToolRegistry(openai(), [...eager("kit", 127 - LOAD_ROOM - 3), deferred], { alwaysMax: 127 });
    expect(fits.overCap).toBeNull();
    const over = new ToolRegistry(openai(), [...eager("kit", 127 - LOAD_ROOM - 2), deferred], { alwaysMax: 127 });
    expect(over.overCap?.byServer.get("kit")).toEqual([`mcp__kit__t${127 - LOAD_ROOM - 3}`]);
  });

  it("with tool_search off drops them (nothing can defer) and says so", () => {
    const reg = new ToolRegistry(openai({ tool_search: false }), eager("kit", 150), { alwaysMax: 127 });
    expect(stepTools(reg, [], "plain").length).toBe(127);
    expect(reg.get("mcp__kit__t127")).toBeUndefined();
    expect(reg.overCap?.action).toBe("dropped");
  });
});
