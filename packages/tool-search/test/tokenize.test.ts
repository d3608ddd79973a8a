// Tokenising identifiers and prose, stopwords, and the Porter stemmer.

import { describe, expect, it } from "vitest";
import { analyze, porterStem, tokenize } from "../src/index.ts";

describe("tokenize", () => {
  it("splits snake_case, kebab-case and double underscores", () => {
    expect(tokenize("create_issue")).toEqual(["create", "issue"]);
    expect(tokenize("list-pull-requests")).toEqual(["list", "pull", "requests"]);
    expect(tokenize("mcp__github__create_issue")).toEqual(["mcp", "github", "create", "issue"]);
    expect(tokenize("__leading__and__trailing__")).toEqual(["leading", "and", "trailing"]);
  });

  it("splits camelCase, PascalCase and acronyms", () => {
    expect(tokenize("getWeatherForecast")).toEqual(["get", "weather", "forecast"]);
    expect(tokenize("ResearchFinder")).toEqual(["research", "finder"]);
    expect(tokenize("getHTTPResponse")).toEqual(["get", "http", "response"]);
    expect(tokenize("XMLHttpRequest")).toEqual(["xml", "http", "request"]);
    expect(tokenize("PDF_URLTool")).toEqual(["pdf", "url", "tool"]);
  });

  it("separates digits from letters and keeps numbers", () => {
    expect(tokenize("Hotels_4_SearchHotel")).toEqual(["hotels", "4", "search", "hotel"]);
    expect(tokenize("AutoInfra1")).toEqual(["auto", "infra", "1"]);
    expect(tokenize("ipv4 lookup")).toEqual(["ipv", "4", "lookup"]);
    expect(tokenize("s3.putObject v2")).toEqual(["s", "3", "put", "object", "v", "2"]);
    expect(tokenize("top 10 in 2024")).toEqual(["top", "10", "in", "2024"]);
  });

  it("lowercases prose, drops punctuation and in-word apostrophes", () => {
    expect(tokenize("What's the Weather, in Paris?!")).toEqual(["whats", "the", "weather", "in", "paris"]);
    expect(tokenize("user’s repos")).toEqual(["users", "repos"]);
    expect(tokenize("")).toEqual([]);
    expect(tokenize("  --__--  ")).toEqual([]);
  });

  it("handles non-ASCII letters and CJK", () => {
    expect(tokenize("Café Straße")).toEqual(["café", "straße"]);
    expect(tokenize("查询天气 API")).toEqual(["查", "询", "天", "气", "api"]);
  });

  it("analyze drops stopwords and stems", () => {
    expect(analyze("Can you find the latest forecasts for me?")).toEqual(["find", "latest", "forecast"]);
    expect(analyze("creating issues")).toEqual(["creat", "issu"]);
  });
});

describe("porterStem", () => {
  it("matches the reference Porter stemmer on classic examples", () => {
    const cases: Record<string, string> = {
      caresses: "caress",
      ponies: "poni",
      cats: "cat",
      agreed: "agre",
      plastered: "plaster",
      motoring: "motor",
      hopping: "hop",
      filing: "file",
      happy: "happi",
      relational: "relat",
      generalization: "gener",
      hopeful: "hope",
      goodness: "good",
      adjustment: "adjust",
      effective: "effect",
      controll: "control",
      roll: "roll",
    };
    for (const [w, s] of Object.entries(cases)) expect(porterStem(w), w).toBe(s);
  });

  it("leaves short words and words with digits alone", () => {
    expect(porterStem("is")).toBe("is");
    expect(porterStem("mp3s")).toBe("mp3s");
  });
});
