// The document's UIMessageChunk schema against what the session really emits: every chunk of the encoder's
// scenarios (raw and coalesced) validates, every field it carries is declared, and the schema rejects what a
// client could not read.
import { type Schema, Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { UIMessageChunk } from "../../../src/http/ui-message-chunk";
import { coalesce } from "../../../src/session/stream/coalesce";
import type { UiChunk } from "../../../src/session/stream/ui-chunks";
import { encodeAll } from "../session/stream/assemble";
import { SCENARIOS } from "../session/stream/fixtures";

type Variant = { required: readonly string[]; properties: Record<string, { const?: string; pattern?: string }> };
const VARIANTS = UIMessageChunk.oneOf as readonly Variant[];

/** Chunks the scenarios do not produce: an approval's answer and a declined call, replayed from the log. */
const ANSWERED: UiChunk[] = [
  { type: "tool-approval-response", approvalId: "ap_1", approved: false, reason: "not today" },
  { type: "tool-output-denied", toolCallId: "toolu_1" },
];

const emitted = (): UiChunk[] => {
  const chunks = Object.values(SCENARIOS).flatMap((events) => encodeAll(events));
  return [...chunks, ...coalesce(chunks), ...ANSWERED];
};

function variantOf(type: string): Variant | undefined {
  return VARIANTS.find((v) => {
    const declared = v.properties.type;
    return declared?.const === type || (declared?.pattern !== undefined && new RegExp(declared.pattern).test(type));
  });
}

function check(value: unknown) {
  return new Validator(UIMessageChunk as unknown as Schema, "2020-12", false).validate(value);
}

describe("UIMessageChunk (the document's schema of a stream frame)", () => {
  it("accepts every chunk the encoder emits, after a JSON round trip", () => {
    for (const chunk of emitted()) {
      const result = check(JSON.parse(JSON.stringify(chunk)));
      expect(result.valid, `${JSON.stringify(chunk)}: ${JSON.stringify(result.errors[0])}`).toBe(true);
    }
  });

  it("declares every field an emitted chunk carries", () => {
    for (const chunk of emitted()) {
      const variant = variantOf(chunk.type);
      expect(variant, chunk.type).toBeDefined();
      const undeclared = Object.keys(chunk).filter((key) => !(key in (variant?.properties ?? {})));
      expect(undeclared, JSON.stringify(chunk)).toEqual([]);
    }
  });

  it("matches exactly one variant per chunk (the data-* pattern overlaps no fixed type)", () => {
    for (const chunk of emitted()) {
      const matching = VARIANTS.filter(
        (v) =>
          new Validator(v as unknown as Schema, "2020-12", false).validate(JSON.parse(JSON.stringify(chunk))).valid,
      );
      expect(matching.length, chunk.type).toBe(1);
    }
  });

  it("rejects a chunk missing a required field", () => {
    expect(check({ type: "text-delta", id: "t1" }).valid).toBe(false);
    expect(check({ type: "tool-input-available", toolCallId: "c1", input: {} }).valid).toBe(false);
  });

  it("rejects a chunk type the stream never carries", () => {
    expect(check({ type: "text", text: "an AI SDK v4 part" }).valid).toBe(false);
  });

  it("rejects a field of the wrong type", () => {
    expect(check({ type: "text-delta", id: "t1", delta: 42 }).valid).toBe(false);
    expect(check({ type: "finish", finishReason: "done" }).valid).toBe(false);
  });
});
