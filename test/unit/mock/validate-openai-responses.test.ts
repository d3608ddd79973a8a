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
