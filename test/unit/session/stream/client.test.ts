// A whole turn's UI message stream read by the AI SDK's own client code (parsing and useChat's assembly).
import type { DynamicToolUIPart } from "ai";
import { describe, expect, it } from "vitest";
import { assemble, encodeAll, parseWithSdk, toSse } from "./assemble";
import { FULL_TURN, TEXT_1, TEXT_2, THINKING, TIME_INPUT, WEATHER_INPUT } from "./fixtures";

describe("a full turn through the AI SDK's own client parsing", () => {
  it("assembles the UIMessage useChat would show", async () => {
    const { message, errors } = await assemble(toSse(encodeAll(FULL_TURN)));
    expect(errors).toEqual([]);
    expect(message?.id).toBe("msg_1");
    expect(message?.role).toBe("assistant");
    const parts = message?.parts ?? [];
    expect(parts.map((part) => part.type)).toEqual([
      "step-start",
      "reasoning",
      "text",
      "dynamic-tool",
      "dynamic-tool",
      "step-start",
      "text",
      "data-turn-status",
    ]);
    expect(parts[1]).toMatchObject({ type: "reasoning", text: THINKING, state: "done" });
    expect(parts[2]).toMatchObject({ type: "text", text: TEXT_1, state: "done" });
    expect(parts[6]).toMatchObject({ type: "text", text: TEXT_2, state: "done" });
    expect(parts[7]).toMatchObject({ type: "data-turn-status", id: "status", data: { status: "completed" } });

    const tools = parts.filter((part): part is DynamicToolUIPart => part.type === "dynamic-tool");
    expect(tools).toHaveLength(2);
    expect(tools[0]).toMatchObject({
      toolCallId: "toolu_a",
      toolName: "get_weather",
      state: "output-available",
      input: WEATHER_INPUT,
      output: "Sunny, 21 °C",
    });
    expect(tools[1]).toMatchObject({
      toolCallId: "toolu_b",
      toolName: "get_time",
      state: "output-available",
      input: TIME_INPUT,
      output: "14:05\nCEST",
    });
  });

  it("skips the [DONE] the session ends a response with (an id on it too): one chunk per frame, no error", async () => {
    const chunks = encodeAll(FULL_TURN);
    expect(await parseWithSdk(toSse(chunks))).toEqual(chunks);
  });
});
