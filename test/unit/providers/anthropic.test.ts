// anthropicBetas (src/providers/anthropic.ts): when a request asks for the tool-search beta.
import { describe, expect, it } from "vitest";
import { anthropic, anthropicBetas, TOOL_SEARCH_BETA } from "../../../src/providers/anthropic";
import { msg, request } from "./helpers";

const LOADED = { name: "lookup", description: "Look up", input_schema: { type: "object" } };

/** A history where tool_search loaded `lookup` (a tool_reference), as a compaction may keep it. */
function referenced() {
  return [
    msg("user", [{ type: "text", text: "find the lookup tool" }]),
    msg("assistant", [{ type: "tool_use", id: "toolu_s", name: "tool_search", input: { query: "lookup" } }]),
    msg("user", [
      {
        type: "tool_result",
        tool_use_id: "toolu_s",
        content: [{ type: "tool_reference", tool_name: "lookup" }],
        is_error: false,
      },
    ]),
  ];
}

describe("anthropicBetas: tool search", () => {
  it("asks for the tool-search beta for a kept tool_reference when no tool is deferred any more", () => {
    const req = request("anthropic", { messages: referenced(), tools: [LOADED] });
    const body = anthropic.buildBody(req);
    expect(JSON.stringify(body.messages)).toContain('"type":"tool_reference"');
    expect(anthropicBetas(req, body)).toEqual([TOOL_SEARCH_BETA]);
  });

  it("asks for none with neither deferred tools nor a tool_reference", () => {
    const req = request("anthropic", { tools: [LOADED] });
    expect(anthropicBetas(req, anthropic.buildBody(req))).toEqual([]);
  });
});
