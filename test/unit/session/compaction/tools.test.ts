// The keep rule for loaded tools at a compaction (src/session/compaction/tools.ts).
import { describe, expect, it } from "vitest";
import { keepLoaded, type LoadedInfo } from "../../../../src/session/compaction/tools";

const tool = (name: string, lastUse: number, bytes: number): LoadedInfo => ({
  name,
  lastUse,
  tokens: Math.ceil(bytes / 4),
  bytes,
  fingerprint: `fp-${name}`,
});

describe("keepLoaded", () => {
  it("past the row's room drops the least recently used kept tools, named ones included, until the rest fit", () => {
    const loaded = [tool("named_old", 1, 400), tool("recent", 9, 400), tool("middle", 5, 400)];
    const rule = keepLoaded(loaded, new Set(["named_old"]), 1_000_000, 500);
    expect(rule).toEqual({ kept: ["recent"], dropped: ["named_old", "middle"] });
  });

  it("past the row's room drops tools just loaded (never called) after every other kept tool", () => {
    const loaded = [{ ...tool("just_loaded", 0, 400), justLoaded: true }, tool("called", 5, 400), tool("old", 1, 400)];
    const rule = keepLoaded(loaded, new Set(["just_loaded"]), 1_000_000, 500);
    expect(rule).toEqual({ kept: ["just_loaded"], dropped: ["old", "called"] });
  });
});
