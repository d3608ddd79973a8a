// The Chat Completions request body (src/providers/openai.ts): model, tools, the output limit per server, tool
// messages in order, and reasoning_content for thinking models.
import { describe, expect, it } from "vitest";
import { checkInvariant } from "../../../src/providers/check-invariant";
import { openai } from "../../../src/providers/openai";
import { capabilities, msg, request } from "./helpers";

const toolUse = (id: string, input: Record<string, string> = { q: id }) => ({
  type: "tool_use" as const,
  id,
  name: "lookup",
  input,
});
const result = (id: string, content: string) => ({
  type: "tool_result" as const,
  tool_use_id: id,
  content,
  is_error: false,
});

describe("openai buildBody", () => {
  it("projects model, system, tools, streaming options", () => {
    const req = request("openai", {
      system: "be brief",
      tools: [{ name: "lookup", description: "find", input_schema: { type: "object" } }],
    });
    req.model = { ...req.model, max_tokens: 512 };
    expect(openai.buildBody(req)).toEqual({
      model: "gpt-test",
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hi" },
      ],
      tools: [{ type: "function", function: { name: "lookup", description: "find", parameters: { type: "object" } } }],
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 512,
    });
  });

  it("omits an empty system prompt, tools and max_completion_tokens", () => {
    const body = openai.buildBody(request("openai"));
    expect(body.messages).toEqual([{ role: "user", content: "hi" }]);
    expect(body).not.toHaveProperty("tools");
    expect(body).not.toHaveProperty("max_completion_tokens");
  });

  it("sends the output limit as max_tokens to a server other than OpenAI's API (DeepSeek reads only max_tokens)", () => {
    const req = request("openai");
    req.model = { ...req.model, max_tokens: 512 };
    req.baseUrl = "https://api.deepseek.com";
    const body = openai.buildBody(req);
    expect(body.max_tokens).toBe(512);
    expect(body).not.toHaveProperty("max_completion_tokens");
  });

  it("sends the output limit as max_completion_tokens only to OpenAI's API (its reasoning models refuse max_tokens)", () => {
    for (const baseUrl of ["https://api.openai.com/v1", "https://acme.openai.azure.com/openai/v1"]) {
      const req = request("openai");
      req.model = { ...req.model, max_tokens: 512 };
      req.baseUrl = baseUrl;
      const body = openai.buildBody(req);
      expect(body.max_completion_tokens).toBe(512);
      expect(body).not.toHaveProperty("max_tokens");
    }
  });

  it("sends max_completion_tokens through the hosts that serve OpenAI's API: Cloudflare AI Gateway and Azure AI Foundry", () => {
    for (const baseUrl of [
      "https://gateway.ai.cloudflare.com/v1/acct-fb1/gw-fb1/openai",
      "https://acme-fb1.cognitiveservices.azure.com/openai/v1",
    ]) {
      const req = request("openai");
      req.model = { ...req.model, max_tokens: 512 };
      req.baseUrl = baseUrl;
      const body = openai.buildBody(req);
      expect(body.max_completion_tokens, baseUrl).toBe(512);
      expect(body, baseUrl).not.toHaveProperty("max_tokens");
    }
  });

  it("sends max_tokens through Cloudflare AI Gateway's routes to other providers (DeepSeek reads only max_tokens)", () => {
    const req = request("openai");
    req.model = { ...req.model, max_tokens: 512 };
    req.baseUrl = "https://gateway.ai.cloudflare.com/v1/acct-fb2/gw-fb2/deepseek";
    const body = openai.buildBody(req);
    expect(body.max_tokens).toBe(512);
    expect(body).not.toHaveProperty("max_completion_tokens");
  });

  it("sends the output limit under the agent's model.max_tokens_field whatever the base URL", () => {
    const named = (baseUrl: string, field: "max_tokens" | "max_completion_tokens") => {
      const req = request("openai");
      req.model = { ...req.model, max_tokens: 512, max_tokens_field: field };
      req.baseUrl = baseUrl;
      return Object.keys(openai.buildBody(req)).filter((k) => k.startsWith("max_"));
    };
    expect(named("https://llm-proxy.example.com/v1", "max_completion_tokens")).toEqual(["max_completion_tokens"]);
    expect(named("https://api.openai.com/v1", "max_tokens")).toEqual(["max_tokens"]);
  });

  it("answers tool calls with tool messages in order, before the user's text", () => {
    const req = request("openai", {
      messages: [
        msg("user", [{ type: "text", text: "compare" }]),
        msg("assistant", [{ type: "text", text: "looking" }, toolUse("call_1"), toolUse("call_2", { q: 'ü"' })]),
        msg("user", [
          result("call_1", "one"),
          {
            type: "tool_result",
            tool_use_id: "call_2",
            content: [
              { type: "text", text: "a" },
              { type: "text", text: "b" },
            ],
            is_error: true,
          },
        ]),
        msg("user", [
          { type: "notice", text: "tool set changed" },
          { type: "text", text: "and now?" },
        ]),
        msg("assistant", [toolUse("call_3")]),
        msg("user", [result("call_3", "three")]),
      ],
    });
    const body = openai.buildBody(req);
    expect(body.messages).toEqual([
      { role: "user", content: "compare" },
      {
        role: "assistant",
        content: "looking",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "lookup", arguments: '{"q":"call_1"}' } },
          { id: "call_2", type: "function", function: { name: "lookup", arguments: '{"q":"ü\\""}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "one" },
      { role: "tool", tool_call_id: "call_2", content: "a\nb" },
      { role: "user", content: "tool set changed\n\nand now?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_3", type: "function", function: { name: "lookup", arguments: '{"q":"call_3"}' } }],
      },
      { role: "tool", tool_call_id: "call_3", content: "three" },
    ]);
    expect(checkInvariant("openai", body)).toEqual([]);
  });

  it("sends reasoning_content back only for thinking models", () => {
    const messages = [
      msg("user", [{ type: "text", text: "q" }]),
      msg("assistant", [
        { type: "thinking" as const, thinking: "hmm", signature: "anthropic-sig" },
        { type: "text" as const, text: "a" },
      ]),
    ];
    const plain = openai.buildBody(request("openai", { messages })).messages as Array<Record<string, unknown>>;
    expect(plain[1]).toEqual({ role: "assistant", content: "a" });
    const req = request("openai", { messages });
    req.model = { ...req.model, capabilities: capabilities({ thinking: true }) };
    const thinking = openai.buildBody(req).messages as Array<Record<string, unknown>>;
    expect(thinking[1]).toEqual({ role: "assistant", content: "a", reasoning_content: "hmm" });
  });

  it("gives a thinking model's tool-call messages without reasoning an empty reasoning_content (Kimi refuses them otherwise)", () => {
    const req = request("openai", {
      messages: [
        msg("user", [{ type: "text", text: "q" }]),
        msg("assistant", [{ type: "thinking", thinking: "", redacted: "opaque-rk1" }, toolUse("call_rk1")]),
        msg("user", [result("call_rk1", "one")]),
        msg("assistant", [{ type: "thinking", thinking: "look again" }, toolUse("call_rk2")]),
        msg("user", [result("call_rk2", "two")]),
        msg("assistant", [{ type: "text", text: "done" }]),
      ],
    });
    req.model = { ...req.model, name: "kimi-rk", capabilities: capabilities({ thinking: true }) };
    const assistants = (openai.buildBody(req).messages as Array<Record<string, unknown>>).filter(
      (m) => m.role === "assistant",
    );
    expect(assistants.map((m) => m.reasoning_content)).toEqual(["", "look again", undefined]);
  });

  it("drops assistant messages with neither text nor calls", () => {
    const req = request("openai", {
      messages: [
        msg("user", [{ type: "text", text: "q" }]),
        msg("assistant", [{ type: "thinking", thinking: "only thoughts" }]),
        msg("user", [{ type: "text", text: "again" }]),
      ],
    });
    expect(openai.buildBody(req).messages).toEqual([
      { role: "user", content: "q" },
      { role: "user", content: "again" },
    ]);
  });
});
