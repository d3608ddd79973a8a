// validateOpenAIRequest (mock/validate-openai.ts): the tool-call pairing, argument and tool rules Chat Completions
// enforces, refused by the mock as the API refuses them.
import { describe, expect, it } from "vitest";
import { validateOpenAIRequest } from "../../../mock/validate-openai.ts";

const call = (id: string, args = "{}") => ({
  id,
  type: "function",
  function: { name: "get_weather", arguments: args },
});
const assistantCalls = (...ids: string[]) => ({
  role: "assistant",
  content: null,
  tool_calls: ids.map((id) => call(id)),
});
const toolMsg = (id: string) => ({ role: "tool", tool_call_id: id, content: "ok" });
const req = (messages: unknown[]) => ({ model: "m", messages });

describe("validateOpenAIRequest", () => {
  it("accepts a well paired conversation (tool answers in any order)", () => {
    const body = req([
      { role: "system", content: "be nice" },
      { role: "user", content: "hi" },
      assistantCalls("call_a", "call_b"),
      toolMsg("call_b"),
      toolMsg("call_a"),
      { role: "assistant", content: "done" },
      { role: "user", content: [{ type: "text", text: "thanks" }] },
    ]);
    expect(validateOpenAIRequest(body)).toBeNull();
  });

  it("reports unanswered tool_call_ids", () => {
    const body = req([
      { role: "user", content: "hi" },
      assistantCalls("call_a", "call_b", "call_c"),
      toolMsg("call_b"),
      { role: "user", content: "well?" },
    ]);
    expect(validateOpenAIRequest(body)).toEqual({
      status: 400,
      pairing: true,
      code: null,
      param: "messages.[3].role",
      message:
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_a, call_c",
    });
  });

  it("reports unanswered calls at the end of the conversation", () => {
    const body = req([{ role: "user", content: "hi" }, assistantCalls("call_a")]);
    expect(validateOpenAIRequest(body)?.message).toBe(
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_a",
    );
  });

  it("rejects a tool message without a preceding tool_calls message (sic: preceeding)", () => {
    const body = req([{ role: "user", content: "hi" }, { role: "assistant", content: "x" }, toolMsg("call_a")]);
    expect(validateOpenAIRequest(body)).toEqual({
      status: 400,
      pairing: true,
      code: null,
      param: "messages.[2].role",
      message:
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    });
  });

  it("rejects a tool message answering a call of an older assistant message", () => {
    const body = req([
      { role: "user", content: "hi" },
      assistantCalls("call_a"),
      toolMsg("call_a"),
      { role: "assistant", content: "x" },
      { role: "user", content: "y" },
      assistantCalls("call_b"),
      toolMsg("call_b"),
      toolMsg("call_a"),
    ]);
    const rejection = validateOpenAIRequest(body);
    expect(rejection?.pairing).toBe(true);
    expect(rejection?.message).toBe(
      "Invalid parameter: 'tool_call_id' of 'call_a' not found in 'tool_calls' of previous message.",
    );
  });

  it("rejects a call answered twice", () => {
    const body = req([{ role: "user", content: "hi" }, assistantCalls("call_a"), toolMsg("call_a"), toolMsg("call_a")]);
    expect(validateOpenAIRequest(body)?.pairing).toBe(true);
    expect(validateOpenAIRequest(body)?.message).toMatch(/duplicate response for 'tool_call_id' of 'call_a'/);
  });

  it("requires history arguments to be JSON strings", () => {
    const bad = req([
      { role: "user", content: "hi" },
      { role: "assistant", tool_calls: [call("call_a", "{not json")] },
      toolMsg("call_a"),
    ]);
    expect(validateOpenAIRequest(bad)?.message).toBe(
      "Invalid 'messages[1].tool_calls[0].function.arguments': the value must be a valid JSON string.",
    );
    const object = req([
      { role: "user", content: "hi" },
      { role: "assistant", tool_calls: [{ id: "call_a", type: "function", function: { name: "f", arguments: {} } }] },
      toolMsg("call_a"),
    ]);
    expect(validateOpenAIRequest(object)?.message).toBe(
      "Invalid type for 'messages[1].tool_calls[0].function.arguments': expected a string, but got an object instead.",
    );
  });

  it("checks the basic shape", () => {
    expect(validateOpenAIRequest({ messages: [] })?.message).toBe("you must provide a model parameter");
    expect(validateOpenAIRequest({ model: "m" })?.message).toBe("Missing required parameter: 'messages'.");
    expect(validateOpenAIRequest(req([]))?.code).toBe("empty_array");
    expect(validateOpenAIRequest(req([{ role: "robot", content: "x" }]))?.message).toBe(
      "Invalid value: 'robot'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.",
    );
    expect(validateOpenAIRequest(req([{ role: "user" }]))?.message).toBe(
      "Missing required parameter: 'messages[0].content'.",
    );
    expect(
      validateOpenAIRequest(
        req([
          { role: "user", content: "a" },
          { role: "assistant", content: null },
        ]),
      )?.message,
    ).toBe("Invalid value for 'content': expected a string, got null.");
    expect(validateOpenAIRequest({ ...req([{ role: "user", content: "a" }]), stream_options: {} })?.message).toBe(
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
    );
  });

  it("refuses a call of history whose function name does not match the API's pattern, as the API does", () => {
    const dotted = { id: "call_dot", type: "function", function: { name: "multi_tool_use.parallel", arguments: "{}" } };
    const body = req([
      { role: "user", content: "hi" },
      { role: "assistant", content: null, tool_calls: [dotted] },
      toolMsg("call_dot"),
    ]);
    expect(validateOpenAIRequest(body)).toMatchObject({
      status: 400,
      message:
        "Invalid 'messages[1].tool_calls[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
      param: "messages[1].tool_calls[0].function.name",
      code: "invalid_value",
    });
  });
});

describe("validateOpenAIRequest: tools", () => {
  const fn = (i: number) => ({ type: "function", function: { name: `f_${i}`, parameters: { type: "object" } } });

  it("refuses more than 128 tools, as the API does", () => {
    const at = (n: number) =>
      validateOpenAIRequest({
        ...req([{ role: "user", content: "hi" }]),
        tools: Array.from({ length: n }, (_, i) => fn(i)),
      });
    expect(at(128)).toBeNull();
    expect(at(129)).toMatchObject({ status: 400, param: "tools", code: "array_above_max_length" });
  });

  it("refuses function parameters whose root type is not exactly object, as the API does", () => {
    const tool = { type: "function", function: { name: "nullable_vo", parameters: { type: ["object", "null"] } } };
    expect(validateOpenAIRequest({ ...req([{ role: "user", content: "hi" }]), tools: [tool] })).toEqual({
      status: 400,
      message:
        "Invalid schema for function 'nullable_vo': schema must be a JSON Schema of 'type: \"object\"', got 'type: \"['object', 'null']\"'.",
      param: "tools[0].function.parameters",
      code: "invalid_function_parameters",
    });
  });
});
