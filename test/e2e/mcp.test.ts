// MCP servers as tool sources (issue 4), end to end in real workerd (`wrangler dev`) against real MCP server
// processes built with the SDK (test/helpers/mcp-process.ts). The mock model drives every turn and validates
// every wire body; these tests read what it recorded, the MCP servers' request logs and the public API.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Api, type HistoryMessage, Mock, type RequestRecord, type Step, uniqueModel } from "../helpers/index.ts";
import { basicTools } from "../helpers/mcp-presets.ts";
import { type McpProcess, spawnMcpServer } from "../helpers/mcp-process.ts";

const api = new Api(inject("baseUrl"), inject("adminKey"));
const mock = new Mock(inject("mockUrl"));
const SECRET = "Bearer mcp-secret-7f3a";

type Json = Record<string, unknown>;
let tenantKey: string;
const servers: McpProcess[] = [];

beforeAll(async () => {
  tenantKey = (await api.createKey(`mcp-${Date.now()}`)).key;
});

afterAll(async () => {
  for (const s of servers) await s.kill();
});

async function spawn(preset: string, opts: { port?: number; authorization?: string } = {}): Promise<McpProcess> {
  const s = await spawnMcpServer({ preset, ...opts });
  servers.push(s);
  return s;
}

const isJson = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const records = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isJson) : []);

async function setup(
  servers: Array<{ name: string; url: string; headers?: Record<string, string>; defer?: boolean }>,
  extra: Json = {},
) {
  const model = uniqueModel("mcp");
  const agent = `agent-${model}`;
  await api.putAgent(agent, {
    model: { provider: "anthropic", name: model },
    system: "You use MCP tools.",
    tools: [],
    mcp_servers: servers,
    ...extra,
  });
  const session = (await api.createSession(tenantKey, agent)).id;
  return { model, agent, session };
}

function calls(prefix: string, list: Array<[string, Json]>): Step {
  return { reply: { tool_calls: list.map(([name, input], i) => ({ id: `${prefix}_${i}`, name, input })) } };
}

function results(messages: HistoryMessage[]): Map<string, { text: string; content: unknown; is_error: boolean }> {
  const out = new Map<string, { text: string; content: unknown; is_error: boolean }>();
  for (const m of messages) {
    for (const p of m.parts as unknown[]) {
      if (!isJson(p) || p.type !== "tool_result") continue;
      const c = p.content;
      const text =
        typeof c === "string"
          ? c
          : records(c)
              .flatMap((b) => (typeof b.text === "string" ? [b.text] : []))
              .join("\n");
      out.set(String(p.tool_use_id), { text, content: c, is_error: p.is_error === true });
    }
  }
  return out;
}

function notices(messages: HistoryMessage[]): Json[] {
  return messages.flatMap((m) => (m.parts as unknown[]).filter((p): p is Json => isJson(p) && p.type === "notice"));
}

async function loaded(session: string): Promise<string[]> {
  const res = await api.getSession(tenantKey, session);
  const body = res.body;
  return isJson(body) && Array.isArray(body.loaded_tools) ? body.loaded_tools.map(String) : [];
}

/** GET /v1/sessions/{id}'s `mcp_servers`. */
async function serverStates(session: string): Promise<Array<Record<string, unknown>>> {
  const body = (await api.getSession(tenantKey, session)).body;
  return isJson(body) && Array.isArray(body.mcp_servers) ? (body.mcp_servers as Array<Record<string, unknown>>) : [];
}

async function clean(model: string, requests: number): Promise<RequestRecord[]> {
  const recorded = await mock.requests(model);
  expect(recorded.filter((r) => r.rejected !== null).map((r) => r.rejected?.message)).toEqual([]);
  expect(recorded).toHaveLength(requests);
  return recorded;
}

function wireTools(r: RequestRecord | undefined): Json[] {
  return isJson(r?.body) ? records(r.body.tools) : [];
}

describe("MCP tools over Streamable HTTP", () => {
  it("lists, defers, loads, calls (text, structured, isError), with auth headers that reads never echo", async () => {
    const srv = await spawn("basic", { authorization: SECRET });
    const { model, agent, session } = await setup([{ name: "kit", url: srv.url, headers: { authorization: SECRET } }]);
    const read = await api.request("GET", `/v1/agents/${agent}`, { key: api.admin });
    const text = await read.text();
    expect(read.status).toBe(200);
    expect(text).not.toContain("mcp-secret");
    expect(JSON.parse(text).mcp_servers[0]).toMatchObject({ name: "kit", header_names: ["authorization"] });

    await mock.script(model, [
      calls("s1", [["tool_search", { query: "select:mcp__kit__echo" }]]),
      calls("s2", [
        ["mcp__kit__echo", { text: "hello over MCP" }],
        ["mcp__kit__add_numbers", { a: 2, b: 3 }],
        ["mcp__kit__always_fails", {}],
        ["mcp__kit__whoami", {}],
        ["mcp__kit__echo", { text: 42 }],
      ]),
      { reply: { text: "done" } },
    ]);
    const turn = await api.sendJson(tenantKey, session, { content: "use the kit" });
    expect(turn.error).toBeUndefined();
    expect(turn.status).toBe("completed");
    const r = results(turn.messages);
    expect(r.get("s2_0")).toMatchObject({ text: "hello over MCP", is_error: false });
    // Text and structured content are both carried (the text block differs from the JSON).
    expect(r.get("s2_1")?.text).toContain("The sum is 5.");
    expect(r.get("s2_1")?.text).toContain('{"sum":5}');
    expect(r.get("s2_2")).toMatchObject({ text: "the widget service is out of widgets", is_error: true });
    expect(r.get("s2_3")).toMatchObject({ text: SECRET, is_error: false });
    // Arguments are validated against the MCP tool's schema before anything is sent to the server.
    expect(r.get("s2_4")?.is_error).toBe(true);
    expect(r.get("s2_4")?.text).toMatch(/Invalid arguments for "mcp__kit__echo"/);

    const recorded = await clean(model, 3);
    const tools = wireTools(recorded[0]);
    const byName = new Map(tools.map((t) => [String(t.name), t]));
    // whoami asks to always load (_meta["anthropic/alwaysLoad"]); every other MCP tool is deferred.
    expect(byName.get("mcp__kit__whoami")).not.toHaveProperty("defer_loading");
    for (const t of basicTools().filter((t) => t.name !== "whoami")) {
      expect(byName.get(`mcp__kit__${t.name}`)?.defer_loading, t.name).toBe(true);
    }
    expect(JSON.stringify(isJson(recorded[0]?.body) ? recorded[0].body.system : "")).toContain(
      "- mcp__kit__echo: Echo a text back unchanged.",
    );
    expect(await loaded(session)).toEqual(["mcp__kit__echo", "mcp__kit__add_numbers", "mcp__kit__always_fails"]);
    // Every request the MCP server saw carried the configured header; the tool list came from its cache.
    const seen = await srv.requests();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((q) => q.authorization === SECRET)).toBe(true);
    expect(seen.flatMap((q) => q.rpc).filter((m) => m === "tools/list")).toHaveLength(1);
  });

  it("a tool whose schema is written in draft-04 is sent as 2020-12, so the session's requests are not refused", async () => {
    const srv = await spawn("legacy");
    const { model, session } = await setup([{ name: "old", url: srv.url }]);
    await mock.script(model, [{ reply: { text: "fine" } }]);
    const turn = await api.sendJson(tenantKey, session, { content: "plot something" });
    expect(turn.error).toBeUndefined();
    expect(turn.status).toBe("completed");
    const [request] = await clean(model, 1);
    expect(wireTools(request).find((t) => t.name === "mcp__old__plot")).toMatchObject({ defer_loading: true });
  });

  it("reads an answer up to 8 MiB: a larger one fails that call with the reason, and the next call works", async () => {
    const srv = await spawn("basic");
    const { model, session } = await setup([{ name: "kit", url: srv.url, defer: false }]);
    await mock.script(model, [
      // A sibling call in flight on the same link beside the over-size answer: only that one call fails.
      calls("h1", [
        ["mcp__kit__big_output", { chars: 9 * 1024 * 1024 }],
        ["mcp__kit__sleep", { ms: 300 }],
      ]),
      calls("h2", [["mcp__kit__echo", { text: "still here" }]]),
      { reply: { text: "ok" } },
    ]);
    const turn = await api.sendJson(tenantKey, session, { content: "go big" });
    expect(turn.status).toBe("completed");
    const r = results(turn.messages);
    expect(r.get("h1_0")?.is_error).toBe(true);
    expect(r.get("h1_0")?.text).toContain("answered with more than 8388608 bytes");
    expect(r.get("h1_1")?.is_error).toBe(false);
    expect(r.get("h2_0")).toMatchObject({ text: "still here", is_error: false });
  });

  it("a server removed from the agent, or its tools made eager, changes the next turn's tools", async () => {
    const a = await spawn("basic");
    const b = await spawn("basic");
    const { model, agent, session } = await setup([
      { name: "kit", url: a.url },
      { name: "other", url: b.url },
    ]);
    await mock.script(model, [{ reply: { text: "one" } }, { reply: { text: "two" } }]);
    expect((await api.sendJson(tenantKey, session, { content: "first" })).status).toBe("completed");
    await api.putAgent(agent, {
      model: { provider: "anthropic", name: model },
      system: "You use MCP tools.",
      tools: [],
      mcp_servers: [{ name: "kit", url: a.url, defer: false }],
    });
    expect((await api.sendJson(tenantKey, session, { content: "second" })).status).toBe("completed");
    const [first, second] = await clean(model, 2);
    const names = (r: RequestRecord | undefined) => wireTools(r).map((t) => String(t.name));
    expect(names(first).some((n) => n.startsWith("mcp__other__"))).toBe(true);
    expect(names(second).some((n) => n.startsWith("mcp__other__"))).toBe(false);
    expect(wireTools(second).filter((t) => String(t.name).startsWith("mcp__kit__") && t.defer_loading)).toEqual([]);
  });

  it("an OpenAI agent whose defer: false server lists 150 tools sends at most 128: the rest are deferred, and said so", async () => {
    const srv = await spawn("generated:150");
    const servers = [{ name: "kit", url: srv.url, defer: false }];
    const { model, agent, session } = await setup(servers);
    await api.putAgent(agent, { model: { provider: "openai", name: model }, tools: [], mcp_servers: servers });
    await mock.script(model, [{ reply: { text: "fits" } }]);
    const turn = await api.sendJson(tenantKey, session, { content: "go" });
    expect(turn.error).toBeUndefined();
    expect(turn.status).toBe("completed");
    const [first] = await clean(model, 1);
    expect(wireTools(first).length).toBeLessThanOrEqual(128);
    const kit = (await serverStates(session)).find((s) => s.name === "kit");
    expect(String(kit?.error)).toMatch(
      /^42 tools deferred \(at most 128 tools are sent with every request; tool_search/,
    );
    // Deferred, and still loadable: the cap leaves tools[] room to load into.
    const deferred = String(kit?.error).split("): ")[1]?.split(", ")[0] as string;
    await mock.script(model, [calls("sel", [["select_tools", { names: [deferred] }]]), { reply: { text: "loaded" } }]);
    const loading = await api.sendJson(tenantKey, session, { content: "load a deferred one" });
    expect(loading.status).toBe("completed");
    expect(results(loading.messages).get("sel_0")?.text).toContain(`"${deferred}":"loaded"`);
  });

  it("truncates large outputs with the full size noted, and times calls out", async () => {
    const srv = await spawn("basic");
    const { model, session } = await setup([{ name: "kit", url: srv.url, defer: false }]);
    await mock.script(model, [
      calls("t1", [
        ["mcp__kit__big_output", { chars: 150_000 }],
        ["mcp__kit__sleep", { ms: 5000 }],
      ]),
      { reply: { text: "ok" } },
    ]);
    const turn = await api.sendJson(tenantKey, session, { content: "go" });
    expect(turn.status).toBe("completed");
    const r = results(turn.messages);
    const big = r.get("t1_0");
    expect(big?.is_error).toBe(false);
    expect(big?.text.length).toBeLessThan(101_000);
    expect(big?.text).toContain(
      "[truncated: the MCP tool returned 150000 characters (150000 bytes); the first 100000 are kept]",
    );
    expect(r.get("t1_1")).toMatchObject({ is_error: true });
    expect(r.get("t1_1")?.text).toContain('MCP tool "mcp__kit__sleep" timed out after 1500 ms');
    // defer: false on the server: every tool is declared up front.
    const recorded = await clean(model, 2);
    expect(wireTools(recorded[0]).filter((t) => "defer_loading" in t)).toEqual([]);
  });

  it("honours tools/list_changed: a removed tool is announced and unloaded; re-registered, it is not loaded", async () => {
    const srv = await spawn("basic");
    const { model, session } = await setup([{ name: "kit", url: srv.url }]);
    await mock.script(model, [
      calls("l1", [["select_tools", { names: ["mcp__kit__echo"] }]]),
      { reply: { text: "loaded" } },
      { reply: { text: "quiet" } },
      { reply: { text: "back" } },
    ]);
    await api.sendJson(tenantKey, session, { content: "load echo" });
    expect(await loaded(session)).toEqual(["mcp__kit__echo"]);

    await srv.setTools(basicTools().filter((t) => t.name !== "echo"));
    await new Promise((r) => setTimeout(r, 300));
    const t2 = await api.sendJson(tenantKey, session, { content: "anything new?" });
    expect(notices(t2.messages)).toMatchObject([{ kind: "tools_changed", removed: ["mcp__kit__echo"] }]);
    expect(await loaded(session)).toEqual([]);

    await srv.setTools(basicTools());
    await new Promise((r) => setTimeout(r, 300));
    const t3 = await api.sendJson(tenantKey, session, { content: "and now?" });
    expect(notices(t3.messages)).toMatchObject([{ kind: "tools_changed", added: ["mcp__kit__echo"] }]);
    expect(await loaded(session)).toEqual([]);
    await clean(model, 4);
  });
});

describe("a generated server with 150 tools", () => {
  it("search, load, call, invalid call; killed mid-session: removed, distinct errors; restarted: back", async () => {
    let srv = await spawn("generated:150");
    const port = srv.port;
    const { model, session } = await setup([{ name: "gen", url: srv.url }]);
    await mock.script(model, [
      calls("g1", [["tool_search", { query: "search invoices", max_results: 3 }]]),
      calls("g2", [
        ["mcp__gen__search_invoice", { query: "overdue" }],
        ["mcp__gen__delete_calendar", { identifier: "x" }],
      ]),
      { reply: { text: "found" } },
      calls("g3", [
        ["mcp__gen__search_invoice", { query: "again" }],
        ["mcp__gen__get_repo", { id: "r1" }],
      ]),
      { reply: { text: "server is down" } },
      calls("g4", [["mcp__gen__search_invoice", { query: "back" }]]),
      { reply: { text: "server is back" } },
    ]);

    expect(await serverStates(session)).toEqual([]);
    const t1 = await api.sendJson(tenantKey, session, { content: "find overdue invoices" });
    expect(t1.status).toBe("completed");
    const [listed] = await serverStates(session);
    expect(listed).toMatchObject({ name: "gen", status: "connected", tools: 150, error: null });
    const r1 = results(t1.messages);
    const found = JSON.parse(r1.get("g1_0")?.text ?? "{}") as { matches?: Array<{ name: string }> };
    expect(found.matches?.map((m) => m.name)).toContain("mcp__gen__search_invoice");
    expect(r1.get("g2_0")).toMatchObject({ text: '{"query":"overdue"}', is_error: false });
    expect(r1.get("g2_1")?.is_error).toBe(true);
    expect(r1.get("g2_1")?.text).toContain("exists but is not loaded");
    expect(await loaded(session)).toContain("mcp__gen__search_invoice");

    await srv.kill();
    const t2 = await api.sendJson(tenantKey, session, { content: "once more" });
    expect(t2.status).toBe("completed");
    const [down] = notices(t2.messages);
    expect(down?.kind).toBe("tools_changed");
    expect(Array.isArray(down?.removed) ? down.removed : []).toHaveLength(150);
    const r2 = results(t2.messages);
    expect(r2.get("g3_0")?.is_error).toBe(true);
    expect(r2.get("g3_0")?.text).toContain(
      'Tool "mcp__gen__search_invoice" is loaded but its server "gen" is disconnected',
    );
    expect(r2.get("g3_1")?.is_error).toBe(true);
    expect(r2.get("g3_1")?.text).toMatch(/^unknown tool "mcp__gen__get_repo"/);
    expect(await loaded(session)).toContain("mcp__gen__search_invoice");
    const [gone] = await serverStates(session);
    expect(gone).toMatchObject({ name: "gen", status: "disconnected", tools: 150 });
    expect(gone?.error).toEqual(expect.any(String));
    expect(Date.parse(String(gone?.checked_at))).toBeGreaterThanOrEqual(Date.parse(String(listed?.checked_at)));

    srv = await spawn("generated:150", { port });
    const t3 = await api.sendJson(tenantKey, session, { content: "is it back?" });
    expect(t3.status).toBe("completed");
    const [up] = notices(t3.messages);
    expect(Array.isArray(up?.added) ? up.added : []).toHaveLength(150);
    expect(results(t3.messages).get("g4_0")).toMatchObject({ text: '{"query":"back"}', is_error: false });
    expect(await serverStates(session)).toMatchObject([{ name: "gen", status: "connected", tools: 150, error: null }]);

    const recorded = await clean(model, 7);
    const mcpCount = (r: RequestRecord | undefined) =>
      wireTools(r).filter((t) => String(t.name).startsWith("mcp__")).length;
    expect(recorded.map(mcpCount)).toEqual([150, 150, 150, 0, 0, 150, 150]);
    expect(wireTools(recorded[0]).filter((t) => t.defer_loading === true)).toHaveLength(150);
  });
});

describe("a loaded MCP tool whose server is down when the session compacts", () => {
  it("leaves the loaded set instead of staying loaded with nothing declaring it, and loads again once the server is back", async () => {
    let srv = await spawn("basic");
    const port = srv.port;
    const { model, session } = await setup([{ name: "kit", url: srv.url }], { compaction: { keep_recent_turns: 0 } });
    await mock.script(model, [
      calls("c1", [["tool_search", { query: "select:mcp__kit__echo" }]]),
      calls("c2", [["mcp__kit__echo", { text: "before" }]]),
      { reply: { text: "echoed" } },
    ]);
    expect((await api.sendJson(tenantKey, session, { content: "echo before" })).status).toBe("completed");
    expect(await loaded(session)).toContain("mcp__kit__echo");

    await srv.kill();
    // A turn while the server is down: the tool stays loaded (it comes back with its server), unseen meanwhile.
    await mock.script(model, [{ reply: { text: "the kit is down" } }]);
    expect((await api.sendJson(tenantKey, session, { content: "still there?" })).status).toBe("completed");
    expect(await loaded(session)).toContain("mcp__kit__echo");
    const compacted = await api.ok<{ tools_dropped: string[]; tools_kept: string[] }>(
      "POST",
      `/v1/sessions/${session}/compact`,
      { key: tenantKey },
    );
    expect(compacted.tools_dropped).toContain("mcp__kit__echo");
    expect(await loaded(session)).not.toContain("mcp__kit__echo");

    srv = await spawn("basic", { port });
    await mock.script(model, [
      calls("c3", [["tool_search", { query: "select:mcp__kit__echo" }]]),
      calls("c4", [["mcp__kit__echo", { text: "after" }]]),
      { reply: { text: "echoed again" } },
    ]);
    const again = await api.sendJson(tenantKey, session, { content: "echo after" });
    expect(again.status).toBe("completed");
    const r = results(again.messages);
    expect(JSON.stringify(r.get("c3_0")?.content)).toContain('"tool_reference"');
    expect(r.get("c4_0")).toMatchObject({ text: "after", is_error: false });
    expect(await loaded(session)).toContain("mcp__kit__echo");
  });
});
