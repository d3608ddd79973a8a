// MCP conversions (src/mcp/convert.ts): a server's tool list into registered tools (names, schemas, byte budget,
// defer), and call results and failures into what the model sees.
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { validateAnthropicRequest } from "../../../mock/validate-anthropic.ts";
import {
  acceptTools,
  capOutput,
  failureKind,
  failureOutcome,
  registeredTool,
  resultContent,
} from "../../../src/mcp/convert";
import { MAX_LIST_BYTES, MAX_MCP_OUTPUT_CHARS } from "../../../src/mcp/limits";
import { anthropic } from "../../../src/providers/anthropic";
import { declaration, ToolRegistry } from "../../../src/tools/registry";
import { request } from "../providers/helpers";

const schema = { type: "object", properties: { q: { type: "string" } } };

describe("MCP tool lists", () => {
  it("names tools mcp__<server>__<tool>, strips $schema, skips bad names and schemas", () => {
    const { tools, skipped } = acceptTools("gh", [
      {
        name: "search",
        description: "Search code",
        inputSchema: { $schema: "http://json-schema.org/draft-07/schema#", ...schema },
      },
      { name: "bad name", inputSchema: schema },
      { name: "x".repeat(60), inputSchema: schema },
      { name: "broken", inputSchema: { type: "object", properties: { a: { $ref: "#/nowhere" } } } },
      {
        name: "sloppy",
        title: "Sloppy",
        inputSchema: { type: "object", properties: {}, "x-vendor": 1, requird: ["a"] },
      },
      { name: "search", inputSchema: schema },
    ] as never);
    expect(tools.map((t) => t.name)).toEqual(["search", "sloppy"]);
    expect(tools[0]?.input_schema).toEqual(schema);
    expect(tools[1]?.description).toBe("Sloppy");
    expect(skipped.map((s) => s.split(" ")[0])).toEqual(["bad", "x".repeat(60), "broken", "search"]);
  });

  it("skips a tool whose schema has a pattern the linear-time regex engine cannot run, saying why", () => {
    const { tools, skipped } = acceptTools("pw", [
      { name: "login", inputSchema: { type: "object", properties: { pw: { type: "string", pattern: "^(?=.*\\d)" } } } },
      { name: "fine", inputSchema: schema },
    ]);
    expect(tools.map((t) => t.name)).toEqual(["fine"]);
    expect(skipped).toEqual([
      'login (schema: "pattern" at /properties/pw: "^(?=.*\\\\d)" has a lookahead ((?= or (?!), which the linear-time regex engine cannot run)',
    ]);
  });

  it("skips a listed entry that is not a valid MCP tool, naming it, and keeps the rest", () => {
    const { tools, skipped } = acceptTools("loose", [
      { name: "nulldesc", description: null, inputSchema: schema },
      { name: "stringroot", inputSchema: { type: "string" } },
      { name: "trueprop", inputSchema: { type: "object", properties: { a: true } } },
      "not a tool",
      { name: "fine", inputSchema: schema },
    ]);
    expect(tools.map((t) => t.name)).toEqual(["fine"]);
    expect(skipped.map((s) => s.split(" ")[0])).toEqual(["nulldesc", "stringroot", "trueprop", "#3"]);
    expect(skipped[0]).toMatch(/^nulldesc \(invalid: description: /);
  });

  it("keeps each tool's declared output schema in the list it caches (a restarted session checks results by it)", () => {
    const output = { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] };
    const { tools } = acceptTools("calc", [
      { name: "add", inputSchema: schema, outputSchema: output },
      { name: "log", inputSchema: schema },
    ] as never);
    const cached = JSON.parse(JSON.stringify(tools)) as typeof tools;
    expect(cached.map((t) => [t.name, t.output_schema])).toEqual([
      ["add", output],
      ["log", undefined],
    ]);
  });

  it("takes a tool whose output schema is too large to keep, without that schema (its results go unchecked)", () => {
    const wide = {
      type: "object",
      properties: Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`field_${i}`, { type: "string" }])),
    };
    const { tools, skipped } = acceptTools("reports", [
      { name: "report", inputSchema: schema, outputSchema: wide },
      { name: "search", inputSchema: schema },
    ] as never);
    expect(skipped).toEqual([]);
    expect(tools.map((t) => [t.name, t.output_schema])).toEqual([
      ["report", undefined],
      ["search", undefined],
    ]);
  });

  it("keeps the accepted list under its byte budget (one cached row), skipping what does not fit and saying so", () => {
    // 200 tools of ~10 KB each: ~2 MB listed, over the 2 MB row a cached list must fit in.
    const listed = Array.from({ length: 200 }, (_, i) => ({
      name: `tool_${i}`,
      description: `${"a long description of what this tool does ".repeat(240)}`,
      inputSchema: schema,
    }));
    const { tools, skipped } = acceptTools("big", listed as never);
    expect(tools.length).toBeGreaterThan(100);
    expect(tools.length + skipped.length).toBe(200);
    expect(JSON.stringify(tools).length).toBeLessThanOrEqual(MAX_LIST_BYTES);
    expect(skipped[0]).toContain(`over ${MAX_LIST_BYTES} bytes`);
  });

  it("sends an old-draft tool schema to the provider as 2020-12: bounds as numbers, tuples as prefixItems, no vendor keys", () => {
    const { tools } = acceptTools("legacy", [
      {
        name: "plot",
        inputSchema: {
          $schema: "http://json-schema.org/draft-04/schema#",
          type: "object",
          "x-order": 1,
          properties: {
            size: { type: "number", minimum: 0, exclusiveMinimum: true },
            point: { type: "array", items: [{ type: "number" }, { type: "number" }], additionalItems: false },
            ref: { $dynamicRef: "#meta", type: "string" },
          },
        },
      },
    ] as never);
    const tool = registeredTool({ name: "legacy", url: "https://x" }, tools[0]!);
    const body = anthropic.buildBody(request("anthropic", { tools: [declaration(tool)] }));
    expect(validateAnthropicRequest(body)).toBeNull();
    expect(tools[0]?.input_schema).toEqual({
      type: "object",
      properties: {
        size: { type: "number", exclusiveMinimum: 0 },
        point: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false },
        ref: { type: "string" },
      },
    });
  });

  it("keeps a tool whose $ref names a draft-07 tuple item, declaring the ref by its prefixItems spelling", () => {
    const { tools, skipped } = acceptTools("zodref", [
      {
        name: "pairs",
        inputSchema: {
          $schema: "http://json-schema.org/draft-07/schema#",
          type: "object",
          properties: {
            pair: {
              type: "array",
              items: [{ type: "object" }, { type: "string" }],
              additionalItems: { type: "number" },
            },
            again: { $ref: "#/properties/pair/items/0" },
            rest: { $ref: "#/properties/pair/additionalItems" },
          },
        },
      },
    ] as never);
    expect(skipped).toEqual([]);
    expect(tools[0]?.input_schema).toMatchObject({
      properties: {
        again: { $ref: "#/properties/pair/prefixItems/0" },
        rest: { $ref: "#/properties/pair/items" },
      },
    });
  });

  it("defers by default; defer:false and _meta anthropic/alwaysLoad opt out; the server name is a search hint", () => {
    const { tools } = acceptTools("docs", [
      { name: "a", inputSchema: schema },
      { name: "b", inputSchema: schema, _meta: { "anthropic/alwaysLoad": true } },
    ] as never);
    const deferred = tools.map((t) => registeredTool({ name: "docs", url: "https://x" }, t));
    expect(deferred.map((t) => [t.name, t.deferred, t.search_hint])).toEqual([
      ["mcp__docs__a", true, "docs"],
      ["mcp__docs__b", false, "docs"],
    ]);
    const upfront = tools.map((t) => registeredTool({ name: "docs", url: "https://x", defer: false }, t));
    expect(upfront.every((t) => !t.deferred)).toBe(true);
    const agent = {
      tools: [],
      disclosure: { tool_search: true, tool_info: true, select_tools: "auto" as const },
    } as never;
    const reg = new ToolRegistry(agent, deferred);
    expect(reg.deferred().map((t) => t.name)).toEqual(["mcp__docs__a"]);
    expect(reg.builtins.map((t) => t.name)).toContain("tool_search");
  });
});

describe("MCP call results", () => {
  it("says an error whose text blocks are all blank came without a message", () => {
    expect(resultContent({ content: [{ type: "text", text: "" }], isError: true })).toEqual({
      content: "the MCP tool reported an error without a message",
      is_error: true,
    });
  });

  it("carries text, and structured content as JSON (alone when the text only repeats it)", () => {
    expect(resultContent({ content: [{ type: "text", text: "hi" }] })).toEqual({ content: "hi", is_error: false });
    expect(resultContent({ content: [{ type: "text", text: '{ "n": 1 }' }], structuredContent: { n: 1 } })).toEqual({
      content: '{"n":1}',
      is_error: false,
    });
    expect(resultContent({ content: [{ type: "text", text: "One." }], structuredContent: { n: 1 } }).content).toEqual([
      { type: "text", text: "One." },
      { type: "text", text: '{"n":1}' },
    ]);
    expect(resultContent({ content: [], isError: true })).toEqual({
      content: "the MCP tool reported an error without a message",
      is_error: true,
    });
    const media = resultContent({
      content: [
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "resource_link", uri: "file:///a.txt", name: "a" },
        { type: "resource", resource: { uri: "file:///b.txt", text: "inline" } },
      ],
    });
    expect(media.content).toEqual([
      { type: "text", text: "[image: image/png, 3 bytes, not shown]" },
      { type: "text", text: "[resource: file:///a.txt (a)]" },
      { type: "text", text: "inline" },
    ]);
  });

  it("caps large outputs with a marker that notes the full size, and says it cut them", () => {
    const text = "é".repeat(MAX_MCP_OUTPUT_CHARS + 10);
    const { content: out, cut } = capOutput(text);
    expect(cut).toBe(true);
    expect(typeof out).toBe("string");
    expect(String(out).startsWith("é".repeat(MAX_MCP_OUTPUT_CHARS))).toBe(true);
    expect(String(out)).toContain(
      `[truncated: the MCP tool returned ${MAX_MCP_OUTPUT_CHARS + 10} characters (${2 * (MAX_MCP_OUTPUT_CHARS + 10)} bytes); the first ${MAX_MCP_OUTPUT_CHARS} are kept]`,
    );
    expect(capOutput("small")).toEqual({ content: "small", cut: false });
  });

  it("cuts a large output before a surrogate pair rather than inside it", () => {
    const out = String(capOutput(`${"a".repeat(MAX_MCP_OUTPUT_CHARS - 1)}😀${"b".repeat(10)}`).content);
    expect(out.startsWith(`${"a".repeat(MAX_MCP_OUTPUT_CHARS - 1)}\n[truncated:`)).toBe(true);
    expect(out).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it("tells timeouts, refusals and unreachable servers apart", () => {
    const ctx = { name: "mcp__s__t", server: "s", loaded: true, timeoutMs: 100, ms: 100 };
    expect(failureKind(new Error("x"), true)).toBe("timeout");
    expect(failureKind(new McpError(-32001, "Request timed out"), false)).toBe("timeout");
    expect(failureKind(new McpError(-32602, "Unknown tool"), false)).toBe("refused");
    expect(failureKind(new TypeError("fetch failed"), false)).toBe("unreachable");
    expect(failureOutcome("timeout", null, ctx).content).toBe(
      'MCP tool "mcp__s__t" timed out after 100 ms (server "s").',
    );
    expect(failureOutcome("unreachable", new Error("ECONNREFUSED"), ctx).content).toMatch(
      /^Tool "mcp__s__t" is loaded but its server "s" is disconnected \(ECONNREFUSED\)/,
    );
    expect(failureOutcome("unreachable", new Error("x"), { ...ctx, loaded: false }).content).toMatch(
      /its MCP server "s" is unreachable/,
    );
  });

  it("tells a call refused for its credentials (HTTP 401) to check them rather than try later", () => {
    const e = new StreamableHTTPError(401, "Error POSTing to endpoint: unauthorized");
    const ctx = { name: "mcp__s__t", server: "s", loaded: true, timeoutMs: 100, ms: 5 };
    expect(failureKind(e, false)).toBe("http_status");
    expect(failureOutcome("http_status", e, ctx).content).toBe(
      'MCP server "s" answered HTTP 401 to the call to "mcp__s__t" (Streamable HTTP error: Error POSTing to endpoint: unauthorized); it refused the credentials it was sent.',
    );
  });
});
