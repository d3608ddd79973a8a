// fitMessageResults (src/session/history/truncate.ts): a message's tool results cut to fit its row, a small one
// whole and every one in place.
import { describe, expect, it } from "vitest";
import { fitMessageResults } from "../../../../src/session/history/truncate";
import { jsonBytes } from "../../../../src/storage/fit";

describe("fitMessageResults", () => {
  it("keeps a small result whole and every result in place when the message is over budget", () => {
    const results = ["small", "b".repeat(600_000), "c".repeat(600_000)].map((content, i) => ({
      type: "tool_result" as const,
      tool_use_id: `t${i}`,
      content,
      is_error: false,
    }));
    const out = fitMessageResults(results, [], 1_900_000);
    expect(out.map((r) => r.tool_use_id)).toEqual(["t0", "t1", "t2"]);
    expect(out[0]?.content).toBe("small");
    const total = out.reduce((n, r) => n + jsonBytes(r.content), 0);
    expect(total).toBeLessThanOrEqual(768 * 1024);
    expect(String(out[2]?.content)).toMatch(/\[truncated: original 600000 bytes\]$/);
  });
});
