// check(): a body that breaks its fixed schema is a 400 naming the first problem as `<field>: <what is wrong>`,
// exactly as docs/API.md's Errors section quotes it.
import { describe, expect, it } from "vitest";
import { check } from "../../../src/http/validate";
import type { FixedSchemaName } from "../../../src/json-schema/index";

function refusal(schema: FixedSchemaName, body: unknown): { status: number; code: string; message: string } {
  try {
    check(schema, body);
  } catch (e) {
    const { status, code, message } = e as { status: number; code: string; message: string };
    return { status, code, message };
  }
  throw new Error("the body was accepted");
}

describe("check", () => {
  it.each([
    ["messageBody", { content: 5 }, "content: expected string or array, got integer"],
    [
      "agentBody",
      {
        model: { provider: "anthropic", name: "m" },
        tools: [{ name: "a b", description: "d", input_schema: { type: "object" }, execution: { type: "client" } }],
      },
      'tools.0.name: does not match the required pattern (got "a b")',
    ],
    ["messageBody", { content: "hi", contnet: "x" }, 'body: property "contnet" is not allowed'],
    ["messageBody", { contnet: "x" }, 'body: missing required property "content"'],
  ] as const)("answers %s %j with API.md's message", (schema, body, message) => {
    expect(refusal(schema, body)).toEqual({ status: 400, code: "invalid_request", message });
  });
});
