// The input-token estimate of a provider request (estimate.ts): what a reported usage says the request held.
import { describe, expect, it } from "vitest";
import { inputTokens } from "../../../../src/session/compaction/estimate";

describe("inputTokens", () => {
  it("reads the request's own input, cached included, never the provider's compaction passes", () => {
    const usage = {
      input_tokens: 2104,
      cache_read_input_tokens: 300,
      cache_creation_input_tokens: 20,
      output_tokens: 9,
      compaction_input_tokens: 51_230,
      compaction_output_tokens: 412,
    };
    expect(inputTokens(usage)).toBe(2424);
  });
});
