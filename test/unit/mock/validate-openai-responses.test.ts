// The mock's Responses request checks that are not about pairing or compaction (openai-responses.test.ts has those).
import { describe, expect, it } from "vitest";
import { validateResponsesRequest } from "../../../mock/validate-openai-responses.ts";

describe("validateResponsesRequest: tools", () => {
  it("refuses function parameters without a root type object, as the API does", () => {
    const tool = { type: "function", name: "untyped_vr", parameters: { oneOf: [{ type: "object" }] } };
    expect(validateResponsesRequest({ model: "m", input: "hi", tools: [tool] })).toMatchObject({
      status: 400,
      message: `Invalid schema for function 'untyped_vr': schema must be a JSON Schema of 'type: "object"', got 'type: "None"'.`,
      param: "tools[0].parameters",
      code: "invalid_function_parameters",
    });
  });
});

describe("validateResponsesRequest: function_call items", () => {
  it("refuses a call of history whose name does not match the API's pattern, as the API does", () => {
    const input = [
      { type: "message", role: "user", content: "hi" },
      { type: "function_call", call_id: "call_dot", name: "prometheus.execute_query", arguments: "{}" },
      { type: "function_call_output", call_id: "call_dot", output: "unknown tool" },
    ];
    expect(validateResponsesRequest({ model: "m", input })).toMatchObject({
      status: 400,
      param: "input[1].name",
      code: "invalid_value",
    });
  });
});

describe("validateResponsesRequest: max_output_tokens", () => {
  it("refuses a value below 16, as the API does", () => {
    expect(validateResponsesRequest({ model: "m", input: "hi", max_output_tokens: 15 })).toMatchObject({
      status: 400,
      message: "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 15 instead.",
      param: "max_output_tokens",
      code: "integer_below_min_value",
    });
  });

  it("accepts 16", () => {
    expect(validateResponsesRequest({ model: "m", input: "hi", max_output_tokens: 16 })).toBeNull();
  });
});
