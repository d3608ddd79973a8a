// Fitting values under byte budgets (src/storage/fit.ts): cut texts keep a marker with the original
// size, splits are lossless, fair shares leave small items whole.
import { describe, expect, it } from "vitest";
import {
  cutText,
  fairShares,
  fitJson,
  headChars,
  headWithin,
  jsonBytes,
  markedSizes,
  splitText,
  utf8Bytes,
} from "../../../src/storage/fit";

describe("cutText", () => {
  it("cuts multi-byte text under the budget of its JSON encoding, never splitting a character", () => {
    const text = 'é😀"\n'.repeat(50_000);
    const out = cutText(text, 10_000);
    expect(jsonBytes(out)).toBeLessThanOrEqual(10_000);
    expect(out.endsWith(`\n[truncated: original ${utf8Bytes(text)} bytes]`)).toBe(true);
    expect(out).not.toMatch(/\uFFFD|[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it("keeps as much of a heavily escaped text as fits, not just the marker", () => {
    const out = cutText("\u0001".repeat(100_000), 10_000);
    expect(jsonBytes(out)).toBeLessThanOrEqual(10_000);
    expect(out.length).toBeGreaterThan(1_500);
  });

  it("keeps the first original size when an already cut text is cut again", () => {
    const once = cutText("a".repeat(300_000), 100_000);
    const twice = cutText(once, 20_000);
    expect(twice).toMatch(/\n\[truncated: original 300000 bytes\]$/);
    expect(twice.match(/truncated/g)?.length).toBe(1);
  });
});

describe("markedSizes", () => {
  it("reads a cut text's marker: the UTF-8 bytes kept before it and the original's size", () => {
    const text = "é".repeat(100_000);
    const out = cutText(text, 10_000);
    expect(markedSizes(out)).toEqual({
      kept: utf8Bytes(out) - utf8Bytes(`\n[truncated: original 200000 bytes]`),
      original: 200_000,
    });
    expect(markedSizes(text)).toBeNull();
  });
});

describe("headChars", () => {
  it("keeps the first units of a text, one fewer rather than half of a surrogate pair", () => {
    expect(headChars("ab😀c", 3)).toBe("ab");
    expect(headChars("ab😀c", 4)).toBe("ab😀");
    expect(headChars("ab", 5)).toBe("ab");
  });
});

describe("splitText", () => {
  it("splits into pieces that each fit and join back to the text", () => {
    const text = `${"x".repeat(1000)}${"\u0001".repeat(1000)}😀`.repeat(20);
    const pieces = splitText(text, 2_000);
    expect(pieces.join("")).toBe(text);
    for (const p of pieces) expect(jsonBytes(p)).toBeLessThanOrEqual(2_000);
  });
});

describe("fairShares", () => {
  it("leaves items under their share whole and splits the rest equally", () => {
    expect(fairShares([10, 500, 1000], 610)).toEqual([10, 300, 300]);
  });
});

describe("fitJson", () => {
  it("cuts only the long strings of a structure", () => {
    const value = { code: "x", message: "m".repeat(10_000), nested: [{ detail: "d".repeat(10_000) }] };
    const out = fitJson(value, 4_000) as typeof value;
    expect(jsonBytes(out)).toBeLessThanOrEqual(4_000);
    expect(out.code).toBe("x");
    expect(out.message).toMatch(/\[truncated: original 10000 bytes\]$/);
    expect(out.nested[0]?.detail).toMatch(/\[truncated: original 10000 bytes\]$/);
  });

  it("fits its budget even when each of many strings gets a share smaller than a truncation marker", () => {
    const value = Array.from({ length: 20_000 }, () => "forty characters of text in every string");
    expect(jsonBytes(value)).toBeGreaterThan(800_000);
    const out = fitJson(value, 100_000);
    expect(jsonBytes(out)).toBeLessThanOrEqual(100_000);
    expect(String(out)).toMatch(/\[truncated: original \d+ bytes\]$/);
  });
});

describe("headWithin", () => {
  it("keeps the longest head whose costs fit the budget, stopping at the first that does not", () => {
    expect(headWithin(["aa", "b", "cccc", "d"], 3, (s) => s.length)).toEqual(["aa", "b"]);
    expect(headWithin(["aaaa"], 3, (s) => s.length)).toEqual([]);
  });
});
