// Tool disclosure (src/tools/disclosure.ts): the projection a model's capabilities pick, the tools each step sends,
// the deferred listing, and the notices of tool-set changes.
import { ToolIndex } from "@switchboard/tool-search";
import { describe, expect, it } from "vitest";
import { normalizeAgent } from "../../../src/agents/normalize";
import type { Message, Part } from "../../../src/model/message";
import { jsonBytes } from "../../../src/storage/fit";
import { NOTICE_NAMES_BUDGET_BYTES, ROW_BUDGET_BYTES, USER_PARTS_BUDGET_BYTES } from "../../../src/storage/limits";
import { runBuiltin } from "../../../src/tools/builtins/run";
import {
  deferredListing,
  LISTING_MAX_CHARS,
  projectionFor,
  stepTools,
  toolSetNotices,
} from "../../../src/tools/disclosure";
import { ToolRegistry } from "../../../src/tools/registry";
import type { RegisteredTool } from "../../../src/tools/types";

const tool = (name: string, defer = true, description = `Does ${name.replaceAll("_", " ")}`) => ({
  name,
  description,
  input_schema: { type: "object", properties: { q: { type: "string" } } },
  defer,
  execution: { type: "client" },
});

function agent(tools: unknown[], extra: Record<string, unknown> = {}) {
  return normalizeAgent("a", { model: { provider: "anthropic", name: "m" }, tools, ...extra });
}

const msg = (parts: Part[]): Message => ({
  seq: 1,
  role: "user",
  parts,
  origin: "client",
  turn_id: null,
  created_at: "",
});

describe("projection choice", () => {
  it("follows the declared capabilities, not the model name", () => {
    const base = {
      name: "kimi",
      capabilities: { message_level_tools: false, native_tool_search: false, prompt_cache: false, thinking: false },
    };
    const search = { ...base.capabilities, native_tool_search: true };
    expect(projectionFor({ ...base, provider: "anthropic", capabilities: search })).toBe("anthropic");
    // An Anthropic model or endpoint without tool search: loaded schemas in tools[].
    expect(projectionFor({ ...base, provider: "anthropic" })).toBe("plain");
    expect(projectionFor({ ...base, provider: "openai" })).toBe("plain");
    expect(
      projectionFor({ ...base, provider: "openai", capabilities: { ...base.capabilities, message_level_tools: true } }),
    ).toBe("message_level");
  });

  it("the Responses API has no message-level tools: plain even when declared", () => {
    const capabilities = { message_level_tools: true, native_tool_search: false, prompt_cache: false, thinking: false };
    expect(projectionFor({ name: "gpt-test", provider: "openai-responses", capabilities })).toBe("plain");
  });
});

describe("stepTools", () => {
  const reg = new ToolRegistry(agent([tool("core_one", false), tool("d_one"), tool("d_two")]));

  it("anthropic: all tools, deferred ones flagged, order stable whatever is loaded", () => {
    const a = stepTools(reg, [], "anthropic");
    const b = stepTools(reg, ["d_two"], "anthropic");
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(a.map((t) => [t.name, t.defer_loading ?? false])).toEqual([
      ["core_one", false],
      ["tool_search", false],
      ["tool_info", false],
      ["select_tools", false],
      ["d_one", true],
      ["d_two", true],
    ]);
  });

  it("message_level: core and built-ins only", () => {
    expect(stepTools(reg, ["d_one"], "message_level").map((t) => t.name)).toEqual([
      "core_one",
      "tool_search",
      "tool_info",
      "select_tools",
    ]);
  });

  it("plain: loaded tools appended in load order, unknown names ignored", () => {
    expect(
      stepTools(reg, ["d_two", "gone", "d_one"], "plain")
        .map((t) => t.name)
        .slice(4),
    ).toEqual(["d_two", "d_one"]);
  });

  it("nothing is deferred and no built-in is added when tool_search is disabled", () => {
    const eager = new ToolRegistry(agent([tool("d_one"), tool("d_two")], { disclosure: { tool_search: false } }));
    expect(stepTools(eager, [], "anthropic").map((t) => [t.name, t.defer_loading ?? false])).toEqual([
      ["d_one", false],
      ["d_two", false],
    ]);
  });
});

describe("deferred listing", () => {
  it("stays under the hard cap and says how many more exist", () => {
    const many = Array.from({ length: 300 }, (_, i) =>
      tool(`tool_number_${i}`, true, `Description of tool ${i}\nsecond line`),
    );
    const listing = deferredListing(new ToolRegistry(agent(many)));
    expect(listing.length).toBeLessThanOrEqual(LISTING_MAX_CHARS);
    expect(listing).toContain("- tool_number_0: Description of tool 0\n");
    expect(listing).not.toContain("second line");
    expect(listing).toMatch(/\.\.\.and \d+ more deferred tools not listed here; tool_search finds them/);
  });

  it("is empty without deferred tools", () => {
    expect(deferredListing(new ToolRegistry(agent([tool("x", false)])))).toBe("");
  });
});

describe("tool-set notices", () => {
  it("writes a silent baseline first, then announces changes once, and nothing on quiet turns", () => {
    const before = new ToolRegistry(agent([tool("a"), tool("b")]));
    const baseline = toolSetNotices(before, []);
    expect(baseline).toHaveLength(1);
    expect(baseline[0]).toMatchObject({ kind: "tools_baseline", text: "", tools: ["a", "b"] });
    const history = [msg(baseline)];
    expect(toolSetNotices(before, history)).toEqual([]);
    const after = new ToolRegistry(agent([tool("b"), tool("c")]));
    const change = toolSetNotices(after, history);
    expect(change[0]).toMatchObject({ kind: "tools_changed", added: ["c"], removed: ["a"] });
    expect(change[0]?.text).toBe("<tools_added>c</tools_added>\n<tools_removed>a</tools_removed>");
    expect(toolSetNotices(after, [...history, msg(change)])).toEqual([]);
  });
});

describe("tool-set notices of large changes", () => {
  // 64-character names, the longest a tool can have.
  const long = (prefix: string, i: number) => `${prefix}_${i}_`.padEnd(64, "x");
  const own = (prefix: string) => Array.from({ length: 5000 }, (_, i) => tool(long(prefix, i)));
  // 20 MCP servers of 200 tools: with 5,000 own tools, the most an agent can have.
  const mcp = (prefix: string): RegisteredTool[] =>
    Array.from({ length: 4000 }, (_, i) => ({
      name: long(`mcp__s${i % 20}__${prefix}`, i),
      description: "an MCP tool",
      input_schema: { type: "object" },
      source: "mcp",
      deferred: true,
      mcp: { server: `s${i % 20}`, tool: `${prefix}_${i}` },
    }));
  const baselined = (reg: ToolRegistry) => [msg(toolSetNotices(reg, []))];

  it("renaming every tool an agent can have gives a notice that fits a row beside the user's own parts, announced once", () => {
    const before = new ToolRegistry(agent(own("old")), mcp("old"));
    const after = new ToolRegistry(agent(own("new")), mcp("new"));
    const history = baselined(before);
    const [notice] = toolSetNotices(after, history);
    // Listed whole, these 18,000 names would take ~2.4 MB, over the 2 MB a row may hold.
    expect(jsonBytes(notice)).toBeLessThanOrEqual(ROW_BUDGET_BYTES - USER_PARTS_BUDGET_BYTES);
    expect(notice?.text).toMatch(/\.\.\.and \d+ more \(tool_search finds them\)<\/tools_added>/);
    expect(notice?.text).toMatch(/\.\.\.and \d+ more<\/tools_removed>/);
    expect(toolSetNotices(after, [...history, msg(notice ? [notice] : [])])).toEqual([]);
  });

  it("a change too large to list whole is the same bytes every time it is rebuilt", () => {
    const before = new ToolRegistry(agent(own("was")));
    const after = new ToolRegistry(agent(own("now")));
    const history = baselined(before);
    const [notice] = toolSetNotices(after, history);
    // Listed in part: the names it shows fit their budget, and the tool set after the change is recorded.
    expect(jsonBytes(notice?.added) + jsonBytes(notice?.removed)).toBeLessThan(NOTICE_NAMES_BUDGET_BYTES);
    expect(notice?.tools).toHaveLength(5000);
    const rebuilt = toolSetNotices(new ToolRegistry(agent(own("now"))), history);
    expect(JSON.stringify(rebuilt)).toBe(JSON.stringify([notice]));
  });
});

describe("built-ins", () => {
  const reg = new ToolRegistry(agent([tool("core_one", false), tool("get_weather"), tool("send_email")]));
  const ctx = (loaded: string[] = []) => ({
    registry: reg,
    loaded: new Set(loaded),
    index: () => new ToolIndex(reg.deferred().map((t) => ({ name: t.name, description: t.description }))),
  });

  it("tool_search select: answers exact names even when already loaded, and loads the others", () => {
    const out = runBuiltin("tool_search", { query: 'select:"GET_WEATHER", send_email' }, ctx(["send_email"]));
    expect(out.is_error).toBe(false);
    const text = (out.content as Array<{ type: string; text?: string }>)[0]?.text ?? "";
    expect((JSON.parse(text) as { matches: Array<{ name: string }> }).matches.map((m) => m.name)).toEqual([
      "get_weather",
      "send_email",
    ]);
    expect(out.load).toEqual(["get_weather"]);
  });

  it("tool_search keywords leave out loaded tools", () => {
    expect(runBuiltin("tool_search", { query: "weather" }, ctx()).load).toEqual(["get_weather"]);
    expect(runBuiltin("tool_search", { query: "weather" }, ctx(["get_weather"])).load).toEqual([]);
  });

  it("tool_info is compact by default and gives the schema on request", () => {
    const compact = runBuiltin("tool_info", { name: "get_weather" }, ctx());
    const text = (compact.content as Array<{ type: string; text?: string }>)[0]?.text ?? "";
    expect(JSON.parse(text)).toEqual({
      name: "get_weather",
      description: "Does get weather",
      status: "deferred (not loaded)",
      parameters: ["q"],
    });
    const full = runBuiltin("tool_info", { name: "get_weather", include_schema: true }, ctx());
    expect(JSON.parse((full.content as Array<{ text: string }>)[0]?.text ?? "").input_schema).toEqual({
      type: "object",
      properties: { q: { type: "string" } },
    });
  });

  it("rejects max_results outside 1..20 and non-integers", () => {
    for (const max_results of [0, 21, 2.5]) {
      expect(runBuiltin("tool_search", { query: "x", max_results }, ctx()).is_error).toBe(true);
    }
    expect(runBuiltin("tool_search", { query: "x", max_results: 20 }, ctx()).is_error).toBe(false);
  });
});
