// Tool disclosure (DESIGN §5) end to end in real workerd: deferred `http` tools found with tool_search, loaded and
// called, for each projection (Anthropic defer_loading + tool_reference; OpenAI message-level tools; plain OpenAI
// tools[]). The mock validates every wire body; these tests read the bodies it recorded and the public API.
import { beforeAll, describe, expect, inject, it } from "vitest";
import {
  type AgentConfig,
  type AgentTool,
  Api,
  type HistoryMessage,
  Mock,
  type RequestRecord,
  type Step,
  uniqueModel,
} from "../helpers/index.ts";

const api = new Api(inject("baseUrl"), inject("adminKey"));
const mock = new Mock(inject("mockUrl"));
const TOOL_URL = `${mock.url}/_tool`;

type Projection = "anthropic" | "message_level" | "plain";
type Json = Record<string, unknown>;

let tenantKey: string;

beforeAll(async () => {
  tenantKey = (await api.createKey(`disclosure-${Date.now()}`)).key;
});

function tool(name: string, description: string, properties: Json, required: string[], defer: boolean): AgentTool {
  return {
    name,
    description,
    input_schema: { type: "object", properties, required, additionalProperties: false },
    defer,
    execution: { type: "http", url: TOOL_URL },
  };
}

const CORE = tool(
  "get_time",
  "Current date and time in a time zone.",
  { timezone: { type: "string", description: "IANA time zone, e.g. Europe/Paris" } },
  ["timezone"],
  false,
);

const DEFERRED: AgentTool[] = [
  tool(
    "get_weather",
    "Current weather and a three-day forecast for a city.",
    {
      city: { type: "string", description: "City name" },
      units: { type: "string", enum: ["metric", "imperial"], description: "Unit system" },
    },
    ["city"],
    true,
  ),
  tool(
    "get_stock_price",
    "Latest trading price of a stock by its ticker symbol.",
    { symbol: { type: "string", description: "Ticker symbol, e.g. ACME" } },
    ["symbol"],
    true,
  ),
  tool(
    "send_email",
    "Send an email message to a recipient.",
    {
      to: { type: "string", description: "Recipient address" },
      subject: { type: "string", description: "Subject line" },
      body: { type: "string", description: "Plain-text body" },
    },
    ["to", "subject", "body"],
    true,
  ),
  tool(
    "create_calendar_event",
    "Create an event in the user's calendar.",
    {
      title: { type: "string", description: "Event title" },
      start: { type: "string", description: "Start time, RFC 3339" },
      duration_minutes: { type: "integer", minimum: 1, description: "Length in minutes" },
    },
    ["title", "start"],
    true,
  ),
  tool(
    "search_flights",
    "Search for airline flights between two airports on a date.",
    {
      origin: { type: "string", description: "IATA code of the departure airport" },
      destination: { type: "string", description: "IATA code of the arrival airport" },
      date: { type: "string", description: "Departure date, YYYY-MM-DD" },
    },
    ["origin", "destination", "date"],
    true,
  ),
  tool(
    "translate_text",
    "Translate text from one language into another.",
    {
      text: { type: "string", description: "Text to translate" },
      target_language: { type: "string", description: "ISO 639-1 code of the target language" },
    },
    ["text", "target_language"],
    true,
  ),
];
const DEFERRED_NAMES = DEFERRED.map((t) => t.name);
const WEATHER = DEFERRED[0]!;
const BUILTINS = ["tool_search", "tool_info", "select_tools"];

function agentFor(projection: Projection, model: string): AgentConfig {
  return {
    model:
      projection === "anthropic"
        ? { provider: "anthropic", name: model }
        : { provider: "openai", name: model, capabilities: { message_level_tools: projection === "message_level" } },
    system: "You are a helpful assistant with many tools.",
    tools: [CORE, ...DEFERRED],
  };
}

async function setup(projection: Projection): Promise<{ model: string; session: string }> {
  const model = uniqueModel(`disclosure-${projection.replace("_", "-")}`);
  const agent = `agent-${model}`;
  await api.putAgent(agent, agentFor(projection, model));
  const session = (await api.createSession(tenantKey, agent)).id;
  return { model, session };
}

/** tool_search (keywords, one result) → the found tool → a text answer. */
function searchThenCall(prefix: string): Step[] {
  return [
    {
      reply: {
        tool_calls: [
          {
            id: `${prefix}_search`,
            name: "tool_search",
            input: { query: "weather forecast for a city", max_results: 1 },
          },
        ],
      },
    },
    { reply: { tool_calls: [{ id: `${prefix}_weather`, name: "get_weather", input: { city: "Paris" } }] } },
    { reply: { text: "It is sunny in Paris." } },
  ];
}

/**
 * A declared schema carries the tool's own parameters: same property names (with their descriptions), same required
 * list. Value positions may be widened to also accept `{"$tool", "$path"}` references (DESIGN §5), so the
 * comparison is not byte for byte.
 */
function expectParametersOf(declared: unknown, original: AgentTool): void {
  if (!isJson(declared)) throw new Error("declared schema is not an object");
  const own = original.input_schema;
  expect(declared.type).toBe("object");
  expect(isJson(declared.properties) ? Object.keys(declared.properties) : []).toEqual(
    isJson(own.properties) ? Object.keys(own.properties) : [],
  );
  expect(declared.required).toEqual(own.required);
  const text = JSON.stringify(declared);
  for (const property of Object.values(isJson(own.properties) ? own.properties : {})) {
    if (isJson(property) && typeof property.description === "string") expect(text).toContain(property.description);
  }
}

/** Exactly one Chat Completions function declaration, for `original`. */
function expectWireDeclaration(declared: Json[], original: AgentTool): void {
  expect(declared).toHaveLength(1);
  const wire = declared[0];
  expect(wire?.type).toBe("function");
  const fn = isJson(wire?.function) ? wire.function : {};
  expect(fn.name).toBe(original.name);
  expect(fn.description).toBe(original.description);
  expectParametersOf(fn.parameters, original);
}

function isJson(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isJson) : [];
}

function body(record: RequestRecord | undefined): Json {
  if (!isJson(record?.body)) throw new Error("the mock recorded no JSON body");
  return record.body;
}

/** Tool names in a wire tools[] (Anthropic: name; OpenAI: function.name). */
function toolNames(tools: unknown): string[] {
  return records(tools).map((t) => {
    if (typeof t.name === "string") return t.name;
    const fn = t.function;
    return isJson(fn) && typeof fn.name === "string" ? fn.name : "?";
  });
}

interface ResultPart {
  type: "tool_result";
  tool_use_id: string;
  content: unknown;
  is_error?: boolean;
}

function resultParts(messages: HistoryMessage[]): ResultPart[] {
  const out: ResultPart[] = [];
  for (const m of messages) {
    for (const p of m.parts as unknown[]) {
      if (isJson(p) && p.type === "tool_result" && typeof p.tool_use_id === "string") {
        out.push({
          type: "tool_result",
          tool_use_id: p.tool_use_id,
          content: p.content,
          ...(typeof p.is_error === "boolean" ? { is_error: p.is_error } : {}),
        });
      }
    }
  }
  return out;
}

function resultFor(messages: HistoryMessage[], toolUseId: string): ResultPart {
  const found = resultParts(messages).find((p) => p.tool_use_id === toolUseId);
  if (!found) throw new Error(`no tool_result for ${toolUseId}`);
  return found;
}

/** The text of a tool_result's content (string, or its text blocks joined). */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  return records(content)
    .map((b) => (b.type === "text" && typeof b.text === "string" ? b.text : ""))
    .join("");
}

async function loadedTools(session: string): Promise<string[]> {
  const res = await api.getSession(tenantKey, session);
  expect(res.status).toBe(200);
  const state = res.body;
  if (!isJson(state) || !Array.isArray(state.loaded_tools)) throw new Error("session has no loaded_tools list");
  return state.loaded_tools.filter((n): n is string => typeof n === "string");
}

async function expectNoRejections(model: string, requests: number): Promise<RequestRecord[]> {
  const recorded = await mock.requests(model);
  expect(recorded.filter((r) => r.rejected !== null).map((r) => r.rejected?.message)).toEqual([]);
  expect(recorded).toHaveLength(requests);
  const stats = await mock.stats(model);
  expect(stats.model).toMatchObject({ requests, rejected: 0, rejected_p: 0, queued: 0 });
  return recorded;
}

/** Runs the search → call → answer turn and checks what every projection shares; returns the three wire bodies. */
async function searchCallAnswer(projection: Projection, prefix: string): Promise<{ bodies: Json[]; session: string }> {
  const { model, session } = await setup(projection);
  await mock.script(model, searchThenCall(prefix));

  const turn = await api.sendJson(tenantKey, session, { content: "What is the weather in Paris?" });
  expect(turn.error).toBeUndefined();
  expect(turn.status).toBe("completed");

  // tool_search found the deferred tool by keywords…
  const search = resultFor(turn.messages, `${prefix}_search`);
  expect(search.is_error ?? false).toBe(false);
  const answer: unknown = JSON.parse(contentText(search.content));
  expect(isJson(answer) ? toolNames(answer.matches) : []).toEqual(["get_weather"]);
  // …the model called it, and the tool endpoint (the mock's /_tool echo) ran it.
  const call = resultFor(turn.messages, `${prefix}_weather`);
  expect(call.is_error ?? false).toBe(false);
  const echoed: unknown = JSON.parse(contentText(call.content));
  expect(echoed).toMatchObject({
    echo: { tool_use_id: `${prefix}_weather`, name: "get_weather", input: { city: "Paris" } },
  });
  const texts = turn.messages.flatMap((m) => m.parts).filter((p) => p.type === "text");
  expect(texts.map((p) => (p.type === "text" ? p.text : "")).join("")).toContain("It is sunny in Paris.");

  expect(await loadedTools(session)).toEqual(["get_weather"]);
  const recorded = await expectNoRejections(model, 3);
  return { bodies: recorded.map(body), session };
}

describe("tool_search → deferred tool → answer, per projection", () => {
  it("anthropic: defer_loading on deferred tools, tool_reference in the result, tools[] and system byte-stable", async () => {
    const { bodies } = await searchCallAnswer("anthropic", "toolu_anth");

    const tools = records(bodies[0]?.tools);
    expect(toolNames(tools)).toEqual([CORE.name, ...BUILTINS, ...DEFERRED_NAMES]);
    for (const t of tools) {
      if (DEFERRED_NAMES.includes(String(t.name))) {
        expect(t.defer_loading, String(t.name)).toBe(true);
        expect(t, String(t.name)).not.toHaveProperty("cache_control");
      } else {
        expect(t, String(t.name)).not.toHaveProperty("defer_loading");
      }
    }
    // The deferred tool is declared with the agent's own description and parameters.
    const weather = tools.find((t) => t.name === "get_weather");
    expect(weather?.description).toBe(WEATHER.description);
    expectParametersOf(weather?.input_schema, WEATHER);

    // Every step sends the very same tools[] and system bytes (the prompt-cache prefix).
    expect(new Set(bodies.map((b) => JSON.stringify(b.tools))).size).toBe(1);
    expect(new Set(bodies.map((b) => JSON.stringify(b.system))).size).toBe(1);
    const system = JSON.stringify(bodies[0]?.system);
    expect(system).toContain("<deferred_tools>");
    for (const name of DEFERRED_NAMES) expect(system).toContain(`- ${name}: `);

    // Step 2 carries the tool_search result with a tool_reference naming the found tool.
    const lastUser = records(bodies[1]?.messages).at(-1);
    expect(lastUser?.role).toBe("user");
    const result = records(lastUser?.content).find((b) => b.type === "tool_result");
    expect(result?.tool_use_id).toBe("toolu_anth_search");
    const references = records(result?.content).filter((b) => b.type === "tool_reference");
    expect(references).toEqual([{ type: "tool_reference", tool_name: "get_weather" }]);
  });

  it("openai with message_level_tools: tools[] never changes; the loaded schema arrives as a system message", async () => {
    const { bodies } = await searchCallAnswer("message_level", "call_mlt");

    expect(new Set(bodies.map((b) => JSON.stringify(b.tools))).size).toBe(1);
    expect(toolNames(bodies[0]?.tools)).toEqual([CORE.name, ...BUILTINS]);
    // The system prompt (first message) is byte-stable too.
    expect(new Set(bodies.map((b) => JSON.stringify(records(b.messages)[0]))).size).toBe(1);

    const declarations = (b: Json | undefined) =>
      records(b?.messages).filter((m) => m.role === "system" && Array.isArray(m.tools));
    expect(declarations(bodies[0])).toEqual([]);
    for (const step of [1, 2]) {
      const found = declarations(bodies[step]);
      expect(found, `step ${step + 1}`).toHaveLength(1);
      const message = found[0];
      expect(message).not.toHaveProperty("content");
      expectWireDeclaration(records(message?.tools), WEATHER);
    }
    // It follows the tool message that answered tool_search.
    const messages = records(bodies[1]?.messages);
    const at = messages.findIndex((m) => m.role === "system" && Array.isArray(m.tools));
    expect(messages[at - 1]).toMatchObject({ role: "tool", tool_call_id: "call_mlt_search" });
  });

  it("plain openai: tools[] grows by exactly the loaded tool, appended at the end", async () => {
    const { bodies } = await searchCallAnswer("plain", "call_plain");

    const first = records(bodies[0]?.tools);
    const second = records(bodies[1]?.tools);
    expect(toolNames(first)).toEqual([CORE.name, ...BUILTINS]);
    expect(second).toHaveLength(first.length + 1);
    // The previous declarations are kept byte for byte; the new one comes last.
    expect(JSON.stringify(second.slice(0, first.length))).toBe(JSON.stringify(first));
    expectWireDeclaration(second.slice(first.length), WEATHER);
    expect(JSON.stringify(bodies[2]?.tools)).toBe(JSON.stringify(bodies[1]?.tools));
    // No message-level declarations in this projection.
    for (const b of bodies) expect(records(b.messages).some((m) => Array.isArray(m.tools))).toBe(false);
  });
});

describe("a deferred tool called before it is loaded", () => {
  it("with valid arguments runs and gets loaded; with invalid ones says how to load it and records tool_call_invalid", async () => {
    const { model, session } = await setup("anthropic");
    await mock.script(model, [
      { reply: { tool_calls: [{ id: "toolu_direct_ok", name: "get_stock_price", input: { symbol: "ACME" } }] } },
      { reply: { text: "ACME trades at 42." } },
      { reply: { tool_calls: [{ id: "toolu_direct_bad", name: "send_email", input: { to: 42 } }] } },
      { reply: { text: "I could not send it." } },
    ]);

    // Valid arguments: the call runs (the endpoint echoes it) and the tool joins the loaded set.
    const ok = await api.sendJson(tenantKey, session, { content: "What does ACME trade at?" });
    expect(ok.status).toBe("completed");
    const okResult = resultFor(ok.messages, "toolu_direct_ok");
    expect(okResult.is_error ?? false).toBe(false);
    expect(JSON.parse(contentText(okResult.content))).toMatchObject({
      echo: { name: "get_stock_price", input: { symbol: "ACME" } },
    });
    expect(await loadedTools(session)).toEqual(["get_stock_price"]);

    // Invalid arguments: not run, not loaded; the result says the tool exists and how to load it.
    const bad = await api.sendJson(tenantKey, session, { content: "Email Bob." });
    expect(bad.status).toBe("completed");
    const badResult = resultFor(bad.messages, "toolu_direct_bad");
    expect(badResult.is_error).toBe(true);
    const message = contentText(badResult.content);
    expect(message).toContain('Tool "send_email" exists but is not loaded');
    expect(message).toContain('tool_search (query: "select:send_email")');
    expect(message).toContain('select_tools(names: ["send_email"])');
    expect(await loadedTools(session)).toEqual(["get_stock_price"]);

    const { events } = await api.events(tenantKey, session);
    const invalid = records(events).filter((e) => e.type === "tool_call_invalid");
    expect(invalid).toHaveLength(1);
    expect(invalid[0]?.data).toMatchObject({ tool: "send_email", tool_use_id: "toolu_direct_bad" });

    const recorded = await expectNoRejections(model, 4);
    // The model saw both outcomes: the valid call's result names the tool it loaded, the invalid one is an error.
    const secondBody = body(recorded[1]);
    const okWire = records(records(secondBody.messages).at(-1)?.content).find((b) => b.type === "tool_result");
    expect(records(okWire?.content).filter((b) => b.type === "tool_reference")).toEqual([
      { type: "tool_reference", tool_name: "get_stock_price" },
    ]);
    const fourthBody = body(recorded[3]);
    const badWire = records(records(fourthBody.messages).at(-1)?.content).find((b) => b.type === "tool_result");
    expect(badWire?.is_error).toBe(true);
    // tools[] and system stayed the same across both turns.
    expect(new Set(recorded.map((r) => JSON.stringify(body(r).tools))).size).toBe(1);
    expect(new Set(recorded.map((r) => JSON.stringify(body(r).system))).size).toBe(1);
  });
});
