// coalesce (src/session/stream/coalesce.ts): adjacent deltas of one part merged before they are stored, and the client
// assembling the same message from the coalesced chunks.
import { describe, expect, it } from "vitest";
import { coalesce } from "../../../../src/session/stream/coalesce";
import type { UiChunk } from "../../../../src/session/stream/ui-chunks";
import { assemble, encodeAll, toSse } from "./assemble";
import { SCENARIOS } from "./fixtures";

describe("coalesce", () => {
  it("merges adjacent deltas of the same part and keeps everything else in order", () => {
    const chunks: UiChunk[] = [
      { type: "text-start", id: "a" },
      { type: "text-delta", id: "a", delta: "Hel" },
      { type: "text-delta", id: "a", delta: "lo" },
      { type: "text-end", id: "a" },
      { type: "reasoning-delta", id: "r", delta: "x" },
      { type: "reasoning-delta", id: "r", delta: "y" },
      { type: "tool-input-delta", toolCallId: "t", inputTextDelta: '{"a"' },
      { type: "tool-input-delta", toolCallId: "t", inputTextDelta: ":1}" },
      { type: "finish-step" },
    ];
    expect(coalesce(chunks)).toEqual([
      { type: "text-start", id: "a" },
      { type: "text-delta", id: "a", delta: "Hello" },
      { type: "text-end", id: "a" },
      { type: "reasoning-delta", id: "r", delta: "xy" },
      { type: "tool-input-delta", toolCallId: "t", inputTextDelta: '{"a":1}' },
      { type: "finish-step" },
    ]);
  });

  it("does not merge across ids, kinds or intervening chunks", () => {
    const chunks: UiChunk[] = [
      { type: "text-delta", id: "a", delta: "1" },
      { type: "text-delta", id: "b", delta: "2" },
      { type: "text-delta", id: "a", delta: "3" },
      { type: "reasoning-delta", id: "a", delta: "4" },
      { type: "tool-input-delta", toolCallId: "t1", inputTextDelta: "5" },
      { type: "tool-input-delta", toolCallId: "t2", inputTextDelta: "6" },
      { type: "data-x", data: 1, transient: true },
      { type: "tool-input-delta", toolCallId: "t2", inputTextDelta: "7" },
    ];
    expect(coalesce(chunks)).toEqual(chunks);
  });

  it("does not mutate its input", () => {
    const chunks: UiChunk[] = [
      { type: "text-delta", id: "a", delta: "x" },
      { type: "text-delta", id: "a", delta: "y" },
    ];
    const copy = structuredClone(chunks);
    coalesce(chunks);
    expect(chunks).toEqual(copy);
    expect(coalesce([])).toEqual([]);
  });

  for (const [name, events] of Object.entries(SCENARIOS)) {
    it(`${name}: the client assembles exactly the same message from coalesced chunks`, async () => {
      const chunks = encodeAll(events);
      const plain = await assemble(toSse(chunks));
      const merged = await assemble(toSse(coalesce(chunks)));
      expect(merged.message).toEqual(plain.message);
      expect(merged.errors.map(String)).toEqual(plain.errors.map(String));
    });
  }

  it("bounds rows per token: the full turn shrinks to a few chunks per part", () => {
    const chunks = encodeAll(SCENARIOS.FULL_TURN ?? []);
    const merged = coalesce(chunks);
    const deltas = (list: UiChunk[]) => list.filter((c) => c.type.endsWith("-delta")).length;
    expect(deltas(chunks)).toBeGreaterThan(40);
    // One merged delta per streamed part: reasoning, 2 texts, 2 tool inputs.
    expect(deltas(merged)).toBe(5);
    expect(merged.length).toBeLessThan(chunks.length / 2);
  });
});
