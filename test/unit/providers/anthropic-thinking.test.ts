// The thinking of an Anthropic request body (src/providers/anthropic-thinking.ts): a budget, left out where the tool
// loop a request goes on with opens without thinking.
import { describe, expect, it } from "vitest";
import type { Part } from "../../../src/model/message";
import { anthropic } from "../../../src/providers/anthropic";
import type { StepRequest } from "../../../src/providers/types";
import { capabilities, msg, request } from "./helpers";

const thinks = (text: string): Part => ({ type: "thinking", thinking: text, signature: `sig-${text}` });
const call = (id: string): Part => ({ type: "tool_use", id, name: "a", input: {} });
const answer = (id: string): Part => ({ type: "tool_result", tool_use_id: id, content: `r-${id}`, is_error: false });
const text = (t: string): Part => ({ type: "text", text: t });

/** A request of the model `name` with a thinking budget, over `messages`. */
function thinkingRequest(name: string, messages: StepRequest["messages"]): StepRequest {
  const req = request("anthropic", {
    tools: [{ name: "a", description: "tool a", input_schema: { type: "object" } }],
    messages,
  });
  req.model = { ...req.model, name, capabilities: capabilities({ thinking: true }) };
  return req;
}

describe("anthropic buildBody: a budget and the tool loop it goes on with", () => {
  const body = (messages: StepRequest["messages"]) =>
    anthropic.buildBody(thinkingRequest("claude-sonnet-4-5", messages));

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
      const req = thinkingRequest("claude-sonnet-4-5", m);
      req.model.capabilities = capabilities({ thinking: true, native_compaction: true });
      return anthropic.buildBody(req);
    };
    expect(native(messages(false))).not.toHaveProperty("thinking");
    expect(native(messages(true)).thinking).toEqual({ type: "enabled", budget_tokens: 4096 });
  });
});
