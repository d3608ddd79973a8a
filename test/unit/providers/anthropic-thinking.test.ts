// The thinking of an Anthropic request body (src/providers/anthropic-thinking.ts): a budget or adaptive thinking, by the
// agent's capabilities.thinking and the model's name, and a budget left out where the tool loop opens without thinking.
import { describe, expect, it } from "vitest";
import type { Part } from "../../../src/model/message";
import { anthropic } from "../../../src/providers/anthropic";
import { adaptiveByDefault } from "../../../src/providers/anthropic-thinking";
import type { ModelCapabilities, StepRequest } from "../../../src/providers/types";
import { capabilities, msg, request } from "./helpers";

const thinks = (text: string): Part => ({ type: "thinking", thinking: text, signature: `sig-${text}` });
const call = (id: string): Part => ({ type: "tool_use", id, name: "a", input: {} });
const answer = (id: string): Part => ({ type: "tool_result", tool_use_id: id, content: `r-${id}`, is_error: false });
const text = (t: string): Part => ({ type: "text", text: t });

/** A request of the model `name` with `thinking`, over `messages` (default: one user text). */
function thinkingRequest(
  name: string,
  thinking: ModelCapabilities["thinking"],
  over: Partial<StepRequest> & { effort?: StepRequest["model"]["effort"] } = {},
): StepRequest {
  const { effort, ...rest } = over;
  const req = request("anthropic", {
    tools: [{ name: "a", description: "tool a", input_schema: { type: "object" } }],
    ...rest,
  });
  req.model = { ...req.model, name, capabilities: capabilities({ thinking }), ...(effort ? { effort } : {}) };
  return req;
}

describe("anthropic buildBody: thinking mode", () => {
  it("sends a budget for true on a model before Opus 4.7", () => {
    const body = anthropic.buildBody(thinkingRequest("claude-sonnet-4-5-20250929", true));
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
    expect(body).not.toHaveProperty("output_config");
  });

  it("sends adaptive thinking with summarised text for true on Claude Opus 4.7", () => {
    const body = anthropic.buildBody(thinkingRequest("claude-opus-4-7", true));
    expect(body.thinking).toEqual({ type: "adaptive", display: "summarized" });
    expect(body).not.toHaveProperty("output_config");
  });

  it('sends adaptive thinking with the agent\'s effort for "adaptive" on any model', () => {
    const body = anthropic.buildBody(thinkingRequest("claude-sonnet-4-6", "adaptive", { effort: "low" }));
    expect(body.thinking).toEqual({ type: "adaptive", display: "summarized" });
    expect(body.output_config).toEqual({ effort: "low" });
  });

  it('sends a budget for "enabled" on a model that also takes adaptive thinking', () => {
    const body = anthropic.buildBody(thinkingRequest("claude-opus-4-6", "enabled"));
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
  });

  it("sends adaptive thinking whatever max_tokens, which holds no budget", () => {
    const req = thinkingRequest("claude-opus-4-7", true);
    req.model = { ...req.model, max_tokens: 1000 };
    expect(anthropic.buildBody(req).thinking).toEqual({ type: "adaptive", display: "summarized" });
  });

  it("sends no thinking for false", () => {
    expect(anthropic.buildBody(thinkingRequest("claude-opus-4-7", false))).not.toHaveProperty("thinking");
  });
});

describe("adaptiveByDefault", () => {
  it("names Opus 4.7 and later, Mythos, Fable and the 5 families, with a platform's prefix or suffix", () => {
    const adaptive = [
      "claude-opus-4-7",
      "claude-opus-4-8",
      "claude-opus-4-7-20260416",
      "anthropic.claude-opus-4-7",
      "claude-opus-4-7@20260416",
      "claude-opus-5",
      "claude-sonnet-5",
      "claude-haiku-5-5",
      "claude-mythos-preview",
      "claude-fable-5",
    ];
    expect(adaptive.filter((name) => !adaptiveByDefault(name))).toEqual([]);
  });

  it("leaves out Opus 4.6, the 4.5 models, dated Claude 4 names and other models", () => {
    const budget = [
      "claude-opus-4-6",
      "claude-sonnet-4-6",
      "claude-sonnet-4-5-20250929",
      "claude-haiku-4-5",
      "claude-opus-4-1-20250805",
      "claude-opus-4-20250514",
      "claude-3-7-sonnet-20250219",
      "mock-anthropic-1",
    ];
    expect(budget.filter((name) => adaptiveByDefault(name))).toEqual([]);
  });
});

describe("anthropic buildBody: a budget and the tool loop it goes on with", () => {
  const body = (messages: StepRequest["messages"], thinking: ModelCapabilities["thinking"] = true) =>
    anthropic.buildBody(thinkingRequest("claude-sonnet-4-5", thinking, { messages }));

  it("keeps the budget while the loop's first step opens with thinking, later steps without any", () => {
    const messages = [
      msg("user", [text("go")]),
      msg("assistant", [thinks("plan"), call("c1")]),
      msg("user", [answer("c1")]),
      msg("assistant", [call("c2")]),
      msg("user", [answer("c2")]),
    ];
    expect(body(messages).thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
  });

  it("keeps the budget when the loop opens with redacted thinking", () => {
    const redacted: Part = { type: "thinking", thinking: "", redacted: "opaque" };
    const messages = [msg("user", [text("go")]), msg("assistant", [redacted, call("c1")]), msg("user", [answer("c1")])];
    expect(body(messages).thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
  });

  it("leaves the budget out when the loop after the last user text opens without thinking (its first step summarised)", () => {
    const messages = [
      msg("user", [text("<conversation_summary>earlier steps</conversation_summary>"), text("go")]),
      msg("assistant", [call("c5")]),
      msg("user", [answer("c5")]),
      msg("assistant", [call("c6")]),
      msg("user", [answer("c6")]),
    ];
    const sent = body(messages);
    expect(sent).not.toHaveProperty("thinking");
    expect(sent.messages).toHaveLength(5);
  });

  it("leaves the budget out when the loop's thinking is unsigned (written by another provider)", () => {
    const unsigned: Part = { type: "thinking", thinking: "from elsewhere" };
    const messages = [msg("user", [text("go")]), msg("assistant", [unsigned, call("c1")]), msg("user", [answer("c1")])];
    expect(body(messages)).not.toHaveProperty("thinking");
  });

  it("keeps the budget for a new request after a loop without thinking, results and text in one message", () => {
    const messages = [
      msg("user", [text("go")]),
      msg("assistant", [call("c1")]),
      msg("user", [answer("c1"), text("and now this")]),
    ];
    expect(body(messages).thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
  });

  it("reads the loop from the latest compaction block on, as the API does, which drops what comes before it", () => {
    const compaction = (thinkingAfter: boolean): Part[] => [
      { type: "compaction", provider: "anthropic", content: "summary", encrypted: "opaque" },
      ...(thinkingAfter ? [thinks("after")] : []),
      call("c2"),
    ];
    const messages = (thinkingAfter: boolean) => [
      msg("user", [text("go")]),
      msg("assistant", [thinks("plan"), call("c1")]),
      msg("user", [answer("c1")]),
      msg("assistant", compaction(thinkingAfter)),
      msg("user", [answer("c2")]),
    ];
    const native = (m: StepRequest["messages"]) => {
      const req = thinkingRequest("claude-sonnet-4-5", true, { messages: m });
      req.model.capabilities = capabilities({ thinking: true, native_compaction: true });
      return anthropic.buildBody(req);
    };
    expect(native(messages(false))).not.toHaveProperty("thinking");
    expect(native(messages(true)).thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
  });

  it("keeps adaptive thinking on a loop that opens without thinking (the model may skip it at any step)", () => {
    const messages = [msg("user", [text("go")]), msg("assistant", [call("c1")]), msg("user", [answer("c1")])];
    expect(body(messages, "adaptive").thinking).toEqual({ type: "adaptive", display: "summarized" });
  });
});
