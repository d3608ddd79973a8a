// Abandoned steps as the AI SDK's client reads them (src/session/stream/ui-encoder.ts): a step cut mid tool input,
// or a turn error mid text, assembles without the SDK throwing, every open part closed.
import type { DynamicToolUIPart } from "ai";
import { describe, expect, it } from "vitest";
import { coalesce } from "../../../../src/session/stream/coalesce";
import { assemble, encodeAll, toSse } from "./assemble";
import { CUT_MID_TEXT, CUT_MID_TOOL_INPUT } from "./fixtures";

describe("abandoned steps", () => {
  it("a step cut mid tool input assembles without the AI SDK throwing", async () => {
    const chunks = encodeAll(CUT_MID_TOOL_INPUT);
    expect(chunks.map((c) => c.type)).toEqual([
      "start",
      "start-step",
      "text-start",
      "text-delta",
      "text-end",
      "tool-input-start",
      "tool-input-delta",
      "tool-input-error",
      "finish-step",
      "finish",
    ]);
    for (const list of [chunks, coalesce(chunks)]) {
      const { message, errors } = await assemble(toSse(list));
      expect(errors).toEqual([]);
      const parts = message?.parts ?? [];
      expect(parts[1]).toMatchObject({ type: "text", text: "Checking.", state: "done" });
      const tool = parts.find((part): part is DynamicToolUIPart => part.type === "dynamic-tool");
      expect(tool).toMatchObject({ toolCallId: "toolu_cut", toolName: "get_weather", state: "output-error" });
      expect(tool?.errorText).toMatch(/incomplete.*provider_stream_cut.*dropped/);
    }
  });

  it("a turn error mid thinking and text closes both parts; the client sees only our error", async () => {
    const chunks = encodeAll(CUT_MID_TEXT);
    const { message, errors } = await assemble(toSse(chunks));
    expect(errors.map((e) => e.message)).toEqual(["provider_idle_timeout: no bytes for 60s"]);
    expect(message?.parts).toEqual([
      { type: "step-start" },
      { type: "reasoning", id: "msg_3-r1-0", text: "Hmm", state: "done", providerMetadata: undefined },
      { type: "text", text: "Half a sent", state: "done", providerMetadata: undefined },
    ]);
    // The error comes after the step is closed, because clients stop at the error chunk.
    const types = chunks.map((c) => c.type);
    expect(types.indexOf("finish-step")).toBeLessThan(types.indexOf("error"));
  });
});
