// check(): a body that breaks its fixed schema is a 400 naming the first problem as `<field>: <what is wrong>`,
// exactly as docs/API.md's Errors section quotes it.
import { describe, expect, it } from "vitest";
import { check, intParam } from "../../../src/http/validate";
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

describe("intParam", () => {
  it.each(["0x10", "1e1", " 5", "5 ", "5.0", "+5", "-0", "9007199254740992"])(
    "refuses %j: only plain decimal digits within the range are an integer",
    (raw) => {
      expect(() => intParam(raw, 1, 0, Number.MAX_SAFE_INTEGER, "after")).toThrow(
        expect.objectContaining({ status: 400, code: "invalid_request" }),
      );
    },
  );

  it("reads plain digits and falls back when absent or empty", () => {
    expect([
      intParam("010", 1, 0, 100, "limit"),
      intParam(undefined, 7, 0, 100, "limit"),
      intParam("", 7, 0, 100, "limit"),
    ]).toEqual([10, 7, 7]);
  });
});
