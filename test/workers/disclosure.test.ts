// Tool disclosure in real turns: how each protocol declares deferred tools, tool_search and select_tools loading them,
// tool-set changes, and the loaded set across a wake-up and at the provider's limit.
import { abortAllDurableObjects } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { apiJson, events, history, mockRequests, script, send, setup } from "./helpers";

const tool = (name: string, description: string, defer = true, extra: Record<string, unknown> = {}) => ({
  name,
  description,
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  defer,
  execution: { type: "http", url: `${env.MOCK_URL}/_tool` },
  ...extra,
});

const TOOLS = [
  tool("echo_core", "Echo text back", false),
  tool("get_weather", "Current weather and forecast for a city"),
  tool("get_stock_price", "Latest stock price for a ticker symbol"),
  tool("send_email", "Send an email to a recipient"),
];

/** A deferred client tool: its results come from the client, which cannot add a tool_reference. */
const pickFile = {
  name: "pick_file",
  description: "Let the user pick a file",
  input_schema: { type: "object", properties: { path: { type: "string" } } },
  defer: true,
  execution: { type: "client" },
};

type Body = Record<string, unknown> & {
  tools?: Array<Record<string, unknown>>;
  messages: Array<Record<string, unknown>>;
};

function searchThenCall(id: string) {
  return [
    { reply: { tool_calls: [{ id: `${id}_s`, name: "tool_search", input: { query: "weather forecast" } }] } },
    { reply: { tool_calls: [{ id: `${id}_w`, name: "get_weather", input: { city: "Paris" } }] } },
    { reply: { text: "It is sunny." } },
  ];
}

describe("Anthropic projection", () => {
  it("declares deferred tools with defer_loading, answers tool_search with tool_reference, keeps tools[] byte-stable", async () => {
    const s = await setup({ tools: TOOLS });
    await script(s.model, searchThenCall("toolu_a"));
    const res = await send(s, { content: "weather in Paris?" });
    expect(res.body.status).toBe("completed");
    const reqs = await mockRequests(s.model);
    expect(reqs.filter((r) => r.rejected)).toEqual([]);
    expect(reqs).toHaveLength(3);
    const bodies = reqs.map((r) => r.body as Body);
    const toolsBytes = bodies.map((b) => JSON.stringify(b.tools));
    expect(new Set(toolsBytes).size).toBe(1);
    expect(new Set(bodies.map((b) => JSON.stringify(b.system))).size).toBe(1);
    const tools = bodies[0]?.tools ?? [];
    expect(tools.map((t) => t.name)).toEqual([
      "echo_core",
      "tool_search",
      "tool_info",
      "select_tools",
      "get_weather",
      "get_stock_price",
      "send_email",
    ]);
    for (const t of tools) {
      if (["get_weather", "get_stock_price", "send_email"].includes(t.name as string)) {
        expect(t.defer_loading).toBe(true);
        expect(t).not.toHaveProperty("cache_control");
      } else expect(t).not.toHaveProperty("defer_loading");
    }
    const lastUser = (bodies[1]?.messages ?? []).at(-1) as { content: Array<{ type: string; content: unknown }> };
    const blocks = lastUser.content[0]?.content as Array<{ type: string; tool_name?: string }>;
    expect(blocks.filter((b) => b.type === "tool_reference").map((b) => b.tool_name)).toEqual(["get_weather"]);
    const state = await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.loaded_tools).toEqual(["get_weather"]);
    expect((await events(s)).filter((e) => e.type === "tools_loaded").map((e) => e.data.names)).toEqual([
      ["get_weather"],
    ]);
  });

  it("lists deferred tools in the system prompt and never sends an all-deferred tools[]", async () => {
    const s = await setup({ tools: TOOLS.slice(1) });
    await script(s.model, [{ reply: { text: "ok" } }]);
    await send(s, { content: "hi" });
    const body = (await mockRequests(s.model))[0]?.body as Body;
    const system = JSON.stringify(body.system);
    expect(system).toContain("get_weather: Current weather and forecast for a city");
    expect((body.tools ?? []).some((t) => !t.defer_loading)).toBe(true);
  });
});

describe("OpenAI projections", () => {
  it("message-level tools: tools[] never changes; loaded schemas arrive as a system message with tools", async () => {
    const s = await setup({ tools: TOOLS }, "openai");
    // Reconfigure the agent for a Kimi-style model that accepts messages[].tools.
    await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: "test-admin-key",
      json: { model: { provider: "openai", name: s.model, capabilities: { message_level_tools: true } }, tools: TOOLS },
    });
    await script(s.model, searchThenCall("call_m"));
    const res = await send(s, { content: "weather in Paris?" });
    expect(res.body.error).toBeUndefined();
    expect(res.body.status).toBe("completed");
    const reqs = await mockRequests(s.model);
    expect(reqs.filter((r) => r.rejected)).toEqual([]);
    const bodies = reqs.map((r) => r.body as Body);
    expect(new Set(bodies.map((b) => JSON.stringify(b.tools))).size).toBe(1);
    const names = (bodies[0]?.tools ?? []).map((t) => (t.function as { name: string }).name);
    expect(names).toEqual(["echo_core", "tool_search", "tool_info", "select_tools"]);
    const declared = bodies[1]?.messages.find((m) => m.role === "system" && Array.isArray(m.tools)) as
      | { tools: Array<{ function: { name: string } }>; content?: unknown }
      | undefined;
    expect(declared?.tools.map((t) => t.function.name)).toEqual(["get_weather"]);
    expect(declared).not.toHaveProperty("content");
  });

  it("message-level tools: a loaded tool whose schema changed is declared again at the next turn", async () => {
    const s = await setup({ tools: TOOLS }, "openai");
    const put = (tools: unknown[]) =>
      apiJson(`/v1/agents/${s.agent}`, {
        method: "PUT",
        key: "test-admin-key",
        json: { model: { provider: "openai", name: s.model, capabilities: { message_level_tools: true } }, tools },
      });
    await put(TOOLS);
    await script(s.model, searchThenCall("call_redecl"));
    await send(s, { content: "weather in Paris?" });
    const changed = TOOLS.map((t) =>
      t.name === "get_weather"
        ? {
            ...t,
            input_schema: {
              type: "object",
              properties: { lat: { type: "number" }, lon: { type: "number" } },
              required: ["lat", "lon"],
            },
          }
        : t,
    );
    await put(changed);
    await script(s.model, [{ reply: { text: "ok" } }, { reply: { text: "still ok" } }]);
    await send(s, { content: "and now?" });
    await send(s, { content: "quiet turn" });
    const reqs = await mockRequests(s.model);
    const declarations = (b: Body) =>
      b.messages
        .filter((m) => m.role === "system" && Array.isArray(m.tools))
        .flatMap((m) => m.tools as Array<{ function: { name: string; parameters: { properties: object } } }>);
    const last = declarations(reqs.at(-2)?.body as Body).filter((d) => d.function.name === "get_weather");
    expect(last.map((d) => Object.keys(d.function.parameters.properties))).toEqual([["city"], ["lat", "lon"]]);
    // Declared once: the quiet turn after it adds no further declaration.
    expect(declarations(reqs.at(-1)?.body as Body).filter((d) => d.function.name === "get_weather")).toHaveLength(2);
    expect(reqs.filter((r) => r.rejected)).toEqual([]);
  });

  it("plain Chat Completions: loaded schemas are appended to tools[]", async () => {
    const s = await setup({ tools: TOOLS }, "openai");
    await script(s.model, searchThenCall("call_p"));
    expect((await send(s, { content: "weather in Paris?" })).body.status).toBe("completed");
    const bodies = (await mockRequests(s.model)).map((r) => r.body as Body);
    const names = bodies.map((b) => (b.tools ?? []).map((t) => (t.function as { name: string }).name));
    expect(names[0]).toEqual(["echo_core", "tool_search", "tool_info", "select_tools"]);
    expect(names[1]).toEqual([...(names[0] ?? []), "get_weather"]);
  });
});

describe("deferred tools and built-ins", () => {
  it("a valid call to a deferred tool that is not loaded runs it and loads it", async () => {
    const s = await setup({ tools: TOOLS });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_direct", name: "get_stock_price", input: { city: "NYSE" } }] } },
      { reply: { text: "done" } },
    ]);
    expect((await send(s, { content: "price?" })).body.status).toBe("completed");
    const result = (await history(s))[2]?.parts[0] as unknown as { is_error: boolean };
    expect(result.is_error).toBe(false);
    const state = await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.loaded_tools).toEqual(["get_stock_price"]);
    expect((await mockRequests(s.model)).filter((r) => r.rejected)).toEqual([]);
  });

  it("an invalid call to a deferred tool that is not loaded says it exists and how to load it", async () => {
    const s = await setup({ tools: TOOLS });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_bad", name: "send_email", input: { to: 42 } }] } },
      { reply: { text: "sorry" } },
    ]);
    await send(s, { content: "mail" });
    const result = (await history(s))[2]?.parts[0] as unknown as { is_error: boolean; content: string };
    expect(result.is_error).toBe(true);
    expect(result.content).toContain('Tool "send_email" exists but is not loaded');
    expect(result.content).toContain("select:send_email");
    expect(result.content).toContain('tool_info(name: "send_email", include_schema: true)');
    const invalid = (await events(s)).filter((e) => e.type === "tool_call_invalid");
    expect(invalid).toHaveLength(1);
    expect(
      (await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key })).body.loaded_tools,
    ).toEqual([]);
  });

  it("select_tools answers per name: loaded, already available, unknown", async () => {
    const s = await setup({ tools: TOOLS });
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "toolu_sel", name: "select_tools", input: { names: ["send_email", "echo_core", "nope"] } },
          ],
        },
      },
      { reply: { text: "ok" } },
    ]);
    await send(s, { content: "load" });
    const result = (await history(s))[2]?.parts[0] as unknown as { content: Array<{ type: string; text?: string }> };
    expect(JSON.parse(result.content[0]?.text ?? "{}")).toEqual({
      send_email: "loaded",
      echo_core: "already available",
      nope: "unknown",
    });
  });

  it("tool_search refuses max_results outside 1..20 instead of clamping", async () => {
    const s = await setup({ tools: TOOLS });
    await script(s.model, [
      {
        reply: { tool_calls: [{ id: "toolu_max", name: "tool_search", input: { query: "weather", max_results: 50 } }] },
      },
      { reply: { text: "ok" } },
    ]);
    await send(s, { content: "search" });
    const result = (await history(s))[2]?.parts[0] as unknown as { is_error: boolean; content: string };
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("max_results");
  });

  it("with tool_search disabled every tool is declared eagerly and no built-in appears", async () => {
    const s = await setup({ tools: TOOLS, disclosure: { tool_search: false } });
    await script(s.model, [{ reply: { text: "ok" } }]);
    await send(s, { content: "hi" });
    const body = (await mockRequests(s.model))[0]?.body as Body;
    expect((body.tools ?? []).map((t) => t.name)).toEqual([
      "echo_core",
      "get_weather",
      "get_stock_price",
      "send_email",
    ]);
    expect((body.tools ?? []).some((t) => t.defer_loading)).toBe(false);
    expect(JSON.stringify(body.system ?? "")).not.toContain("deferred_tools");
  });

  it("clear empties the loaded set", async () => {
    const s = await setup({ tools: TOOLS });
    await script(s.model, searchThenCall("toolu_c"));
    await send(s, { content: "weather" });
    await apiJson(`/v1/sessions/${s.session}/clear`, { method: "POST", key: s.key });
    const state = await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.loaded_tools).toEqual([]);
  });
});

describe("tool-set changes", () => {
  it("announces an added and a removed tool once at the next turn boundary, and drops the removed tool's loaded state", async () => {
    const s = await setup({ tools: TOOLS });
    await script(s.model, [...searchThenCall("toolu_n"), { reply: { text: "second" } }, { reply: { text: "third" } }]);
    await send(s, { content: "weather" });
    const changed = [...TOOLS.filter((t) => t.name !== "get_weather"), tool("book_flight", "Book a flight")];
    await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: "test-admin-key",
      json: { model: { provider: "anthropic", name: s.model }, system: "You are a test agent.", tools: changed },
    });
    await send(s, { content: "next" });
    await send(s, { content: "quiet turn" });
    const msgs = await history(s);
    const notices = msgs.flatMap((m) => m.parts).filter((p) => p.type === "notice" && p.kind === "tools_changed");
    expect(notices).toHaveLength(1);
    expect(notices[0]?.text).toContain("<tools_added>book_flight</tools_added>");
    expect(notices[0]?.text).toContain("<tools_removed>get_weather</tools_removed>");
    const state = await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.loaded_tools).toEqual([]);
    const reqs = await mockRequests(s.model);
    expect(reqs.filter((r) => r.rejected).map((r) => r.rejected?.message)).toEqual([]);
    // The deferred listing in the system prompt did not change with the tool set.
    expect(new Set(reqs.map((r) => JSON.stringify((r.body as Body).system))).size).toBe(1);
  });
});

/** The loaded set is what the session stored: a wake-up does not read it back from history. */
describe("the loaded set across a wake-up", () => {
  const loadedTools = async (s: Awaited<ReturnType<typeof setup>>) =>
    (await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key })).body.loaded_tools;
  const selectAnswer = async (s: Awaited<ReturnType<typeof setup>>, id: string) => {
    const part = (await history(s))
      .flatMap((m) => m.parts)
      .find((p) => p.type === "tool_result" && p.tool_use_id === id);
    return JSON.stringify(part?.content);
  };

  it("a deferred tool only called with invalid arguments is not loaded after the object restarts", async () => {
    const s = await setup({ tools: TOOLS });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_wake_bad", name: "send_email", input: { city: 42 } }] } },
      { reply: { text: "Could not send." } },
    ]);
    expect((await send(s, { content: "mail it" })).body.status).toBe("completed");
    expect(await loadedTools(s)).toEqual([]);
    await abortAllDurableObjects();
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_wake_sel", name: "select_tools", input: { names: ["send_email"] } }] } },
      { reply: { text: "Loaded." } },
    ]);
    expect((await send(s, { content: "load it" })).body.status).toBe("completed");
    // Loaded now, by this call, with the reference that shows the model its schema.
    expect(await selectAnswer(s, "toolu_wake_sel")).toContain("tool_reference");
    expect(await loadedTools(s)).toEqual(["send_email"]);
  });

  it("a tool dropped when the agent lost it stays unloaded after it is added back and the object restarts", async () => {
    const s = await setup({ tools: TOOLS });
    await script(s.model, searchThenCall("toolu_wake_w"));
    await send(s, { content: "weather" });
    expect(await loadedTools(s)).toEqual(["get_weather"]);
    const put = (tools: unknown[]) =>
      apiJson(`/v1/agents/${s.agent}`, {
        method: "PUT",
        key: "test-admin-key",
        json: { model: { provider: "anthropic", name: s.model }, system: "You are a test agent.", tools },
      });
    await put(TOOLS.filter((t) => t.name !== "get_weather"));
    await script(s.model, [{ reply: { text: "without it" } }, { reply: { text: "with it again" } }]);
    await send(s, { content: "next" });
    await put(TOOLS);
    await send(s, { content: "and again" });
    expect(await loadedTools(s)).toEqual([]);
    await abortAllDurableObjects();
    await script(s.model, [{ reply: { text: "after the restart" } }]);
    expect((await send(s, { content: "after a restart" })).body.status).toBe("completed");
    expect(await loadedTools(s)).toEqual([]);
  });
});

/** What the model is told about loading tools names only what this agent offers. */
describe("the deferred-tools listing and hints", () => {
  it("with select_tools and tool_info off, names neither, in the listing or in an invalid call's answer", async () => {
    const s = await setup({ tools: TOOLS, disclosure: { select_tools: false, tool_info: false } });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_hint_bad", name: "send_email", input: { to: 42 } }] } },
      { reply: { text: "sorry" } },
    ]);
    await send(s, { content: "mail" });
    const system = JSON.stringify(((await mockRequests(s.model))[0]?.body as Body | undefined)?.system);
    expect(system).toContain("<deferred_tools>");
    expect(system).not.toContain("select_tools");
    const result = (await history(s))
      .flatMap((m) => m.parts)
      .find((p) => p.type === "tool_result" && p.tool_use_id === "toolu_hint_bad") as unknown as { content: string };
    expect(result.content).toContain("select:send_email");
    expect(result.content).not.toContain("select_tools");
    expect(result.content).not.toContain("tool_info");
  });

  it("is left out once no tool is deferred, as the built-ins that load them are", async () => {
    const s = await setup({ tools: TOOLS });
    await script(s.model, [{ reply: { text: "first" } }, { reply: { text: "second" } }]);
    await send(s, { content: "one" });
    await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: "test-admin-key",
      json: {
        model: { provider: "anthropic", name: s.model },
        system: "You are a test agent.",
        tools: TOOLS.map((t) => ({ ...t, defer: false })),
      },
    });
    await send(s, { content: "two" });
    const [before, after] = (await mockRequests(s.model)).map((r) => r.body as Body);
    expect(JSON.stringify(before?.system)).toContain("<deferred_tools>");
    expect(JSON.stringify(after?.system)).not.toContain("<deferred_tools>");
    expect((after?.tools ?? []).map((t) => t.name)).not.toContain("tool_search");
  });
});

describe("a deferred client tool called directly", () => {
  it("on Anthropic stays unloaded (its result cannot carry the reference), so select_tools loads it with one", async () => {
    const s = await setup({ tools: [TOOLS[0], pickFile] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_pick_1", name: "pick_file", input: { path: "a.txt" } }] } },
      { reply: { tool_calls: [{ id: "toolu_pick_sel", name: "select_tools", input: { names: ["pick_file"] } }] } },
      { reply: { text: "Done." } },
    ]);
    expect((await send(s, { content: "pick a file" })).body.status).toBe("awaiting_tool_results");
    const answered = await apiJson<{ status: string }>(`/v1/sessions/${s.session}/tool-results`, {
      method: "POST",
      key: s.key,
      json: { results: [{ tool_use_id: "toolu_pick_1", content: "picked a.txt" }] },
      headers: { accept: "application/json" },
    });
    expect(answered.body.status).toBe("completed");
    const selected = (await history(s))
      .flatMap((m) => m.parts)
      .find((p) => p.type === "tool_result" && p.tool_use_id === "toolu_pick_sel");
    expect(JSON.stringify(selected?.content)).toContain('"tool_reference"');
    const state = await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.loaded_tools).toEqual(["pick_file"]);
  });
});

describe("an Anthropic model without tool search (native_tool_search: false)", () => {
  it("gets loaded schemas in tools[], no defer_loading and no tool_reference, and the turn completes", async () => {
    const s = await setup({ tools: TOOLS });
    await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: "test-admin-key",
      json: {
        model: { provider: "anthropic", name: s.model, capabilities: { native_tool_search: false } },
        tools: TOOLS,
      },
    });
    await script(s.model, searchThenCall("toolu_plain"));
    expect((await send(s, { content: "weather in Paris?" })).body.status).toBe("completed");
    const reqs = await mockRequests(s.model);
    expect(reqs.filter((r) => r.rejected)).toEqual([]);
    const bodies = reqs.map((r) => r.body as Body);
    expect(bodies.map((b) => (b.tools ?? []).map((t) => t.name))).toEqual([
      ["echo_core", "tool_search", "tool_info", "select_tools"],
      ["echo_core", "tool_search", "tool_info", "select_tools", "get_weather"],
      ["echo_core", "tool_search", "tool_info", "select_tools", "get_weather"],
    ]);
    const wire = JSON.stringify(bodies);
    expect(wire).not.toContain("defer_loading");
    expect(wire).not.toContain('"tool_reference"');
  });
});

describe("the plain projection's tools[] at the provider's limit", () => {
  const many = Array.from({ length: 150 }, (_, i) => tool(`lookup_${i}`, `Lookup number ${i}`));
  const names = many.map((t) => t.name);
  /** A session on plain Chat Completions that has loaded 140 tools, 20 per step. */
  async function loadedMany() {
    const s = await setup({ tools: [TOOLS[0], ...many] }, "openai");
    const steps = Array.from({ length: 7 }, (_, k) => ({
      reply: {
        tool_calls: [{ id: `call_cap_${k}`, name: "select_tools", input: { names: names.slice(k * 20, k * 20 + 20) } }],
      },
    }));
    await script(s.model, [...steps, { reply: { text: "All loaded." } }]);
    expect((await send(s, { content: "load them all" })).body.status).toBe("completed");
    return s;
  }
  const sizes = async (s: Awaited<ReturnType<typeof setup>>) =>
    (await mockRequests(s.model)).map((r) => ((r.body as Body).tools ?? []).length);
  const loadedTools = async (s: Awaited<ReturnType<typeof setup>>) =>
    (await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key })).body.loaded_tools;
  // With echo_core, 106 core tools: beside them and 3 built-ins, room for 18 loaded tools and the structured_output
  // slot (the most core tools an agent with deferred ones may have, keeping 16 slots to load into, is 108).
  const core = Array.from({ length: 105 }, (_, i) => tool(`fixed_${i}`, `Fixed tool ${i}`, false));
  /** A built-in call's answer (a select_tools call's by default), by the call's id. */
  const selectAnswer = async <T = Record<string, string>>(
    s: Awaited<ReturnType<typeof setup>>,
    id: string,
  ): Promise<T> => {
    const result = (await history(s))
      .flatMap((m) => m.parts)
      .find((p) => p.type === "tool_result" && p.tool_use_id === id);
    const blocks = (result?.content ?? []) as Array<{ type: string; text?: string }>;
    return JSON.parse(blocks[0]?.text ?? "{}");
  };
  /** A session with room for 18 loaded tools that has loaded lookup_0 to lookup_17 (its first turn). */
  async function filledRoom(id: string) {
    const s = await setup({ tools: [TOOLS[0], ...core, ...many] }, "openai");
    await script(s.model, [
      {
        reply: { tool_calls: [{ id: `call_${id}_fill`, name: "select_tools", input: { names: names.slice(0, 18) } }] },
      },
      { reply: { text: "Loaded." } },
    ]);
    expect((await send(s, { content: "fill the room" })).body.status).toBe("completed");
    return s;
  }
  const unloadedNames = async (s: Awaited<ReturnType<typeof setup>>) =>
    (await events(s)).filter((e) => e.type === "tools_unloaded").flatMap((e) => e.data.names);
  const lastToolsSent = async (s: Awaited<ReturnType<typeof setup>>) =>
    (((await mockRequests(s.model)).at(-1)?.body as Body | undefined)?.tools ?? []).map(
      (t) => (t.function as { name: string }).name,
    );

  it("loading past the limit unloads the longest-loaded tools, keeping a slot for structured_output", async () => {
    const s = await loadedMany();
    const reqs = await mockRequests(s.model);
    expect(reqs.filter((r) => r.rejected).map((r) => r.rejected?.message)).toEqual([]);
    expect(Math.max(...(await sizes(s)))).toBe(127);
    const unloaded = (await events(s)).filter((e) => e.type === "tools_unloaded").flatMap((e) => e.data.names);
    // 140 loaded, room for 123 beside 1 core tool, 3 built-ins and a structured_output slot.
    expect(unloaded).toEqual(names.slice(0, 17));
    expect(await loadedTools(s)).toEqual(names.slice(17, 140));
  });

  it("a turn with a json_schema at the limit still fits: structured_output takes the kept slot", async () => {
    const s = await loadedMany();
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_cap_so", name: "structured_output", input: { ok: true } }] } },
    ]);
    const turn = await send(s, {
      content: "answer",
      json_schema: { type: "object", properties: { ok: { type: "boolean" } } },
    });
    expect(turn.body.status).toBe("completed");
    expect((await sizes(s)).at(-1)).toBe(128);
    expect((await mockRequests(s.model)).filter((r) => r.rejected)).toEqual([]);
  });

  it("a call asking for more than tools[] has room for loads what fits, says which not, and unloads none", async () => {
    const s = await setup({ tools: [TOOLS[0], ...core, ...many] }, "openai");
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_room_sel", name: "select_tools", input: { names: names.slice(0, 20) } }] } },
      { reply: { text: "Loaded what fits." } },
    ]);
    expect((await send(s, { content: "load twenty" })).body.status).toBe("completed");
    const full = "not loaded: over the 18 tools tools[] has room for";
    expect(await selectAnswer(s, "call_room_sel")).toEqual({
      ...Object.fromEntries(names.slice(0, 18).map((n) => [n, "loaded"])),
      lookup_18: full,
      lookup_19: full,
    });
    expect(await loadedTools(s)).toEqual(names.slice(0, 18));
    expect((await events(s)).filter((e) => e.type === "tools_unloaded")).toEqual([]);
  });

  it("two select_tools calls of one step load together no more than tools[] has room for, and unload none of each other's", async () => {
    // Room for 18 loaded tools. The two calls ask for 24 between them.
    const s = await setup({ tools: [TOOLS[0], ...core, ...many] }, "openai");
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_step_sel_a", name: "select_tools", input: { names: names.slice(0, 12) } },
            { id: "call_step_sel_b", name: "select_tools", input: { names: names.slice(12, 24) } },
          ],
        },
      },
      { reply: { text: "Loaded what fits." } },
    ]);
    expect((await send(s, { content: "load twenty-four in two calls" })).body.status).toBe("completed");
    const full =
      "not loaded: over the 18 tools tools[] has room for (12 of them kept for tools this step has loaded or named)";
    expect(await selectAnswer(s, "call_step_sel_b")).toEqual({
      ...Object.fromEntries(names.slice(12, 18).map((n) => [n, "loaded"])),
      ...Object.fromEntries(names.slice(18, 24).map((n) => [n, full])),
    });
    expect((await events(s)).filter((e) => e.type === "tools_unloaded")).toEqual([]);
    const said = [await selectAnswer(s, "call_step_sel_a"), await selectAnswer(s, "call_step_sel_b")].flatMap((a) =>
      Object.keys(a).filter((n) => a[n] === "loaded"),
    );
    expect(said).toEqual(names.slice(0, 18));
    expect(await loadedTools(s)).toEqual(names.slice(0, 18));
  });

  it("a direct call to a deferred tool in a step whose select_tools filled the room runs without loading it", async () => {
    // Room for 18 loaded tools, all of them answered "loaded" by the step's select_tools.
    const s = await setup({ tools: [TOOLS[0], ...core, ...many] }, "openai");
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_full_sel", name: "select_tools", input: { names: names.slice(0, 18) } },
            { id: "call_full_direct", name: names[20], input: { city: "Oslo" } },
          ],
        },
      },
      { reply: { text: "Done." } },
    ]);
    expect((await send(s, { content: "fill the room, then call one more" })).body.status).toBe("completed");
    const direct = (await history(s))
      .flatMap((m) => m.parts)
      .find((p) => p.type === "tool_result" && p.tool_use_id === "call_full_direct");
    expect(direct?.is_error).toBe(false);
    expect(JSON.stringify(direct?.content)).not.toContain("tool_reference");
    expect((await events(s)).filter((e) => e.type === "tools_unloaded")).toEqual([]);
    expect(await loadedTools(s)).toEqual(names.slice(0, 18));
  });

  it("a select_tools call naming a loaded tool and a new one keeps the loaded one in tools[]", async () => {
    const s = await filledRoom("keep_one");
    await script(s.model, [
      {
        reply: {
          tool_calls: [{ id: "call_keep_one", name: "select_tools", input: { names: ["lookup_0", "lookup_20"] } }],
        },
      },
      { reply: { text: "Done." } },
    ]);
    expect((await send(s, { content: "one loaded, one new" })).body.status).toBe("completed");
    expect(await selectAnswer(s, "call_keep_one")).toEqual({ lookup_0: "already available", lookup_20: "loaded" });
    // The tool loaded longest ago that the step did not name makes room.
    expect(await unloadedNames(s)).toEqual(["lookup_1"]);
    expect(await lastToolsSent(s)).toEqual(expect.arrayContaining(["lookup_0", "lookup_20"]));
  });

  it("a select_tools call naming a loaded tool keeps it when a later call of the step loads a new one", async () => {
    const s = await filledRoom("keep_two");
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_keep_two_a", name: "select_tools", input: { names: ["lookup_0"] } },
            { id: "call_keep_two_b", name: "select_tools", input: { names: ["lookup_20"] } },
          ],
        },
      },
      { reply: { text: "Done." } },
    ]);
    expect((await send(s, { content: "one loaded, then one new" })).body.status).toBe("completed");
    expect(await selectAnswer(s, "call_keep_two_a")).toEqual({ lookup_0: "already available" });
    expect(await selectAnswer(s, "call_keep_two_b")).toEqual({ lookup_20: "loaded" });
    expect(await unloadedNames(s)).toEqual(["lookup_1"]);
    expect(await lastToolsSent(s)).toEqual(expect.arrayContaining(["lookup_0", "lookup_20"]));
  });

  it("a select_tools call after one that unloaded a tool to make room loads that tool again, not calling it available", async () => {
    const s = await filledRoom("reread");
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_reread_a", name: "select_tools", input: { names: ["lookup_20"] } },
            { id: "call_reread_b", name: "select_tools", input: { names: ["lookup_0"] } },
          ],
        },
      },
      { reply: { text: "Done." } },
    ]);
    expect((await send(s, { content: "one new, then the first again" })).body.status).toBe("completed");
    // The first call's load unloaded lookup_0 (loaded longest ago, not named yet): the second loads it back.
    expect(await selectAnswer(s, "call_reread_b")).toEqual({ lookup_0: "loaded" });
    expect(await unloadedNames(s)).toEqual(["lookup_0", "lookup_1"]);
    expect(await lastToolsSent(s)).toEqual(expect.arrayContaining(["lookup_0", "lookup_20"]));
  });

  it("a select_tools call naming every loaded tool and a new one leaves the new one unloaded, unloading none", async () => {
    const s = await filledRoom("all_named");
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_all_named", name: "select_tools", input: { names: [...names.slice(0, 18), "lookup_20"] } },
          ],
        },
      },
      { reply: { text: "Done." } },
    ]);
    expect((await send(s, { content: "all loaded, one new" })).body.status).toBe("completed");
    expect(await selectAnswer(s, "call_all_named")).toEqual({
      ...Object.fromEntries(names.slice(0, 18).map((n) => [n, "already available"])),
      lookup_20:
        "not loaded: over the 18 tools tools[] has room for (18 of them kept for tools this step has loaded or named)",
    });
    expect(await unloadedNames(s)).toEqual([]);
    expect(await loadedTools(s)).toEqual(names.slice(0, 18));
  });

  it("a tool the step calls directly stays loaded when a later select_tools call of the step loads a new one", async () => {
    const s = await filledRoom("used_direct");
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_used_direct", name: "lookup_0", input: { city: "Oslo" } },
            { id: "call_used_direct_sel", name: "select_tools", input: { names: ["lookup_20"] } },
          ],
        },
      },
      { reply: { text: "Done." } },
    ]);
    expect((await send(s, { content: "call one, load one" })).body.status).toBe("completed");
    expect(await selectAnswer(s, "call_used_direct_sel")).toEqual({ lookup_20: "loaded" });
    // The tool loaded longest ago that the step did not use makes room, not lookup_0, which it called.
    expect(await unloadedNames(s)).toEqual(["lookup_1"]);
    expect(await lastToolsSent(s)).toEqual(expect.arrayContaining(["lookup_0", "lookup_20"]));
  });

  it("a tool_search select: after a direct call answers a new tool not loaded when only the used tools fill the room", async () => {
    const s = await filledRoom("used_full");
    const query = `select:${[...names.slice(1, 18), "lookup_20"].join(",")}`;
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_used_full", name: "lookup_0", input: { city: "Oslo" } },
            { id: "call_used_full_search", name: "tool_search", input: { query } },
          ],
        },
      },
      { reply: { text: "Done." } },
    ]);
    expect((await send(s, { content: "call one, select the rest and one new" })).body.status).toBe("completed");
    const answer = await selectAnswer<{ note?: string }>(s, "call_used_full_search");
    expect(answer.note).toBe(
      "not loaded, over the 18 tools tools[] has room for (18 of them kept for tools this step has loaded or named): " +
        "lookup_20.",
    );
    expect(await unloadedNames(s)).toEqual([]);
    expect(await loadedTools(s)).toEqual(names.slice(0, 18));
  });

  it("an agent change that adds core tools makes room at the next turn, before any request", async () => {
    const s = await loadedMany();
    const core = Array.from({ length: 5 }, (_, i) => tool(`core_extra_${i}`, `Core tool ${i}`, false));
    await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: "test-admin-key",
      json: { model: { provider: "openai", name: s.model }, tools: [TOOLS[0], ...core, ...many] },
    });
    await script(s.model, [{ reply: { text: "Still here." } }]);
    expect((await send(s, { content: "next" })).body.status).toBe("completed");
    expect((await sizes(s)).at(-1)).toBe(127);
    expect((await mockRequests(s.model)).filter((r) => r.rejected)).toEqual([]);
    expect(await loadedTools(s)).toEqual(names.slice(22, 140));
  });
});

describe("a deferred tool whose answer is empty", () => {
  it("called directly on Anthropic (a 204, then its reference), the next steps and turns are accepted", async () => {
    const s = await setup({
      tools: [
        TOOLS[0],
        tool("ping_empty", "Ping that answers nothing", true, {
          execution: { type: "http", url: `${env.MOCK_URL}/_tool?status=204` },
        }),
      ],
    });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_ping", name: "ping_empty", input: { city: "Oslo" } }] } },
      { reply: { text: "Pinged." } },
      { reply: { text: "Still fine." } },
    ]);
    expect((await send(s, { content: "ping" })).body.status).toBe("completed");
    expect((await send(s, { content: "and again?" })).body.status).toBe("completed");
    expect((await mockRequests(s.model)).filter((r) => r.rejected).map((r) => r.rejected?.message)).toEqual([]);
  });
});

describe("a provider change to Anthropic", () => {
  it("defers again a client tool a direct call loaded under the plain projection (its result has no tool_reference), so select_tools loads it with one", async () => {
    const tools = [TOOLS[0], pickFile];
    const s = await setup({ tools }, "openai");
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_pick", name: "pick_file", input: { path: "a.txt" } }] } },
      { reply: { text: "Picked." } },
    ]);
    expect((await send(s, { content: "pick a file" })).body.status).toBe("awaiting_tool_results");
    const answered = await apiJson<{ status: string }>(`/v1/sessions/${s.session}/tool-results`, {
      method: "POST",
      key: s.key,
      json: { results: [{ tool_use_id: "call_pick", content: "picked a.txt" }] },
      headers: { accept: "application/json" },
    });
    expect(answered.body.status).toBe("completed");
    const before = await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(before.body.loaded_tools).toEqual(["pick_file"]);
    const put = await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: "test-admin-key",
      json: { model: { provider: "anthropic", name: s.model }, tools },
    });
    expect(put.status).toBe(200);
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_sel_again", name: "select_tools", input: { names: ["pick_file"] } }] } },
      { reply: { text: "Loaded again." } },
    ]);
    expect((await send(s, { content: "and now?" })).body.status).toBe("completed");
    const unloaded = (await events(s)).filter((e) => e.type === "tools_unloaded");
    expect(unloaded.map((e) => [e.data.reason, e.data.names])).toEqual([["projection", ["pick_file"]]]);
    const selected = (await history(s))
      .flatMap((m) => m.parts)
      .find((p) => p.type === "tool_result" && p.tool_use_id === "toolu_sel_again");
    expect(JSON.stringify(selected?.content)).toContain('"tool_reference"');
    const after = await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(after.body.loaded_tools).toEqual(["pick_file"]);
  });

  it("leaves the tools an Anthropic session loaded with references alone when its object restarts", async () => {
    const s = await setup({ tools: TOOLS });
    await script(s.model, searchThenCall("toolu_keep"));
    expect((await send(s, { content: "weather in Paris?" })).body.status).toBe("completed");
    await abortAllDurableObjects();
    await script(s.model, [{ reply: { text: "Still here." } }]);
    expect((await send(s, { content: "anything else?" })).body.status).toBe("completed");
    expect((await events(s)).filter((e) => e.type === "tools_unloaded")).toEqual([]);
    const state = await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.loaded_tools).toEqual(["get_weather"]);
  });
});
