// parseToolInput (src/providers/json.ts): a tool input holding a number too large for a double is malformed; the
// largest finite numbers are kept.
import { describe, expect, it } from "vitest";
import { parseToolInput } from "../../../src/providers/json";

describe("parseToolInput", () => {
  it.each([
    ["a top-level number", '{"n": 1e400}'],
    ["a negative one", '{"n": -1e400}'],
    ["one nested in an array", '{"a": [{"n": 2e308}]}'],
  ])("refuses %s too large for a double as malformed", (_name, raw) => {
    const parsed = parseToolInput(raw);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? "" : parsed.reason).toContain("too large");
  });

  it("keeps the largest finite numbers", () => {
    expect(parseToolInput('{"n": 1.7976931348623157e308, "m": -5e-324}')).toEqual({
      ok: true,
      input: { n: 1.7976931348623157e308, m: -5e-324 },
    });
  });
});
