// checkInvariant (src/providers/check-invariant.ts): the tool-call pairing check on outgoing bodies of all three
// protocols, and how its violations read.
import { describe, expect, it } from "vitest";
import { checkInvariant, checkWireInvariant, type InvariantRule } from "../../../src/providers/check-invariant";

const use = (id: string, input: unknown = {}) => ({ type: "tool_use", id, name: "t", input });
const res = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "ok" });
const text = (t: string) => ({ type: "text", text: t });

function anthropicBody(...messages: Array<[string, unknown[]]>) {
  return { messages: messages.map(([role, content]) => ({ role, content })) };
}

const rules = (body: Record<string, unknown>, protocol: "anthropic" | "openai" | "openai-responses" = "anthropic") =>
  checkInvariant(protocol, body).map((v) => v.rule);

describe("checkInvariant on Anthropic bodies", () => {
  it("accepts a well-paired body, including a server tool that is not answered", () => {
    const body = anthropicBody(
      ["user", [text("q")]],
      [
        "assistant",
        [{ type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} }, use("toolu_1"), use("toolu_2")],
      ],
      ["user", [res("toolu_1"), res("toolu_2"), text("more")]],
      ["assistant", [text("done")]],
    );
    expect(checkInvariant("anthropic", body)).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, InvariantRule[]]>([
    [
      "a tool_use with no result",
      anthropicBody(["user", [text("q")]], ["assistant", [use("toolu_1"), use("toolu_2")]], ["user", [res("toolu_1")]]),
      ["unanswered_tool_use"],
    ],
    [
      "a tool_use as the last message",
      anthropicBody(["user", [text("q")]], ["assistant", [use("toolu_1")]]),
      ["unanswered_tool_use"],
    ],
    [
      "a result one message too late",
      anthropicBody(
        ["user", [text("q")]],
        ["assistant", [use("toolu_1")]],
        ["user", [text("hm")]],
        ["assistant", [text("?")]],
        ["user", [res("toolu_1")]],
      ),
      ["unanswered_tool_use", "orphan_tool_result"],
    ],
    [
      "a tool_use answered twice",
      anthropicBody(["user", [text("q")]], ["assistant", [use("toolu_1")]], ["user", [res("toolu_1"), res("toolu_1")]]),
      ["duplicate_tool_result"],
    ],
    [
      "text before a result",
      anthropicBody(["user", [text("q")]], ["assistant", [use("toolu_1")]], ["user", [text("x"), res("toolu_1")]]),
      ["tool_result_not_first"],
    ],
    [
      "results out of order",
      anthropicBody(
        ["user", [text("q")]],
        ["assistant", [use("toolu_1"), use("toolu_2")]],
        ["user", [res("toolu_2"), res("toolu_1")]],
      ),
      ["tool_result_out_of_order"],
    ],
    ["an orphan result", anthropicBody(["user", [res("toolu_9"), text("q")]]), ["orphan_tool_result"]],
    [
      "a duplicated tool_use id",
      anthropicBody(
        ["user", [text("q")]],
        ["assistant", [use("toolu_1")]],
        ["user", [res("toolu_1")]],
        ["assistant", [use("toolu_1")]],
        ["user", [res("toolu_1")]],
      ),
      ["duplicate_tool_use_id"],
    ],
    [
      "a tool_use whose input is not an object",
      anthropicBody(["user", [text("q")]], ["assistant", [use("toolu_1", '{"a":')]], ["user", [res("toolu_1")]]),
      ["invalid_tool_input"],
    ],
    [
      "a result for a server tool",
      anthropicBody(
        ["user", [text("q")]],
        ["assistant", [{ type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} }]],
        ["user", [res("srvtoolu_1")]],
      ),
      ["server_tool_answered"],
    ],
  ])("catches %s", (_, body, expected) => {
    expect(rules(body)).toEqual(expected);
  });

  it("formats violations as readable lines", () => {
    const lines = checkWireInvariant("anthropic", anthropicBody(["user", [res("toolu_9")]]));
    expect(lines).toEqual([
      "orphan_tool_result at messages[0]: tool_result toolu_9 has no tool_use in the message just before",
    ]);
  });
});

const call = (id: string, args = "{}") => ({ id, type: "function", function: { name: "t", arguments: args } });
const assistant = (...ids: Array<ReturnType<typeof call>>) => ({ role: "assistant", content: null, tool_calls: ids });
const tool = (id: string) => ({ role: "tool", tool_call_id: id, content: "ok" });
const user = (content: string) => ({ role: "user", content });

describe("checkInvariant on OpenAI bodies", () => {
  it("accepts a well-paired body", () => {
    const body = {
      messages: [
        { role: "system", content: "s" },
        user("q"),
        assistant(call("call_1"), call("call_2")),
        tool("call_1"),
        tool("call_2"),
        user("more"),
        { role: "assistant", content: "done" },
      ],
    };
    expect(checkInvariant("openai", body)).toEqual([]);
  });

  it.each<[string, unknown[], InvariantRule[]]>([
    [
      "a call with no tool message",
      [user("q"), assistant(call("call_1"), call("call_2")), tool("call_1")],
      ["unanswered_tool_use"],
    ],
    [
      "a call answered twice",
      [user("q"), assistant(call("call_1")), tool("call_1"), tool("call_1")],
      ["duplicate_tool_result"],
    ],
    [
      "a user message between the call and its result",
      [user("q"), assistant(call("call_1")), user("x"), tool("call_1")],
      ["tool_result_not_first"],
    ],
    [
      "tool messages out of order",
      [user("q"), assistant(call("call_1"), call("call_2")), tool("call_2"), tool("call_1")],
      ["tool_result_out_of_order"],
    ],
    ["an orphan tool message", [user("q"), tool("call_9")], ["orphan_tool_result"]],
    [
      "a duplicated call id",
      [user("q"), assistant(call("call_1")), tool("call_1"), assistant(call("call_1")), tool("call_1")],
      ["duplicate_tool_use_id"],
    ],
    [
      "arguments that are not a JSON object",
      [user("q"), assistant(call("call_1", '{"a":')), tool("call_1")],
      ["invalid_tool_input"],
    ],
    [
      "a result for a server tool id",
      [user("q"), assistant(call("call_1")), tool("call_1"), tool("srvtoolu_1")],
      ["server_tool_answered"],
    ],
  ])("catches %s", (_, messages, expected) => {
    expect(rules({ messages }, "openai")).toEqual(expected);
  });
});

describe("checkInvariant on OpenAI Responses bodies", () => {
  const fc = (id: string, args = "{}") => ({ type: "function_call", call_id: id, name: "t", arguments: args });
  const out = (id: string) => ({ type: "function_call_output", call_id: id, output: "ok" });
  const say = (role: string, content: string) => ({ type: "message", role, content });
  const input = (...items: unknown[]) => ({ input: items });

  it("accepts calls answered by outputs before the user's next text, across a compaction item", () => {
    const body = input(
      say("user", "hi"),
      { type: "compaction", encrypted_content: "x" },
      say("assistant", "calling"),
      fc("a"),
      fc("b"),
      out("a"),
      out("b"),
      say("user", "thanks"),
    );
    expect(rules(body, "openai-responses")).toEqual([]);
  });

  it("flags an unanswered call, an orphan output and an output after the user's text", () => {
    expect(rules(input(say("user", "hi"), fc("a"), say("user", "next")), "openai-responses")).toEqual([
      "unanswered_tool_use",
    ]);
    expect(rules(input(say("user", "hi"), out("zz")), "openai-responses")).toEqual(["orphan_tool_result"]);
    expect(rules(input(fc("a"), say("user", "x"), out("a")), "openai-responses")).toEqual(["tool_result_not_first"]);
  });

  it("flags arguments that are not a JSON object and names the input index", () => {
    const body = input(say("user", "hi"), fc("a", "[1]"), out("a"));
    expect(rules(body, "openai-responses")).toEqual(["invalid_tool_input"]);
    expect(checkWireInvariant("openai-responses", body)[0]).toMatch(/^invalid_tool_input at input\[1\]/);
  });
});
