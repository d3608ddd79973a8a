// The mock's default brain (mock/brain.ts, mock/sample.ts): inputs sampled from a schema, and which declared tool an
// unscripted request calls, on both protocols.
import { describe, expect, it } from "vitest";
import { sampleFromSchema } from "../../../mock/sample.ts";
import { anthropicRequest, mockPerFile, openaiRequest, parseSse, postAnthropic, postOpenAI } from "./helpers.ts";

const mock = mockPerFile();

const weatherSchema = {
  type: "object",
  properties: {
    city: { type: "string" },
    days: { type: "integer" },
    unit: { enum: ["celsius", "fahrenheit"] },
    options: { type: "object", properties: { hourly: { type: "boolean" } }, required: ["hourly"] },
    note: { type: "string" },
  },
  required: ["city", "days", "unit", "options"],
};
const expectedInput = { city: "example", days: 1, unit: "celsius", options: { hourly: true } };

describe("default brain", () => {
  it("synthesizes inputs from a schema", () => {
    expect(sampleFromSchema(weatherSchema)).toEqual(expectedInput);
  });

  it("Anthropic: calls a declared tool the user names, then summarises its result", async () => {
    const tools = [
      { name: "get_time", input_schema: { type: "object" } },
      { name: "get_weather", input_schema: weatherSchema },
    ];
    const res = await postAnthropic(
      mock.url,
      anthropicRequest("b-anthropic", { tools, messages: [{ role: "user", content: "Please use get_weather" }] }),
    );
    const events = parseSse(await res.text()).map((e) => JSON.parse(e.data));
    const start = events.find((d) => d.content_block?.type === "tool_use");
    expect(start.content_block.name).toBe("get_weather");
    const json = events
      .filter((d) => d.delta?.type === "input_json_delta")
      .map((d) => d.delta.partial_json)
      .join("");
    expect(JSON.parse(json)).toEqual(expectedInput);
    expect(events.find((d) => d.type === "message_delta").delta.stop_reason).toBe("tool_use");

    const id = start.content_block.id;
    const followUp = await postAnthropic(
      mock.url,
      anthropicRequest("b-anthropic", {
        stream: false,
        tools,
        messages: [
          { role: "user", content: "Please use get_weather" },
          { role: "assistant", content: [{ type: "tool_use", id, name: "get_weather", input: expectedInput }] },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: id, content: [{ type: "text", text: "sunny" }] }],
          },
        ],
      }),
    );
    const body = await followUp.json();
    expect(body.content).toEqual([{ type: "text", text: "Tool get_weather returned: sunny" }]);
    expect(body.stop_reason).toBe("end_turn");
  });

  it("Anthropic: the word 'tool' picks the first callable tool; deferred tools are skipped", async () => {
    const tools = [
      { name: "hidden", input_schema: { type: "object" }, defer_loading: true },
      {
        name: "tool_search",
        input_schema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
      },
    ];
    const res = await postAnthropic(
      mock.url,
      anthropicRequest("b-first", { stream: false, tools, messages: [{ role: "user", content: "try a tool" }] }),
    );
    const body = await res.json();
    expect(body.content[1]).toMatchObject({ type: "tool_use", name: "tool_search", input: { query: "example" } });
  });

  it("OpenAI: calls the tool and echoes plain text otherwise", async () => {
    const tools = [{ type: "function", function: { name: "get_weather", parameters: weatherSchema } }];
    const res = await postOpenAI(
      mock.url,
      openaiRequest("b-openai", { stream: false, tools, messages: [{ role: "user", content: "weather tool please" }] }),
    );
    const body = await res.json();
    const call = body.choices[0].message.tool_calls[0];
    expect(call.function.name).toBe("get_weather");
    expect(JSON.parse(call.function.arguments)).toEqual(expectedInput);
    expect(body.choices[0].finish_reason).toBe("tool_calls");

    const summary = await postOpenAI(
      mock.url,
      openaiRequest("b-openai", {
        stream: false,
        tools,
        messages: [
          { role: "user", content: "weather tool please" },
          { role: "assistant", content: null, tool_calls: [call] },
          { role: "tool", tool_call_id: call.id, content: "rainy" },
        ],
      }),
    );
    expect((await summary.json()).choices[0].message.content).toBe("Tool get_weather returned: rainy");

    const echo = await postOpenAI(
      mock.url,
      openaiRequest("b-openai", { messages: [{ role: "user", content: "good morning" }] }),
    );
    const content = parseSse(await echo.text())
      .filter((e) => e.data !== "[DONE]")
      .map((e) => JSON.parse(e.data).choices[0]?.delta.content ?? "")
      .join("");
    expect(content).toBe("You said: good morning");
  });
});
