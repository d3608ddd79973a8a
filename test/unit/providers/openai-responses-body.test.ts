// The Responses API request body (src/providers/openai-responses.ts): input items for calls and results,
// max_output_tokens, and compaction items sent back verbatim or rendered as text.
import { describe, expect, it } from "vitest";
import { checkInvariant } from "../../../src/providers/check-invariant";
import { openaiResponses } from "../../../src/providers/openai-responses";
import { capabilities, msg, request } from "./helpers";

const call = (id: string) => ({ type: "tool_use" as const, id, name: "lookup", input: { q: id } });
const output = (id: string, content: string) => ({
  type: "tool_result" as const,
  tool_use_id: id,
  content,
  is_error: false,
});

describe("openai-responses buildBody", () => {
  it("projects model, instructions, input, tools, max_output_tokens, stateless streaming", () => {
    const req = request("openai-responses", {
      system: "be brief",
      tools: [{ name: "lookup", description: "find", input_schema: { type: "object" } }],
    });
    req.model = { ...req.model, max_tokens: 512 };
    expect(openaiResponses.buildBody(req)).toEqual({
      model: "gpt-test",
      instructions: "be brief",
      input: [{ type: "message", role: "user", content: "hi" }],
      tools: [{ type: "function", name: "lookup", description: "find", parameters: { type: "object" }, strict: false }],
      store: false,
      stream: true,
      max_output_tokens: 512,
    });
  });

  it("raises a stored max_tokens below the Responses API's minimum of 16 to 16", () => {
    const req = request("openai-responses", {});
    req.model = { ...req.model, max_tokens: 8 };
    expect(openaiResponses.buildBody(req).max_output_tokens).toBe(16);
  });

  it("projects calls as function_call items and results as function_call_output items before the user's text", () => {
    const req = request("openai-responses", {
      messages: [
        msg("user", [{ type: "text", text: "look up a and b" }]),
        msg("assistant", [{ type: "text", text: "Looking." }, call("call_a"), call("call_b")]),
        msg("user", [output("call_a", "A"), output("call_b", "B")]),
        msg("user", [{ type: "text", text: "thanks" }]),
      ],
    });
    const body = openaiResponses.buildBody(req);
    expect(body.input).toEqual([
      { type: "message", role: "user", content: "look up a and b" },
      { type: "message", role: "assistant", content: "Looking." },
      { type: "function_call", call_id: "call_a", name: "lookup", arguments: '{"q":"call_a"}' },
      { type: "function_call", call_id: "call_b", name: "lookup", arguments: '{"q":"call_b"}' },
      { type: "function_call_output", call_id: "call_a", output: "A" },
      { type: "function_call_output", call_id: "call_b", output: "B" },
      { type: "message", role: "user", content: "thanks" },
    ]);
    expect(checkInvariant("openai-responses", body)).toEqual([]);
  });

  it("sends an OpenAI compaction item back verbatim, first in its message, and asks for compact_threshold", () => {
    const req = request("openai-responses", {
      model: {
        provider: "openai-responses",
        name: "gpt-test",
        capabilities: capabilities({ native_compaction: true }),
      },
      messages: [
        msg("user", [{ type: "text", text: "(note)" }]),
        msg("assistant", [
          { type: "compaction", provider: "openai", content: "", encrypted: "gAAAA-opaque" },
          { type: "text", text: "Sure." },
        ]),
        msg("user", [{ type: "text", text: "next" }]),
      ],
      compaction: { trigger: 9000 },
    });
    const body = openaiResponses.buildBody(req);
    expect(body.context_management).toEqual([{ type: "compaction", compact_threshold: 9000 }]);
    expect(body.input).toEqual([
      { type: "message", role: "user", content: "(note)" },
      { type: "compaction", encrypted_content: "gAAAA-opaque" },
      { type: "message", role: "assistant", content: "Sure." },
      { type: "message", role: "user", content: "next" },
    ]);
  });

  it("renders another provider's compaction as its summary text, and drops thinking and declarations", () => {
    const req = request("openai-responses", {
      messages: [
        msg("assistant", [
          { type: "compaction", provider: "anthropic", content: "they asked about Paris", encrypted: "x" },
          { type: "thinking", thinking: "hmm", signature: "sig" },
        ]),
        msg("user", [
          { type: "tool_declarations", tools: [{ name: "t", description: "", input_schema: {} }] },
          { type: "text", text: "go on" },
        ]),
      ],
    });
    const input = openaiResponses.buildBody(req).input as Array<{ content?: string }>;
    expect(input).toHaveLength(2);
    expect(input[0]?.content).toContain("<conversation_summary>");
    expect(input[0]?.content).toContain("they asked about Paris");
    expect(input[1]).toEqual({ type: "message", role: "user", content: "go on" });
  });
});
