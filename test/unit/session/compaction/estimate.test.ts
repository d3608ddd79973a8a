// The input-token estimate of a provider request (estimate.ts): text sized per code point class, text known only by
// its stored sizes, what a reported usage says the request held, and the estimate calibrated by what it counted.
import { describe, expect, it } from "vitest";
import {
  calibration,
  estimateTokens,
  headTokens,
  inputTokens,
  MAX_CALIBRATION,
  sizeTokens,
  textTokens,
} from "../../../../src/session/compaction/estimate";
import { utf8Bytes } from "../../../../src/storage/fit";

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

describe("estimateTokens with a calibration ratio", () => {
  it("calibrates the whole estimate with no report, and only the text added since the report with one", () => {
    expect(calibration(1000, 2500)).toBe(2.5);
    expect(calibration(1000, 700)).toBe(1);
    // A count no text of that size could reach (a garbled error) is taken at the most.
    expect(calibration(100, 10_000_100)).toBe(MAX_CALIBRATION);
    expect(estimateTokens(1000, null, 2.5)).toBe(2500);
    expect(estimateTokens(1200, { estimated: 1000, tokens: 2500 }, 2.5)).toBe(3000);
    // Ratio 1 is the estimate as it was: the report plus the text added since.
    expect(estimateTokens(1200, { estimated: 1000, tokens: 900 })).toBe(1100);
  });
});

describe("textTokens", () => {
  it("counts ASCII at 4 characters per token", () => {
    expect(textTokens("a".repeat(4000))).toBe(1000);
  });

  it("counts a CJK character as a whole token, not the three quarters its 3 UTF-8 bytes / 4 would give", () => {
    const text = "会話の要約を作成してください。".repeat(100);
    expect(textTokens(text)).toBe(text.length);
    expect(textTokens(text)).toBeGreaterThan(new TextEncoder().encode(text).length / 4);
  });

  it("counts an emoji as two tokens, not the one its 4 UTF-8 bytes / 4 would give", () => {
    const text = "😀🎉🚀".repeat(100);
    expect(textTokens(text)).toBe(600);
    expect(textTokens(text)).toBeGreaterThan(new TextEncoder().encode(text).length / 4);
  });

  it("adds up the classes of a mixed text (ASCII, a 2-byte script, CJK, emoji)", () => {
    // 8 ASCII (2) + 4 Cyrillic (2) + 2 CJK (2) + 1 emoji (2).
    expect(textTokens("abcdefghмира你好😀")).toBe(8);
  });
});

describe("sizeTokens", () => {
  /** What SQL says of a stored text: `length(CAST(x AS BLOB))` and `length(x)` (code points). */
  const stored = (text: string) => ({ bytes: utf8Bytes(text), chars: [...text].length });

  it("gives what textTokens gives of ASCII and CJK text, from its bytes and characters alone", () => {
    for (const text of [
      '{"type":"text","text":"hello, world"}'.repeat(300),
      "会話の要約を作成してください。".repeat(100),
    ]) {
      expect(sizeTokens(stored(text))).toBe(textTokens(text));
    }
  });
});

describe("headTokens", () => {
  it("cuts CJK text at its token budget, never inside an emoji's surrogate pair", () => {
    expect(headTokens("你好世界", 2)).toBe("你好");
    expect(headTokens("ab😀c", 1)).toBe("ab");
    expect(headTokens("abcdefgh", 1)).toBe("abcd");
  });
});
