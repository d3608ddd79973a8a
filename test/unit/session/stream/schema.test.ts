// Every chunk the encoder can emit, raw and coalesced, checked against the ai package's uiMessageChunkSchema and the
// open/close contract.
import { safeValidateTypes } from "@ai-sdk/provider-utils";
import { type UIMessageChunk, uiMessageChunkSchema } from "ai";
import { describe, expect, it } from "vitest";
import { coalesce } from "../../../../src/session/stream/coalesce";
import type { UiChunk } from "../../../../src/session/stream/ui-chunks";
import { encodeAll } from "./assemble";
import { SCENARIOS } from "./fixtures";
import { invariantViolations } from "./invariants";

// Compile-time: every shape we can emit is a shape the AI SDK declares.
const asSdkChunk = (chunk: UiChunk): UIMessageChunk => chunk;

/**
 * Field names per chunk type, copied from uiMessageChunkSchema in
 * node_modules/ai/dist/index.mjs (ai 6.0.x). That schema uses looseObject, so
 * it accepts extra keys silently; a misspelt optional field would pass it and
 * simply be ignored by the client. This table is what catches that.
 */
const SCHEMA_KEYS: Record<string, string[]> = {
  start: ["messageId", "messageMetadata"],
  "start-step": [],
  "text-start": ["id", "providerMetadata"],
  "text-delta": ["id", "delta", "providerMetadata"],
  "text-end": ["id", "providerMetadata"],
  "reasoning-start": ["id", "providerMetadata"],
  "reasoning-delta": ["id", "delta", "providerMetadata"],
  "reasoning-end": ["id", "providerMetadata"],
  "tool-input-start": [
    "toolCallId",
    "toolName",
    "inputEncoding",
    "providerExecuted",
    "providerMetadata",
    "toolMetadata",
    "dynamic",
    "title",
  ],
  "tool-input-delta": ["toolCallId", "inputTextDelta"],
  "tool-input-available": [
    "toolCallId",
    "toolName",
    "input",
    "providerExecuted",
    "providerMetadata",
    "toolMetadata",
    "dynamic",
    "title",
  ],
  "tool-input-error": [
    "toolCallId",
    "toolName",
    "input",
    "providerExecuted",
    "providerMetadata",
    "toolMetadata",
    "dynamic",
    "errorText",
    "title",
  ],
  "tool-output-available": [
    "toolCallId",
    "output",
    "providerExecuted",
    "providerMetadata",
    "toolMetadata",
    "dynamic",
    "preliminary",
  ],
  "tool-output-error": ["toolCallId", "errorText", "providerExecuted", "providerMetadata", "toolMetadata", "dynamic"],
  "tool-approval-request": [
    "approvalId",
    "toolCallId",
    "approvalDescriptor",
    "inputSchemaInput",
    "reason",
    "isAutomatic",
    "signature",
  ],
  "tool-approval-response": ["approvalId", "approved", "reason", "providerExecuted", "providerMetadata"],
  "tool-output-denied": ["toolCallId"],
  "finish-step": [],
  finish: ["finishReason", "messageMetadata"],
  error: ["errorText"],
  abort: ["reason"],
  data: ["id", "data", "transient"],
};

/** Fields the schema declares as z.unknown(): any value passes, so only the table above checks their names. */
const UNTYPED = new Set(["input", "output", "data", "messageMetadata", "approvalDescriptor"]);

function unknownKeys(chunk: UiChunk): string[] {
  const allowed = SCHEMA_KEYS[chunk.type.startsWith("data-") ? "data" : chunk.type];
  if (allowed === undefined) return [`type ${chunk.type}`];
  return Object.keys(chunk).filter((key) => key !== "type" && !allowed.includes(key));
}

describe("emitted chunks against the ai package's uiMessageChunkSchema", () => {
  for (const [name, events] of Object.entries(SCENARIOS)) {
    it(`${name}: every chunk (raw and coalesced) validates after a JSON round trip`, async () => {
      const chunks = encodeAll(events);
      for (const chunk of [...chunks, ...coalesce(chunks)]) {
        const wire: unknown = JSON.parse(JSON.stringify(asSdkChunk(chunk)));
        const result = await safeValidateTypes({ value: wire, schema: uiMessageChunkSchema });
        expect(result.success, JSON.stringify(chunk)).toBe(true);
        expect(unknownKeys(chunk), JSON.stringify(chunk)).toEqual([]);
      }
    });

    it(`${name}: every typed field is one the schema checks (a wrong type is rejected)`, async () => {
      for (const chunk of encodeAll(events)) {
        for (const [key, value] of Object.entries(chunk)) {
          if (key === "type" || UNTYPED.has(key) || (typeof value !== "string" && typeof value !== "boolean")) continue;
          const probe = { ...chunk, [key]: 12345 };
          const result = await safeValidateTypes({ value: probe, schema: uiMessageChunkSchema });
          expect(result.success, `${chunk.type}.${key}`).toBe(false);
        }
      }
    });

    it(`${name}: respects the open/close contract`, () => {
      expect(invariantViolations(encodeAll(events))).toEqual([]);
      expect(invariantViolations(coalesce(encodeAll(events)))).toEqual([]);
    });
  }

  it("covers every chunk type of the UiChunk union", () => {
    const types = new Set(Object.values(SCENARIOS).flatMap((events) => encodeAll(events).map((c) => c.type)));
    const expected = [
      "start",
      "start-step",
      "text-start",
      "text-delta",
      "text-end",
      "reasoning-start",
      "reasoning-delta",
      "reasoning-end",
      "tool-input-start",
      "tool-input-delta",
      "tool-input-available",
      "tool-input-error",
      "tool-output-available",
      "tool-output-error",
      "tool-approval-request",
      "finish-step",
      "finish",
      "error",
      "abort",
      "data-provider-retry",
      "data-turn-status",
    ];
    for (const t of expected) expect(types, t).toContain(t);
  });

  it("the schema really rejects a malformed chunk (the check above is not vacuous)", async () => {
    const result = await safeValidateTypes({
      value: { type: "text-delta", id: "x", textDelta: "old v4 field" },
      schema: uiMessageChunkSchema,
    });
    expect(result.success).toBe(false);
  });
});
