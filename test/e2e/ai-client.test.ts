// A real client reads our streams: the `ai` package's own SSE/schema parser and message assembler
// (what useChat runs in the browser), and its DefaultChatTransport, set up as README's useChat snippet (the newest
// message only), against POST /chat.
import { DefaultChatTransport, type DynamicToolUIPart, type TextUIPart, type UIMessage } from "ai";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newestMessageOnly } from "../../web/src/chat-request.ts";
import { weatherAgent } from "../helpers/fixtures.ts";
import { Api, HttpError, Mock, startToolServer, type ToolServer, uniqueModel } from "../helpers/index.ts";
import { assembleChunks, assembleStream, contentParts, sdkChunks } from "./ui-stream.ts";

const api = new Api(inject("baseUrl"), inject("adminKey"));
const mock = new Mock(inject("mockUrl"));

let tools: ToolServer;
let tenantKey: string;

function forecastFor(city: string): Record<string, unknown> {
  return { city, forecast: "sunny", temp_c: 21, marker: `ai-client-weather-${city}` };
}

beforeAll(async () => {
  tools = await startToolServer((call) => {
    const input = call.input;
    const city =
      typeof input === "object" && input !== null && "city" in input && typeof input.city === "string"
        ? input.city
        : "nowhere";
    return forecastFor(city);
  });
  tenantKey = (await api.createKey(`ai-client-${Date.now()}`)).key;
});

afterAll(async () => {
  await tools?.close();
});

async function setup(prefix: string): Promise<{ model: string; session: string }> {
  const model = uniqueModel(prefix);
  const agent = `agent-${model}`;
  await api.putAgent(agent, weatherAgent(tools.url, model));
  const session = (await api.createSession(tenantKey, agent)).id;
  return { model, session };
}

function isDynamicTool(part: UIMessage["parts"][number]): part is DynamicToolUIPart {
  return part.type === "dynamic-tool";
}

function isText(part: UIMessage["parts"][number]): part is TextUIPart {
  return part.type === "text";
}

describe("the ai package reads POST /messages", () => {
  it("assembles step-start, text, an output-available dynamic-tool part and the final text", async () => {
    const { model, session } = await setup("ai-client-sse");
    await mock.script(model, [
      { reply: { text: "Checking the forecast.", tool_calls: [{ name: "get_weather", input: { city: "Oslo" } }] } },
      { reply: { text: "Oslo is sunny at 21 °C." } },
    ]);
    const before = tools.calls.length;

    const res = await api.send(tenantKey, session, { content: "Weather in Oslo?" });
    if (!res.ok) throw new HttpError("POST /messages", res.status, await res.text());
    expect(res.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    const body = res.body;
    if (body === null) throw new Error("the SSE response has no body");

    const chunks = await sdkChunks(body);
    const { message, errors } = await assembleChunks(chunks);

    expect(errors).toEqual([]);
    expect(message?.role).toBe("assistant");
    const parts = contentParts(message ?? { id: "", role: "assistant", parts: [] });
    expect(parts.map((p) => p.type)).toEqual(["step-start", "text", "dynamic-tool", "step-start", "text"]);

    const tool = parts.find(isDynamicTool);
    expect(tool?.state).toBe("output-available");
    expect(tool?.toolName).toBe("get_weather");
    expect(tool?.input).toEqual({ city: "Oslo" });
    // JSON tool output reaches the client as a value, not as a string to parse.
    expect(tool?.output).toEqual(forecastFor("Oslo"));

    const texts = parts.filter(isText);
    expect(texts.map((t) => t.text)).toEqual(["Checking the forecast.", "Oslo is sunny at 21 °C."]);
    expect(texts.every((t) => t.state === "done")).toBe(true);

    // The tool endpoint was called once, with the call the client saw.
    const calls = tools.calls.slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.tool_use_id).toBe(tool?.toolCallId);
    expect(calls[0]?.input).toEqual({ city: "Oslo" });
  });
});

describe("DefaultChatTransport against POST /chat", () => {
  it("sends the newest message of a conversation, as the README's transport does, and streams back the answer", async () => {
    const { model, session } = await setup("ai-client-chat");
    await mock.script(model, [{ reply: { text: "Hello from Switchboard." } }]);

    const sentBodies: unknown[] = [];
    // README "Web and mobile apps": the transport of "The same in your own app", which posts the newest message.
    const transport = new DefaultChatTransport<UIMessage>({
      api: api.url(`/v1/sessions/${encodeURIComponent(session)}/chat`),
      headers: { authorization: `Bearer ${tenantKey}` },
      prepareSendMessagesRequest: newestMessageOnly,
      fetch: async (input, init) => {
        if (typeof init?.body === "string") sentBodies.push(JSON.parse(init.body));
        // Checked against the OpenAPI document (the stream frame by frame) as the transport reads it.
        return api.fetch(input, init);
      },
    });
    // What useChat holds by now: an earlier exchange (its tool output the bulk of a long chat), then the new message.
    const earlier: UIMessage[] = [
      { id: "user-message-0", role: "user", parts: [{ type: "text", text: "Fetch the page, please." }] },
      {
        id: "assistant-message-0",
        role: "assistant",
        parts: [
          {
            type: "dynamic-tool",
            toolName: "fetch_page",
            toolCallId: "call-earlier",
            state: "output-available",
            input: {},
            output: "x".repeat(64 * 1024),
          },
        ],
      },
    ];
    const userMessage: UIMessage = {
      id: "user-message-1",
      role: "user",
      parts: [{ type: "text", text: "Say hello, please." }],
    };

    const stream = await transport.sendMessages({
      trigger: "submit-message",
      chatId: session,
      messageId: undefined,
      messages: [...earlier, userMessage],
      abortSignal: undefined,
    });
    const { message, errors } = await assembleStream(stream);

    // What went over the wire is the useChat request body with the newest message alone.
    expect(sentBodies).toHaveLength(1);
    expect(sentBodies[0]).toEqual({ id: session, trigger: "submit-message", messages: [userMessage] });

    expect(errors).toEqual([]);
    expect(message?.role).toBe("assistant");
    const parts = contentParts(message ?? { id: "", role: "assistant", parts: [] });
    expect(parts.map((p) => p.type)).toEqual(["step-start", "text"]);
    expect(parts.filter(isText).map((t) => [t.text, t.state])).toEqual([["Hello from Switchboard.", "done"]]);

    // The server took the newest user message as the turn's input.
    const history = await api.history(tenantKey, session);
    expect(history.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(history.messages[0]?.parts).toEqual([{ type: "text", text: "Say hello, please." }]);
    expect(history.messages[1]?.parts).toEqual([{ type: "text", text: "Hello from Switchboard." }]);
  });
});
