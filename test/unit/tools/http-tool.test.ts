// The http tool's answer as the model gets it: a body past the read cap keeps its "reading stopped" marker.
import { afterEach, describe, expect, it, vi } from "vitest";
import { jsonBytes } from "../../../src/storage/fit";
import { RESULT_BUDGET_BYTES } from "../../../src/storage/limits";
import { callHttpTool, MAX_TOOL_RESPONSE_BYTES } from "../../../src/tools/http-tool";

afterEach(() => {
  vi.restoreAllMocks();
});

const call = () =>
  callHttpTool({
    url: "http://127.0.0.1:9/tool",
    timeoutMs: 5000,
    toolUseId: "toolu_big",
    name: "big",
    input: {},
    signal: new AbortController().signal,
    allowPrivate: true,
  });

describe("an http tool's answer past the read cap", () => {
  it.each([
    ["multi-byte text", "é"],
    ["text JSON escapes grow", '"'],
  ])("of %s keeps the reading-stopped marker within the stored budget", async (_name, unit) => {
    const body = unit.repeat(MAX_TOOL_RESPONSE_BYTES * 2);
    vi.spyOn(globalThis, "fetch").mockResolvedValue(
      new Response(body, { status: 200, headers: { "content-type": "text/plain" } }),
    );
    const out = await call();
    expect(out.is_error).toBe(false);
    const text = String(out.content);
    expect(text).toMatch(/reading stopped there\]$/);
    expect(jsonBytes(text)).toBeLessThanOrEqual(RESULT_BUDGET_BYTES);
  });
});
