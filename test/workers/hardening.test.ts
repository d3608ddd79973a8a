// Hardening through the public API: outbound URL policy at agent-PUT and tool-call time, body and message
// limits, prototype-pollution payloads, placement hints, pagination. Every refusal is a JSON error and no state
// changes. Rate limits and CORS are in their own files.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { withEnv } from "./env-app";
import {
  ADMIN,
  api,
  apiJson,
  clientTool,
  history,
  mockRequests,
  type Setup,
  script,
  send,
  setup,
  uid,
} from "./helpers";

type ErrorBody = { error: { code: string; message: string } };

const httpTool = (name: string, url: string) => ({
  name,
  description: `tool ${name}`,
  input_schema: { type: "object", properties: { q: { type: "string" } } },
  execution: { type: "http", url },
});

describe("outbound URLs at agent PUT (production policy)", () => {
  const strict = { SWITCHBOARD_ALLOW_PRIVATE_URLS: "false" };
  const put = (agent: string, url: string, where: "tool" | "mcp" = "tool") =>
    withEnv(strict, `/v1/agents/${agent}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: { provider: "anthropic", name: "m" },
        ...(where === "tool" ? { tools: [httpTool("t", url)] } : { mcp_servers: [{ name: "s", url }] }),
      }),
    });

  it.each([
    "http://api.example.com/",
    "https://127.0.0.1/",
    "https://localhost/",
    "https://2130706433/",
    "https://0x7f.1/",
    "https://0.0.0.0/",
    "https://[::1]/",
    "https://[::]/",
    "https://[::ffff:127.0.0.1]/",
    "https://169.254.169.254/latest/meta-data/",
    "https://10.0.0.1/",
    "https://[fd00::1]/",
    "https://user:pw@api.example.com/",
    "ftp://api.example.com/",
  ])("refuses %s with 400 and stores nothing", async (url) => {
    for (const where of ["tool", "mcp"] as const) {
      const agent = uid("ssrf");
      const res = await put(agent, url, where);
      expect(res.status, `${where} ${url}`).toBe(400);
      expect(((await res.json()) as ErrorBody).error.code).toBe("invalid_request");
      expect((await apiJson(`/v1/agents/${agent}`, { key: ADMIN })).status).toBe(404);
    }
  });

  it("accepts a public https URL", async () => {
    expect((await put(uid("ok"), "https://api.example.com/tool")).status).toBe(201);
  });
});

describe("outbound URLs at tool-call time", () => {
  it("never follows a redirect: a 3xx answer is an is_error result", async () => {
    const s = await setup({ tools: [httpTool("moved", `${env.MOCK_URL}/_tool?status=302`)] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_moved", name: "moved", input: { q: "x" } }] } },
      { reply: { text: "ok" } },
    ]);
    expect((await send(s, { content: "go" })).body.status).toBe("completed");
    const result = (await history(s))[2]?.parts[0];
    expect(result).toMatchObject({ type: "tool_result", tool_use_id: "toolu_moved", is_error: true });
    expect(String(result?.content)).toContain("HTTP 302");
  });
});

describe("limits", () => {
  it("refuses oversized bodies with 413 and changes nothing", async () => {
    const s = await setup();
    const big = "x".repeat(5 * 1024 * 1024 + 10);
    const cases: Array<[string, string]> = [
      [`/v1/sessions/${s.session}/messages`, JSON.stringify({ content: big })],
      [`/v1/sessions/${s.session}/tool-results`, JSON.stringify({ results: [{ tool_use_id: "t", content: big }] })],
      [`/v1/sessions/${s.session}/tokens`, JSON.stringify({ actions: ["read"], pad: "x".repeat(20_000) })],
      ["/v1/sessions", JSON.stringify({ agent: s.agent, metadata: { pad: "x".repeat(70_000) } })],
    ];
    for (const [path, body] of cases) {
      const res = await apiJson<ErrorBody>(path, {
        method: "POST",
        key: s.key,
        body,
        headers: { "content-type": "application/json" },
      });
      expect(res.status, path).toBe(413);
      expect(res.body.error.code).toBe("payload_too_large");
    }
    expect(await history(s)).toEqual([]);
  });

  it.each([
    ["a text over 200,000 characters", { content: "x".repeat(200_001) }],
    ["more than 100 parts", { content: Array.from({ length: 101 }, () => ({ type: "text", text: "x" })) }],
    ["a non-text part", { content: [{ type: "image", url: "https://x" }] }],
    [
      "more than 128 tool results",
      { content: "x", tool_results: Array.from({ length: 129 }, (_, i) => ({ tool_use_id: `t${i}`, content: "x" })) },
    ],
    ["max_steps over 64", { content: "x", max_steps: 65 }],
  ])("refuses a message with %s (400), history unchanged", async (_what, json) => {
    const s = await setup();
    const res = await send(s, json);
    expect(res.status).toBe(400);
    expect((res.body as unknown as ErrorBody).error.code).toBe("invalid_request");
    expect(await history(s)).toEqual([]);
  });

  it.each([
    ["a text part over 200,000 characters", [{ type: "text", text: "x".repeat(300_000) }]],
    ["more than 100 parts", Array.from({ length: 150 }, () => ({ type: "text", text: "x" }))],
  ])("refuses a /chat user message with %s (400), as /messages does: nothing stored", async (_what, parts) => {
    const s = await setup();
    const res = await apiJson<ErrorBody>(`/v1/sessions/${s.session}/chat`, {
      method: "POST",
      key: s.key,
      json: { id: s.session, messages: [{ id: "u1", role: "user", parts }] },
    });
    expect([res.status, res.body.error.code]).toEqual([400, "invalid_request"]);
    expect(await history(s)).toEqual([]);
    expect(await mockRequests(s.model)).toEqual([]);
  });

  it("refuses a /chat tool output over 1,000,000 characters (400), as /tool-results does: the call stays open", async () => {
    const s = await setup({ tools: [clientTool("pick")] });
    await script(s.model, [{ reply: { tool_calls: [{ id: "call_big_pick", name: "pick", input: {} }] } }]);
    expect((await send(s, { content: "pick one" })).body.status).toBe("awaiting_tool_results");
    const before = await history(s);
    const output = {
      type: "dynamic-tool",
      toolName: "pick",
      toolCallId: "call_big_pick",
      state: "output-available",
      input: {},
      output: "x".repeat(1_000_001),
    };
    const res = await apiJson<ErrorBody>(`/v1/sessions/${s.session}/chat`, {
      method: "POST",
      key: s.key,
      json: { id: s.session, messages: [{ id: "a1", role: "assistant", parts: [output] }] },
    });
    expect([res.status, res.body.error.code]).toEqual([400, "invalid_request"]);
    expect(await history(s)).toEqual(before);
    expect((await apiJson<{ status: string }>(`/v1/sessions/${s.session}`, { key: s.key })).body.status).toBe(
      "awaiting_tool_results",
    );
  });

  it("refuses deeply nested JSON (400) before any recursive code", async () => {
    const s = await setup();
    const deep = `${'{"a":'.repeat(200)}1${"}".repeat(200)}`;
    const before = await apiJson<{ sessions: unknown[] }>("/v1/sessions", { key: s.key });
    const res = await apiJson<ErrorBody>("/v1/sessions", {
      method: "POST",
      key: s.key,
      body: `{"agent":"${s.agent}","metadata":${deep}}`,
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain("nesting");
    const msg = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      body: `{"content":"x","json_schema":${deep}}`,
      headers: { "content-type": "application/json", accept: "application/json" },
    });
    expect(msg.status).toBe(400);
    expect((await apiJson("/v1/sessions", { key: s.key })).body).toEqual(before.body);
    expect(await history(s)).toEqual([]);
  });

  it("pages the sessions listing with a working next cursor", async () => {
    const s = await setup();
    for (let i = 0; i < 4; i++) await apiJson("/v1/sessions", { method: "POST", key: s.key, json: { agent: s.agent } });
    const seen: string[] = [];
    let after = "";
    for (let page = 0; page < 10; page++) {
      const res = await apiJson<{ sessions: Array<{ id: string }>; next: string | null }>(
        `/v1/sessions?limit=2${after ? `&after=${after}` : ""}`,
        { key: s.key },
      );
      seen.push(...res.body.sessions.map((x) => x.id));
      if (!res.body.next) break;
      after = res.body.next;
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    expect([...seen].sort()).toEqual(seen);
    expect((await apiJson("/v1/sessions?limit=0", { key: s.key })).status).toBe(400);
  });
});

describe("prototype pollution", () => {
  const raw = (s: Setup, method: string, path: string, body: string) =>
    apiJson<ErrorBody>(path, { method, key: s.key, body, headers: { "content-type": "application/json" } });

  it("refuses __proto__ keys in bodies, metadata and agent schemas with 400, changing nothing", async () => {
    const s = await setup();
    const before = await apiJson<{ sessions: unknown[] }>("/v1/sessions", { key: s.key });
    const cases: Array<[string, string, string]> = [
      ["POST", "/v1/sessions", `{"agent":"${s.agent}","__proto__":{"polluted":true}}`],
      ["POST", "/v1/sessions", `{"agent":"${s.agent}","metadata":{"__proto__":{"polluted":true}}}`],
      ["POST", `/v1/sessions/${s.session}/messages`, `{"content":"x","__proto__":{"max_steps":64}}`],
      ["POST", `/v1/sessions/${s.session}/messages`, `{"content":"x","json_schema":{"type":"object","__proto__":{}}}`],
      ["POST", `/v1/sessions/${s.session}/tokens`, `{"actions":["read"],"__proto__":{"ttl_s":99999999}}`],
    ];
    for (const [method, path, body] of cases) {
      const res = await raw(s, method, path, body);
      expect(res.status, body).toBe(400);
      expect(res.body.error.message).toContain("__proto__");
    }
    const agent = uid("proto");
    const put = await apiJson<ErrorBody>(`/v1/agents/${agent}`, {
      method: "PUT",
      key: ADMIN,
      body: `{"model":{"provider":"anthropic","name":"m"},"tools":[{"name":"t","input_schema":{"type":"object","properties":{"__proto__":{"type":"string"}}},"execution":{"type":"client"}}]}`,
      headers: { "content-type": "application/json" },
    });
    expect(put.status).toBe(400);
    expect((await apiJson(`/v1/agents/${agent}`, { key: ADMIN })).status).toBe(404);
    expect((await apiJson("/v1/sessions", { key: s.key })).body).toEqual(before.body);
    expect(await history(s)).toEqual([]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("passes a model's __proto__ tool input through as data, never as a prototype", async () => {
    const s = await setup({ tools: [httpTool("echo", `${env.MOCK_URL}/_tool`)] });
    await script(s.model, [
      {
        reply: {
          tool_calls: [{ id: "toolu_proto", name: "echo", input: JSON.parse('{"q":"a","__proto__":{"polluted":1}}') }],
        },
      },
      { reply: { text: "done" } },
    ]);
    expect((await send(s, { content: "go" })).body.status).toBe("completed");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const msgs = await history(s);
    expect(msgs[2]?.parts[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_proto" });
  });
});

describe("placement", () => {
  it("accepts a location hint and refuses an unknown one (400, nothing created)", async () => {
    const s = await setup();
    const ok = await apiJson<{ id: string }>("/v1/sessions", {
      method: "POST",
      key: s.key,
      json: { agent: s.agent, location_hint: "weur" },
    });
    expect(ok.status).toBe(201);
    expect((await apiJson(`/v1/sessions/${ok.body.id}`, { key: s.key })).status).toBe(200);
    const id = uid("mars");
    const bad = await apiJson<ErrorBody>("/v1/sessions", {
      method: "POST",
      key: s.key,
      json: { agent: s.agent, id, location_hint: "mars" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("location_hint");
    expect((await apiJson(`/v1/sessions/${id}`, { key: s.key })).status).toBe(404);
  });
});
