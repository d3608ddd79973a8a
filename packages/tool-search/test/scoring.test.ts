// Ranking by `ToolIndex.search` (fields, name boosts, typos, compounds, +required, exclude) and its incremental updates.

import { describe, expect, it } from "vitest";
import { type SearchDoc, ToolIndex } from "../src/index.ts";

const names = (hits: Array<{ name: string }>) => hits.map((h) => h.name);

const CATALOG: SearchDoc[] = [
  {
    name: "mcp__github__create_issue",
    description: "Create a new issue in a GitHub repository.",
    input_schema: {
      type: "object",
      properties: { title: { type: "string", description: "Issue title" }, body: { type: "string" } },
    },
  },
  { name: "mcp__github__list_issues", description: "List issues of a GitHub repository, filtered by state." },
  { name: "mcp__github__create_pull_request", description: "Open a pull request from a branch." },
  { name: "mcp__slack__send_message", description: "Send a message to a Slack channel." },
  { name: "mcp__slack__list_channels", description: "List the channels of a Slack workspace." },
  { name: "mcp__jira__create_issue", description: "Create a Jira ticket in a project." },
  { name: "get_weather_forecast", description: "Weather forecast for a city for the next days." },
  { name: "airqualityforeast", description: "Planning something outdoors? Get the 2-day air quality forecast." },
  { name: "translate", description: "Translate text between languages.", search_hint: "language localisation i18n" },
  { name: "AbleStyle", description: "Fashion advice and outfit ideas." },
];

describe("ToolIndex keyword search", () => {
  const index = new ToolIndex(CATALOG);

  it("knows its size and names", () => {
    expect(index.size).toBe(CATALOG.length);
    expect([...index.names()]).toEqual(CATALOG.map((d) => d.name));
  });

  it("ranks by relevance across name, description, hint and parameters", () => {
    expect(names(index.search("send a slack message"))[0]).toBe("mcp__slack__send_message");
    expect(names(index.search("open pull request"))[0]).toBe("mcp__github__create_pull_request");
    expect(names(index.search("i18n"))).toEqual(["translate"]); // search_hint only
    expect(names(index.search("issue title"))[0]).toBe("mcp__github__create_issue"); // parameter text breaks the tie
  });

  it("stems: plural and inflected forms meet", () => {
    expect(names(index.search("forecasts"))).toContain("get_weather_forecast");
    expect(names(index.search("translating"))).toEqual(["translate"]);
  });

  it("puts an exact name first, whatever its casing or separators", () => {
    expect(names(index.search("mcp__jira__create_issue"))[0]).toBe("mcp__jira__create_issue");
    expect(names(index.search("MCP-JIRA-CREATE-ISSUE"))[0]).toBe("mcp__jira__create_issue");
    expect(names(index.search("mcpJiraCreateIssue"))[0]).toBe("mcp__jira__create_issue");
  });

  it("boosts name parts over the same word in a description", () => {
    // "channels" is a name part of list_channels and only description text of send_message.
    expect(names(index.search("channels"))[0]).toBe("mcp__slack__list_channels");
    // A name mentioned inside a sentence.
    expect(names(index.search("hey able style, what should I wear?"))[0]).toBe("AbleStyle");
  });

  it("splits run-together names with the catalog's vocabulary, fixing a typo in a piece", () => {
    expect(index.splitCompound("airqualityforeast")).toEqual(["air", "quality", "forecast"]);
    expect(names(index.search("air quality"))[0]).toBe("airqualityforeast");
  });

  it("tolerates a typo and a missing space in the query", () => {
    expect(names(index.search("wether forecast"))[0]).toBe("get_weather_forecast");
    expect(names(index.search("slackchannels"))[0]).toBe("mcp__slack__list_channels");
  });

  it("+term makes a term required", () => {
    expect(names(index.search("create issue", { limit: 10 }))).toEqual(
      expect.arrayContaining(["mcp__github__create_issue", "mcp__jira__create_issue"]),
    );
    expect(names(index.search("+jira create issue", { limit: 10 }))).toEqual(["mcp__jira__create_issue"]);
    expect(names(index.search("create +github", { limit: 10 })).every((n) => n.includes("github"))).toBe(true);
    expect(names(index.search("+nonexistent create issue"))).toEqual([]);
  });

  it("+term also matches inside a name", () => {
    expect(names(index.search("+git", { limit: 10 })).sort()).toEqual([
      "mcp__github__create_issue",
      "mcp__github__create_pull_request",
      "mcp__github__list_issues",
    ]);
  });

  it("leaves out the exclude set (the session's loaded tools)", () => {
    const all = names(index.search("github issue", { limit: 10 }));
    expect(all).toContain("mcp__github__create_issue");
    const rest = names(index.search("github issue", { limit: 10, exclude: new Set(["mcp__github__create_issue"]) }));
    expect(rest).not.toContain("mcp__github__create_issue");
    expect(rest).toEqual(all.filter((n) => n !== "mcp__github__create_issue"));
    // Even an exact-name query does not bring an excluded tool back.
    expect(
      names(index.search("mcp__jira__create_issue", { exclude: new Set(["mcp__jira__create_issue"]) })),
    ).not.toContain("mcp__jira__create_issue");
  });

  it("respects the limit and returns positive scores, best first", () => {
    const hits = index.search("create issue repository github slack", { limit: 3 });
    expect(hits).toHaveLength(3);
    for (const h of hits) expect(h.score).toBeGreaterThan(0);
    expect([...hits].sort((a, b) => b.score - a.score)).toEqual(hits);
    expect(index.search("github", { limit: 0 })).toEqual([]);
  });

  it("never lists a tool twice, even with a field switched off", () => {
    const noParams = new ToolIndex(CATALOG, { weights: [3, 2, 1, 0] });
    for (const q of ["issue title", "create issue github title body", "+git issue"]) {
      const hits = names(noParams.search(q, { limit: 20 }));
      expect(new Set(hits).size).toBe(hits.length);
    }
  });

  it("returns nothing for empty, stopword-only or unknown queries", () => {
    expect(index.search("")).toEqual([]);
    expect(index.search("   ")).toEqual([]);
    expect(index.search("zzzqqq")).toEqual([]);
    expect(names(index.search("the"))).toEqual([]);
  });

  it("keeps catalog order between equal scores, and is deterministic", () => {
    const twins = new ToolIndex([
      { name: "b_tool", description: "Export data." },
      { name: "a_tool", description: "Export data." },
      { name: "c_tool", description: "Export data." },
    ]);
    const hits = twins.search("export");
    expect(names(hits)).toEqual(["b_tool", "a_tool", "c_tool"]);
    expect(new Set(hits.map((h) => h.score)).size).toBe(1);
    const again = new ToolIndex(CATALOG);
    for (const q of ["github issue", "slack", "weather forecast city", "create"]) {
      expect(again.search(q, { limit: 10 })).toEqual(index.search(q, { limit: 10 }));
    }
  });
});

describe("ToolIndex updates", () => {
  it("adds, replaces and removes tools incrementally with the same results as a fresh build", () => {
    const index = new ToolIndex(CATALOG.slice(0, 5));
    index.add(CATALOG.slice(5));
    const fresh = new ToolIndex(CATALOG);
    for (const q of ["github issue", "send message", "weather", "create issue jira"]) {
      expect(names(index.search(q, { limit: 10 }))).toEqual(names(fresh.search(q, { limit: 10 })));
    }
    index.remove(["mcp__jira__create_issue", "not_there"]);
    expect(index.size).toBe(CATALOG.length - 1);
    expect(index.has("mcp__jira__create_issue")).toBe(false);
    expect(names(index.search("jira ticket"))).toEqual([]);
    index.add([{ name: "mcp__slack__send_message", description: "Post a note to a chat room." }]);
    expect(index.size).toBe(CATALOG.length - 1);
    expect(names(index.search("post note chat room"))[0]).toBe("mcp__slack__send_message");
    expect(names(index.search("slack channel message", { limit: 10 }))).toContain("mcp__slack__send_message"); // by name
  });

  it("keeps working after many removals (ids compacted)", () => {
    const index = new ToolIndex();
    for (let round = 0; round < 5; round++) {
      index.add(
        Array.from({ length: 100 }, (_, i) => ({ name: `tool_${round}_${i}`, description: `does thing ${i}` })),
      );
      if (round > 0) index.remove(Array.from({ length: 100 }, (_, i) => `tool_${round - 1}_${i}`));
    }
    expect(index.size).toBe(100);
    expect(names(index.search("tool 4 7"))[0]).toBe("tool_4_7");
    expect(names(index.search("+thing", { limit: 20 }))).toHaveLength(20);
  });

  it("a name given twice in one batch keeps the last description", () => {
    const index = new ToolIndex([
      { name: "x", description: "first version" },
      { name: "x", description: "second version" },
    ]);
    expect(index.size).toBe(1);
    expect(names(index.search("second"))).toEqual(["x"]);
    expect(names(index.search("first"))).toEqual([]);
  });
});
