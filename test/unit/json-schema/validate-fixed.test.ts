// The build-time engine (Ajv standalone validators of the fixed schemas) reports a refused value in the
// module's one error format: path, keyword, message.
import { describe, expect, it } from "vitest";
import { validateFixed } from "../../../src/json-schema/index";

describe("validateFixed", () => {
  it("reports a refused body as issues with path, keyword and message", () => {
    expect(validateFixed("messageBody", { content: 42 })).toEqual({
      valid: false,
      issues: [{ path: "/content", keyword: "type", message: "expected string or array, got integer" }],
      omitted: 0,
    });
    expect(validateFixed("createSessionBody", { agent: "a", locaton_hint: "weur" })).toEqual({
      valid: false,
      issues: [{ path: "(root)", keyword: "additionalProperties", message: 'property "locaton_hint" is not allowed' }],
      omitted: 0,
    });
  });
});
