// Smoke tests through real workerd (`wrangler dev`): the public HTTP API from docs/API.md, end to end,
// with the mock model server behind both providers and a local endpoint serving an `http` tool.
import { asSchema, uiMessageChunkSchema } from "ai";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { resultText } from "../../src/model/message.ts";
import { weatherAgent } from "../helpers/fixtures.ts";
import {
  Api,
  type HistoryMessage,
  isErrorBody,
  Mock,
  type Part,
  readSse,
  type Step,
  startToolServer,
  type ToolServer,
  uniqueModel,
} from "../helpers/index.ts";

const api = new Api(inject("baseUrl"), inject("adminKey"));
const mock = new Mock(inject("mockUrl"));
const chunkSchema = asSchema(uiMessageChunkSchema);

let tools: ToolServer;
let tenantKey: string;

beforeAll(async () => {
  tools = await startToolServer((call) => {
    const input = call.input;
    const city =
      typeof input === "object" && input !== null && "city" in input && typeof input.city === "string"
        ? input.city
        : "nowhere";
    return { city, forecast: "sunny", temp_c: 21, marker: `weather-for-${city}` };
  });
  tenantKey = (await api.createKey(`smoke-${Date.now()}`)).key;
});

afterAll(async () => {
  await tools?.close();
});

/** The model asks for the tool, then answers in text once it has the result. */
const toolThenText: Step[] = [
  { reply: { text: "Let me look that up.", tool_calls: [{ name: "get_weather", input: { city: "Paris" } }] } },
  { reply: { text: "It is sunny in Paris, 21 °C." } },
];

/** Creates an agent with a model name of its own and a fresh session for it. */
async function setup(provider: "anthropic" | "openai"): Promise<{ agent: string; model: string; session: string }> {
  const model = uniqueModel(`smoke-${provider}`);
  const agent = `agent-${model}`;
  await api.putAgent(agent, weatherAgent(tools.url, model, provider));
  const session = (await api.createSession(tenantKey, agent)).id;
  return { agent, model, session };
}

function parts(messages: HistoryMessage[]): Part[] {
  return messages.flatMap((m) => m.parts);
}

/** Asserts the canonical messages of one tool round trip: tool_use → tool_result (from our server) → text. */
function expectToolRoundTrip(messages: HistoryMessage[]): void {
  const all = parts(messages);
  const uses = all.filter((p): p is Extract<Part, { type: "tool_use" }> => p.type === "tool_use");
  expect(uses).toHaveLength(1);
  const use = uses[0]!;
  expect(use.name).toBe("get_weather");
  expect(use.input).toEqual({ city: "Paris" });

  const results = all.filter((p): p is Extract<Part, { type: "tool_result" }> => p.type === "tool_result");
  expect(results).toHaveLength(1);
  const result = results[0]!;
  expect(result.tool_use_id).toBe(use.id);
  expect(result.is_error ?? false).toBe(false);
  expect(resultText(result.content)).toContain("weather-for-Paris");

  const texts = all.filter((p): p is Extract<Part, { type: "text" }> => p.type === "text").map((p) => p.text);
  expect(texts.join("\n")).toContain("It is sunny in Paris");
  // Order: the tool_use comes before its result, the result before the final answer.
  const useAt = all.indexOf(use);
  const resultAt = all.indexOf(result);
  const finalAt = all.findIndex((p) => p.type === "text" && p.text.includes("It is sunny in Paris"));
  expect(useAt).toBeLessThan(resultAt);
  expect(resultAt).toBeLessThan(finalAt);
}

async function expectNoRejections(model: string, requests: number): Promise<void> {
  const stats = await mock.stats(model);
  expect(stats.model).toMatchObject({ requests, rejected: 0, rejected_p: 0, queued: 0 });
}

describe("service", () => {
  it("GET /healthz answers 200 {ok: true}", async () => {
    const res = await fetch(api.url("/healthz"));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });
});

describe("API keys", () => {
  it("refuses POST /v1/keys without the admin key, with the JSON error shape", async () => {
    const missing = await api.json("POST", "/v1/keys", { body: { tenant: "nobody" } });
    expect(missing.status).toBe(401);
    expect(isErrorBody(missing.body)).toBe(true);

    const wrong = await api.json("POST", "/v1/keys", { key: "not-the-admin-key", body: { tenant: "nobody" } });
    expect(wrong.status).toBe(401);
    expect(isErrorBody(wrong.body)).toBe(true);
    expect(wrong.headers.get("content-type") ?? "").toContain("application/json");
  });

  it("creates a key for a tenant with the admin key", async () => {
    const res = await api.json<{ id: string; key: string; tenant: string }>("POST", "/v1/keys", {
      key: api.admin,
      body: { tenant: "smoke-keys" },
    });
    expect(res.status).toBe(201);
    expect(res.body.tenant).toBe("smoke-keys");
    expect(typeof res.body.id).toBe("string");
    expect(typeof res.body.key).toBe("string");
    expect(res.body.key.length).toBeGreaterThan(16);
  });
});

describe("a turn with an http tool", () => {
  it("anthropic, JSON mode: tool_use → tool_result from the tool endpoint → text", async () => {
    const { model, session } = await setup("anthropic");
    await mock.script(model, toolThenText);
    const before = tools.calls.length;

    const turn = await api.sendJson(tenantKey, session, { content: "What is the weather in Paris?" });

    expect(turn.status).toBe("completed");
    expect(typeof turn.turn_id).toBe("string");
    expectToolRoundTrip(turn.messages);

    const calls = tools.calls.slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.name).toBe("get_weather");
    expect(calls[0]?.input).toEqual({ city: "Paris" });

    const requests = await mock.requests(model);
    expect(requests.map((r) => r.protocol)).toEqual(["anthropic", "anthropic"]);
    expect(requests.every((r) => r.rejected === null)).toBe(true);
    await expectNoRejections(model, 2);
  });

  it("anthropic, SSE mode: a valid UI message stream with ids, ending in [DONE]", async () => {
    const { model, session } = await setup("anthropic");
    await mock.script(model, toolThenText);

    const res = await api.send(tenantKey, session, { content: "What is the weather in Paris?" });
    expect(res.status).toBeGreaterThanOrEqual(200);
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get("content-type") ?? "").toContain("text/event-stream");
    expect(res.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");

    const read = await readSse(res, { abortAfter: 30_000, stopAtDone: false });
    expect(read.end).not.toBe("timeout");
    expect(read.done).toBe(true);
    expect(read.frames.at(-1)?.data).toBe("[DONE]");
    expect(read.frames.filter((f) => f.data === "[DONE]")).toHaveLength(1);

    const dataFrames = read.frames.slice(0, -1);
    expect(dataFrames.length).toBeGreaterThan(0);
    let lastId = -1;
    for (const frame of dataFrames) {
      expect(frame.json, `frame is not JSON: ${frame.data}`).toBeDefined();
      expect(frame.id, `frame without id: ${frame.data}`).not.toBeNull();
      expect(frame.id ?? "").toMatch(/^\d+$/);
      const id = Number(frame.id);
      expect(id).toBeGreaterThan(lastId);
      lastId = id;
      const valid = await chunkSchema.validate?.(frame.json);
      expect(valid?.success, `not an AI SDK UI message chunk: ${frame.data}`).toBe(true);
    }

    const chunks = dataFrames.map((f) => f.json as { type: string; [key: string]: unknown });
    const types = chunks.map((c) => c.type);
    expect(types[0]).toBe("start");
    expect(types.at(-1)).toBe("finish");
    const input = chunks.find((c) => c.type === "tool-input-available");
    expect(input).toMatchObject({ toolName: "get_weather", input: { city: "Paris" } });
    const output = chunks.find((c) => c.type === "tool-output-available");
    expect(output?.toolCallId).toBe(input?.toolCallId);
    expect(JSON.stringify(output?.output)).toContain("weather-for-Paris");
    const text = chunks
      .filter((c) => c.type === "text-delta")
      .map((c) => String(c.delta))
      .join("");
    expect(text).toContain("It is sunny in Paris");

    // The stream and the stored history agree.
    const history = await api.history(tenantKey, session);
    expectToolRoundTrip(history.messages);
    await expectNoRejections(model, 2);
  });

  it("openai protocol, JSON mode: the same round trip over Chat Completions", async () => {
    const { model, session } = await setup("openai");
    await mock.script(model, toolThenText);

    const turn = await api.sendJson(tenantKey, session, { content: "What is the weather in Paris?" });

    expect(turn.status).toBe("completed");
    expectToolRoundTrip(turn.messages);
    const requests = await mock.requests(model);
    expect(requests.map((r) => `${r.protocol} ${r.path}`)).toEqual([
      "openai /v1/chat/completions",
      "openai /v1/chat/completions",
    ]);
    await expectNoRejections(model, 2);
  });
});

describe("isolation and bad input", () => {
  it("another tenant's key gets 404 for the session", async () => {
    const { session } = await setup("anthropic");
    const otherKey = (await api.createKey(`smoke-other-${Date.now()}`)).key;

    const read = await api.getSession(otherKey, session);
    expect(read.status).toBe(404);
    expect(isErrorBody(read.body)).toBe(true);

    const send = await api.send(otherKey, session, { content: "hello?" }, { json: true });
    expect(send.status).toBe(404);
    expect(isErrorBody(await send.json())).toBe(true);

    // The owner still sees it.
    expect((await api.getSession(tenantKey, session)).status).toBe(200);
  });

  it("a malformed JSON body is 400 invalid_json and starts no turn", async () => {
    const { model, session } = await setup("anthropic");

    const res = await api.send(tenantKey, session, '{"content": "hi"', { json: true });
    expect(res.status).toBe(400);
    const body: unknown = await res.json();
    expect(isErrorBody(body)).toBe(true);
    expect(body).toMatchObject({ error: { code: "invalid_json" } });

    expect((await api.history(tenantKey, session)).messages).toHaveLength(0);
    expect(await mock.requests(model)).toHaveLength(0);
  });
});
