// `select:` parsing and resolution, `runToolSearch`'s two modes, and `+word` query parsing.

import { describe, expect, it } from "vitest";
import { nameResolver, parseQuery, parseSelect, runToolSearch, selectTools, ToolIndex } from "../src/index.ts";

const catalog = ["mcp__github__create_issue", "mcp__github__list_issues", "Slack_Send", "weather"];

describe("parseSelect", () => {
  it("returns null for keyword queries", () => {
    expect(parseSelect("github issues")).toBeNull();
    expect(parseSelect("how to select: a tool")).toBeNull();
    expect(parseSelect("")).toBeNull();
  });

  it("splits names, trims whitespace and one layer of quotes", () => {
    expect(parseSelect("select:a,b")).toEqual(["a", "b"]);
    expect(parseSelect("  SELECT : a , b ,, ")).toEqual(["a", "b"]);
    expect(parseSelect(`select:"a", 'b' ,"c"`)).toEqual(["a", "b", "c"]);
    expect(parseSelect(`select:"a,b"`)).toEqual(["a", "b"]);
    expect(parseSelect(`select:""a""`)).toEqual(['"a"']);
    expect(parseSelect(`select:"a'`)).toEqual([`"a'`]);
    expect(parseSelect("select:")).toEqual([]);
  });
});

describe("selectTools", () => {
  it("matches exactly or case-insensitively, keeping canonical casing", () => {
    expect(selectTools(catalog, ["MCP__GITHUB__CREATE_ISSUE", "slack_send"], 5)).toEqual([
      "mcp__github__create_issue",
      "Slack_Send",
    ]);
  });

  it("drops unknown names and duplicates, keeps request order, caps at the limit", () => {
    expect(selectTools(catalog, ["nope", "weather", "WEATHER", "Slack_Send", "weather"], 5)).toEqual([
      "weather",
      "Slack_Send",
    ]);
    expect(selectTools(catalog, ["weather", "Slack_Send", "mcp__github__list_issues"], 2)).toEqual([
      "weather",
      "Slack_Send",
    ]);
    expect(selectTools(catalog, [], 5)).toEqual([]);
  });

  it("prefers an exact match over a case-folded one", () => {
    expect(selectTools(["Tool", "tool"], ["tool", "TOOL"], 5)).toEqual(["tool", "Tool"]);
  });

  it("accepts a ToolIndex as the catalog", () => {
    const index = new ToolIndex(catalog.map((name) => ({ name, description: "" })));
    expect(selectTools(index, ["Weather"], 5)).toEqual(["weather"]);
  });
});

describe("nameResolver", () => {
  it("resolves as selectTools does: exact, then in any case, trimmed; an unknown name to undefined", () => {
    const resolve = nameResolver(catalog);
    expect(resolve("weather")).toBe("weather");
    expect(resolve(" SLACK_SEND ")).toBe("Slack_Send");
    expect(resolve("nope")).toBeUndefined();
  });
});

describe("runToolSearch", () => {
  const index = new ToolIndex([
    { name: "mcp__github__create_issue", description: "Create a new issue in a GitHub repository." },
    { name: "mcp__github__list_issues", description: "List issues of a GitHub repository." },
    { name: "weather", description: "Current weather for a city." },
  ]);

  it("select: returns loaded tools too, in request order", () => {
    const loaded = new Set(["weather"]);
    expect(runToolSearch(index, { query: "select:weather,mcp__github__list_issues" }, loaded)).toEqual({
      mode: "select",
      names: ["weather", "mcp__github__list_issues"],
    });
  });

  it("keywords leave out loaded tools and default to 5 results", () => {
    const loaded = new Set(["mcp__github__create_issue"]);
    expect(runToolSearch(index, { query: "github issue" }, loaded)).toEqual({
      mode: "keyword",
      names: ["mcp__github__list_issues"],
    });
    expect(runToolSearch(index, { query: "select:weather,mcp__github__list_issues", max_results: 1 }).names).toEqual([
      "weather",
    ]);
  });
});

describe("parseQuery", () => {
  it("splits terms like names and collects +required ones", () => {
    expect(parseQuery("+slack send_message")).toEqual({ terms: ["slack", "send", "message"], required: ["slack"] });
    expect(parseQuery("+github +create_issue now")).toEqual({
      terms: ["github", "create", "issue", "now"],
      required: ["github", "create", "issue"],
    });
    expect(parseQuery("c++ a+b + ++x")).toEqual({ terms: ["c", "a", "b", "x"], required: ["x"] });
    expect(parseQuery("   ")).toEqual({ terms: [], required: [] });
  });
});
