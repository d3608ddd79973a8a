// The HTTP API's basics: authentication, tenant isolation, creating a session whose id exists, bad input that changes
// nothing, and the agents routes.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN, api, apiJson, history, mockRequests, script, setup, tenantKey, uid } from "./helpers";

type ErrorBody = { error: { code: string; message: string } };

/**
 * Every admin route, on the names given; each write carries a body it would refuse with 400 were the body read
 * before the credential.
 */
function adminRoutes(n: { key: string; agent: string; tenant: string; session: string }) {
  return [
    ["POST", "/v1/keys", {}],
    ["GET", "/v1/keys", undefined],
    ["DELETE", `/v1/keys/${n.key}`, undefined],
    ["PUT", `/v1/agents/${n.agent}`, {}],
    ["GET", "/v1/agents", undefined],
    ["GET", `/v1/agents/${n.agent}`, undefined],
    ["DELETE", `/v1/agents/${n.agent}`, undefined],
    ["PUT", `/v1/tenants/${n.tenant}/cors`, {}],
    ["GET", `/v1/tenants/${n.tenant}/cors`, undefined],
    ["GET", `/v1/tenants/${n.tenant}/sessions`, undefined],
    ["POST", `/v1/tenants/${n.tenant}/sessions/${n.session}/clear`, undefined],
    ["DELETE", `/v1/tenants/${n.tenant}/sessions/${n.session}`, undefined],
  ] as const;
}

describe("authentication", () => {
  it("refuses a missing key with 401 and the JSON error shape", async () => {
    const res = await apiJson<ErrorBody>("/v1/sessions", { method: "POST", json: { agent: "x" } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("unauthorized");
    expect(typeof res.body.error.message).toBe("string");
  });

  it("refuses a wrong key with 401", async () => {
    const res = await apiJson<ErrorBody>("/v1/sessions", { method: "POST", key: "sk_sb_wrong", json: { agent: "x" } });
    expect(res.status).toBe(401);
  });

  it("refuses a bearer that is not of the API-key form with 401 without reading D1", async () => {
    const res = await api("/v1/sessions", { key: `not-a-key-${uid("bearer")}` });
    expect(res.status).toBe(401);
    expect(((await res.json()) as ErrorBody).error.code).toBe("unauthorized");
    expect(res.headers.get("x-debug-d1-statements")).toBe("0");
  });

  it("refuses an API key on every admin route with 403 forbidden before reading its body, and changes nothing", async () => {
    const tenant = uid("t");
    const minted = await apiJson<{ id: string; key: string }>("/v1/keys", {
      method: "POST",
      key: ADMIN,
      json: { tenant },
    });
    const { id, key } = minted.body;
    const agentOwner = await setup();
    const created = await apiJson<{ id: string }>("/v1/sessions", {
      method: "POST",
      key,
      json: { agent: agentOwner.agent },
    });
    const s = { ...agentOwner, key, session: created.body.id };
    await script(s.model, [{ reply: { text: "kept" } }]);
    await apiJson(`/v1/sessions/${s.session}/messages`, { method: "POST", key, json: { content: "hi" } });
    const before = await history(s);
    for (const [method, path, json] of adminRoutes({ key: id, agent: s.agent, tenant, session: s.session })) {
      const res = await apiJson<ErrorBody>(path, { method, key, json });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error).toEqual({ code: "forbidden", message: "an admin key is required" });
    }
    // The key still works (it was not revoked), its session keeps its history, the agent is still there.
    expect(await history(s)).toEqual(before);
    expect((await apiJson(`/v1/agents/${s.agent}`, { key: ADMIN })).status).toBe(200);
  });

  it("refuses a missing or unknown credential on every admin route with 401 before reading its body", async () => {
    const names = { key: uid("key"), agent: uid("agent"), tenant: uid("t"), session: uid("s") };
    for (const credential of [undefined, "sk_sb_unknown"]) {
      for (const [method, path, json] of adminRoutes(names)) {
        const res = await apiJson<ErrorBody>(path, { method, key: credential, json });
        expect(res.status, `${method} ${path} with ${credential ?? "no credential"}`).toBe(401);
        expect(res.body.error.code).toBe("unauthorized");
      }
    }
  });

  it("answers an unknown path or a wrong method under /v1/agents, /v1/keys and /v1/tenants with 404, whoever asks", async () => {
    const s = await setup();
    const [key, tenant, session] = [uid("key"), uid("t"), uid("s")];
    const cases = [
      ["GET", `/v1/agents/${s.agent}/unknown`],
      ["GET", `/v1/agents/${s.agent}/runs`],
      ["POST", `/v1/agents/${s.agent}`],
      ["PATCH", `/v1/agents/${s.agent}`],
      ["DELETE", "/v1/agents"],
      ["GET", `/v1/keys/${key}`],
      ["PUT", "/v1/keys"],
      ["POST", `/v1/keys/${key}/revoke`],
      ["GET", "/v1/tenants"],
      ["GET", `/v1/tenants/${tenant}`],
      ["POST", `/v1/tenants/${tenant}/cors`],
      ["GET", `/v1/tenants/${tenant}/sessions/${session}`],
      ["GET", `/v1/tenants/${tenant}/sessions/${session}/clear`],
      ["PUT", `/v1/tenants/${tenant}/unknown`],
    ] as const;
    for (const [who, credential] of [
      ["an API key", s.key],
      ["the admin key", ADMIN],
      ["no credential", undefined],
    ] as const) {
      for (const [method, path] of cases) {
        // No route, so no operation in the document: the 404 for it is what this test checks.
        const res = await apiJson<ErrorBody>(path, { method, key: credential, undocumented: "no such route" });
        expect(res.status, `${method} ${path} with ${who}`).toBe(404);
        expect(res.body.error).toEqual({ code: "not_found", message: `no route for ${method} ${path}` });
      }
    }
    expect((await apiJson(`/v1/agents/${s.agent}`, { key: ADMIN })).status).toBe(200);
  });

  it("refuses the admin key on API-key routes with 403 forbidden and changes nothing", async () => {
    const s = await setup();
    for (const [method, path, json] of [
      ["GET", `/v1/sessions/${s.session}`, undefined],
      ["POST", `/v1/sessions/${s.session}/messages`, { content: "hi" }],
      ["POST", `/v1/agents/${s.agent}/runs`, { input: "hi" }],
    ] as const) {
      const res = await apiJson<ErrorBody>(path, { method, key: ADMIN, json });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
      expect(res.body.error.message).toContain("POST /v1/keys");
    }
    expect(await history(s)).toEqual([]);
  });

  it("stops accepting a revoked key", async () => {
    const created = await apiJson<{ id: string; key: string }>("/v1/keys", {
      method: "POST",
      key: ADMIN,
      json: { tenant: uid("revoke-me") },
    });
    expect((await apiJson("/v1/sessions", { key: created.body.key })).status).toBe(200);
    await apiJson(`/v1/keys/${created.body.id}`, { method: "DELETE", key: ADMIN });
    expect((await apiJson("/v1/sessions", { key: created.body.key })).status).toBe(401);
  });

  it("never lists key secrets", async () => {
    const tenant = uid("listing");
    const created = await apiJson<{ id: string }>("/v1/keys", { method: "POST", key: ADMIN, json: { tenant } });
    const list = await apiJson<{ keys: Array<Record<string, unknown>> }>("/v1/keys", { key: ADMIN });
    // The key just created is listed (the listing holds every tenant's keys: this tenant has that one alone).
    expect(list.body.keys.filter((k) => k.tenant === tenant).map((k) => k.id)).toEqual([created.body.id]);
    for (const k of list.body.keys) {
      expect(k).not.toHaveProperty("key");
      expect(k).not.toHaveProperty("key_hash");
    }
  });
});

describe("tenant isolation", () => {
  it("answers 404 (not 403) for another tenant's session and changes nothing", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "mine" } }]);
    await apiJson(`/v1/sessions/${s.session}/messages`, { method: "POST", key: s.key, json: { content: "hi" } });
    const before = await history(s);
    const other = await tenantKey();
    for (const [method, path, json] of [
      ["GET", "", undefined],
      ["GET", "/messages", undefined],
      ["GET", "/events", undefined],
      ["POST", "/messages", { content: "intrude" }],
      ["POST", "/clear", undefined],
      ["DELETE", "", undefined],
    ] as const) {
      const res = await apiJson<ErrorBody>(`/v1/sessions/${s.session}${path}`, { method, key: other, json });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
    expect(await history(s)).toEqual(before);
  });

  it("lets two tenants use the same session id independently", async () => {
    const a = await setup({}, "anthropic");
    const keyB = await tenantKey();
    const res = await apiJson<{ id: string }>("/v1/sessions", {
      method: "POST",
      key: keyB,
      json: { agent: a.agent, id: a.session },
    });
    expect(res.status).toBe(201);
    const dup = await apiJson<ErrorBody>("/v1/sessions", {
      method: "POST",
      key: keyB,
      json: { agent: a.agent, id: a.session, metadata: { another: "session" } },
    });
    expect(dup.status).toBe(409);
  });
});

describe("creating a session whose id exists", () => {
  type Created = { id: string; agent: string; created_at: string; metadata: unknown };
  const create = (key: string, json: Record<string, unknown>) =>
    apiJson<Created & ErrorBody>("/v1/sessions", { method: "POST", key, json });

  it("answers a retried create 200 with the session as the first create answered it", async () => {
    const s = await setup();
    const json = { agent: s.agent, id: uid("ses_retried"), metadata: { user: "u1", plan: { tier: "pro" } } };
    const first = await create(s.key, json);
    expect(first.status).toBe(201);
    const retry = await create(s.key, json);
    expect([retry.status, retry.body]).toEqual([200, first.body]);
  });

  it("takes metadata with its keys in another order as the same session", async () => {
    const s = await setup();
    const id = uid("ses_reordered");
    const first = await create(s.key, { agent: s.agent, id, metadata: { a: 1, b: { c: 2, d: 3 } } });
    const retry = await create(s.key, { agent: s.agent, id, metadata: { b: { d: 3, c: 2 }, a: 1 } });
    expect([retry.status, retry.body]).toEqual([200, first.body]);
  });

  it("answers a create with other metadata 409 session_exists and leaves the session and its index row as they were", async () => {
    const s = await setup();
    const id = uid("ses_taken");
    const first = await create(s.key, { agent: s.agent, id, metadata: { owner: "first" } });
    const other = await create(s.key, { agent: s.agent, id, metadata: { owner: "second" } });
    expect([other.status, other.body.error?.code]).toEqual([409, "session_exists"]);
    const state = await apiJson<Created>(`/v1/sessions/${id}`, { key: s.key });
    expect([state.body.metadata, state.body.created_at]).toEqual([{ owner: "first" }, first.body.created_at]);
    const row = await env.DB.prepare("SELECT metadata, created_at FROM sessions WHERE id = ?").bind(id).first();
    expect(row).toEqual({ metadata: JSON.stringify({ owner: "first" }), created_at: first.body.created_at });
  });

  it("answers a create without the metadata the session was created with 409 session_exists", async () => {
    const s = await setup();
    const id = uid("ses_no_meta");
    await create(s.key, { agent: s.agent, id, metadata: { owner: "first" } });
    const bare = await create(s.key, { agent: s.agent, id });
    expect([bare.status, bare.body.error?.code]).toEqual([409, "session_exists"]);
  });

  it("finishes a create cut short: an index row with no session behind it becomes this create's session", async () => {
    const s = await setup();
    const tenant = uid("t_orphan");
    const key = await tenantKey(tenant);
    const id = uid("ses_orphan");
    // A create cut short between its index row and its object (D1 failed it, or the row's delete after a failed init).
    await env.DB.prepare("INSERT INTO sessions (tenant, id, agent, metadata, created_at) VALUES (?, ?, ?, NULL, ?)")
      .bind(tenant, id, s.agent, new Date(Date.now() - 60_000).toISOString())
      .run();
    const res = await create(key, { agent: s.agent, id, metadata: { owner: "retry" } });
    expect([res.status, res.body.metadata]).toEqual([201, { owner: "retry" }]);
    const row = await env.DB.prepare("SELECT metadata, created_at FROM sessions WHERE tenant = ? AND id = ?")
      .bind(tenant, id)
      .first();
    expect(row).toEqual({ metadata: JSON.stringify({ owner: "retry" }), created_at: res.body.created_at });
  });
});

describe("creating a session its object already holds", () => {
  /** A tenant with two agents, and a session id whose object a webhook run's hand-over created (no index row). */
  async function heldByRun(): Promise<{ key: string; agentA: string; agentB: string; id: string; at: string }> {
    const tenant = uid("t");
    const key = await tenantKey(tenant);
    const [agentA, agentB] = [uid("agent_a"), uid("agent_b")];
    for (const agent of [agentA, agentB]) {
      const model = uid("mock-anthropic");
      await script(model, [{ reply: { text: "ran" } }]);
      await apiJson(`/v1/agents/${agent}`, {
        method: "PUT",
        key: ADMIN,
        json: { model: { provider: "anthropic", name: model } },
      });
    }
    const id = uid("ses_held");
    const at = new Date(Date.now() - 1000).toISOString();
    const stub = env.SESSION.getByName(`${tenant}:${id}`) as unknown as {
      enqueueRun(info: object, spec: object): Promise<{ ok: boolean }>;
    };
    const queued = await stub.enqueueRun(
      { tenant, id, agent: agentA, created_at: at, metadata: null },
      { id: uid("run_first"), agent: agentA, input: [{ type: "text", text: "report" }], created_at: at },
    );
    expect(queued.ok).toBe(true);
    return { key, agentA, agentB, id, at };
  }

  it("answers 409 session_exists and keeps the object's session as it was", async () => {
    const h = await heldByRun();
    const res = await apiJson<ErrorBody>("/v1/sessions", {
      method: "POST",
      key: h.key,
      json: { agent: h.agentA, id: h.id, metadata: { who: "post" } },
    });
    expect([res.status, res.body.error.code]).toEqual([409, "session_exists"]);
    const state = await apiJson<{ agent: string; metadata: unknown }>(`/v1/sessions/${h.id}`, { key: h.key });
    expect([state.body.agent, state.body.metadata]).toEqual([h.agentA, null]);
  });

  it("answers a create asking for the object's session 200 with that session", async () => {
    const h = await heldByRun();
    const res = await apiJson("/v1/sessions", { method: "POST", key: h.key, json: { agent: h.agentA, id: h.id } });
    expect([res.status, res.body]).toEqual([200, { id: h.id, agent: h.agentA, created_at: h.at, metadata: null }]);
  });

  it("leaves the index row describing the object's session, not the request's", async () => {
    const h = await heldByRun();
    await apiJson("/v1/sessions", {
      method: "POST",
      key: h.key,
      json: { agent: h.agentB, id: h.id, metadata: { who: "post" } },
    });
    const row = await env.DB.prepare("SELECT agent, metadata, created_at FROM sessions WHERE id = ?")
      .bind(h.id)
      .first();
    expect(row).toEqual({ agent: h.agentA, metadata: null, created_at: h.at });
  });
});

describe("bad input changes nothing", () => {
  it.each([
    ["malformed JSON", "{not json", 400, "invalid_json"],
    ["an empty body", "", 400, "invalid_json"],
    ["a wrong type", JSON.stringify({ content: 42 }), 400, "invalid_request"],
    ["an unknown field", JSON.stringify({ content: "x", contnet: "y" }), 400, "invalid_request"],
    ["empty content", JSON.stringify({ content: "" }), 400, "invalid_request"],
    ["whitespace-only content", JSON.stringify({ content: " \n\t " }), 400, "invalid_request"],
    [
      "only whitespace text parts",
      JSON.stringify({
        content: [
          { type: "text", text: "  " },
          { type: "text", text: "\n" },
        ],
      }),
      400,
      "invalid_request",
    ],
    ["max_steps out of range", JSON.stringify({ content: "x", max_steps: 0 }), 400, "invalid_request"],
    ["deeply nested JSON", `${"[".repeat(200)}${"]".repeat(200)}`, 400, "invalid_request"],
    ["an oversized body", JSON.stringify({ content: "x".repeat(5_300_000) }), 413, "payload_too_large"],
    ["an oversized message", JSON.stringify({ content: "x".repeat(200_001) }), 400, "invalid_request"],
  ])("POST /messages with %s → %i %s", async (_name, body, status, code) => {
    const s = await setup();
    const res = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      body,
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(status);
    expect(((await res.json()) as ErrorBody).error.code).toBe(code);
    expect(await history(s)).toEqual([]);
    expect(await mockRequests(s.model)).toEqual([]);
  });

  it("POST /chat whose newest user message is only whitespace → 400 invalid_request", async () => {
    const s = await setup();
    const res = await apiJson<ErrorBody>(`/v1/sessions/${s.session}/chat`, {
      method: "POST",
      key: s.key,
      json: { id: s.session, messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: " \n " }] }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    expect(await history(s)).toEqual([]);
    expect(await mockRequests(s.model)).toEqual([]);
  });

  it.each(["0x10", "1e1", "%20%205", "5.0"])(
    "refuses %s as a limit or after query parameter with 400 invalid_request: only decimal digits are integers",
    async (raw) => {
      const s = await setup();
      const answers = await Promise.all(
        [
          `/v1/sessions?limit=${raw}`,
          `/v1/sessions/${s.session}/messages?limit=${raw}`,
          `/v1/sessions/${s.session}/messages?after=${raw}`,
          `/v1/sessions/${s.session}/events?limit=${raw}`,
          `/v1/sessions/${s.session}/events?after=${raw}`,
          `/v1/sessions/${s.session}/stream?after=${raw}`,
        ].map(async (path) => {
          const res = await apiJson<ErrorBody>(path, { key: s.key });
          return `${path}: ${res.status} ${res.body?.error?.code}`;
        }),
      );
      expect(answers.filter((a) => !a.endsWith(": 400 invalid_request"))).toEqual([]);
    },
  );

  it.each(["0x0", "1e1", "5.0"])("refuses Last-Event-ID: %s on GET /stream with 400 invalid_request", async (raw) => {
    const s = await setup();
    const res = await apiJson<ErrorBody>(`/v1/sessions/${s.session}/stream`, {
      key: s.key,
      headers: { "last-event-id": raw },
    });
    expect([res.status, res.body?.error?.code]).toEqual([400, "invalid_request"]);
  });

  it("POST /chat with max_steps ends the user message's turn after that many steps", async () => {
    const s = await setup({
      tools: [
        {
          name: "lookup",
          description: "look up",
          input_schema: { type: "object", properties: { q: { type: "string" } } },
          execution: { type: "http", url: `${env.MOCK_URL}/_tool` },
        },
      ],
    });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_chat_steps", name: "lookup", input: { q: "a" } }] } },
      { reply: { text: "second step" } },
    ]);
    const res = await api(`/v1/sessions/${s.session}/chat`, {
      method: "POST",
      key: s.key,
      json: {
        id: s.session,
        messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "go" }] }],
        max_steps: 1,
      },
    });
    await res.text();
    expect(await mockRequests(s.model)).toHaveLength(1);
  });

  it("answers 404 for an unknown session", async () => {
    const key = await tenantKey();
    const res = await apiJson<ErrorBody>("/v1/sessions/does-not-exist/messages", {
      method: "POST",
      key,
      json: { content: "x" },
    });
    expect(res.status).toBe(404);
  });

  it("refuses an agent that uses a built-in tool name", async () => {
    const name = uid("bad-builtin");
    const res = await apiJson<ErrorBody>(`/v1/agents/${name}`, {
      method: "PUT",
      key: ADMIN,
      json: {
        model: { provider: "anthropic", name: "m" },
        tools: [{ name: "tool_search", input_schema: { type: "object" }, execution: { type: "client" } }],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("reserved_tool_name");
    expect((await apiJson(`/v1/agents/${name}`, { key: ADMIN })).status).toBe(404);
  });

  it("refuses a session for an unknown agent", async () => {
    const key = await tenantKey();
    const res = await apiJson<ErrorBody>("/v1/sessions", { method: "POST", key, json: { agent: uid("nope-agent") } });
    expect(res.status).toBe(404);
    expect((await apiJson<{ sessions: unknown[] }>("/v1/sessions", { key })).body.sessions).toEqual([]);
  });

  it("rejects an unknown route with a JSON 404", async () => {
    const res = await apiJson<ErrorBody>("/v1/nowhere", { undocumented: "no such route: its 404 is the point" });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("not_found");
  });
});

describe("agents", () => {
  it("never returns write-only secrets", async () => {
    const name = uid("with-secrets");
    const put = await apiJson<Record<string, unknown>>(`/v1/agents/${name}`, {
      method: "PUT",
      key: ADMIN,
      json: {
        model: { provider: "anthropic", name: "m" },
        webhook_secrets: ["whsec_supersecretvalue0123456789abcdef"],
        mcp_servers: [
          { name: "gh", url: "https://mcp.example.com/mcp", headers: { authorization: "Bearer hidden-token" } },
        ],
      },
    });
    const got = await apiJson<Record<string, unknown>>(`/v1/agents/${name}`, { key: ADMIN });
    for (const body of [put.body, got.body]) {
      const text = JSON.stringify(body);
      expect(text).not.toContain("supersecretvalue");
      expect(text).not.toContain("hidden-token");
    }
  });

  it("refuses an openai-responses max_tokens below 16 with a JSON 400 and keeps the stored agent", async () => {
    const name = uid("responses-min-tokens");
    const model = { provider: "openai-responses", name: "m", max_tokens: 64 };
    expect((await apiJson(`/v1/agents/${name}`, { method: "PUT", key: ADMIN, json: { model } })).status).toBe(201);
    const res = await apiJson<ErrorBody>(`/v1/agents/${name}`, {
      method: "PUT",
      key: ADMIN,
      json: { model: { ...model, max_tokens: 8 } },
    });
    expect([res.status, res.body.error.code]).toEqual([400, "invalid_request"]);
    expect(res.body.error.message).toContain("model.max_tokens: must be at least 16");
    const got = await apiJson<{ model: { max_tokens: number } }>(`/v1/agents/${name}`, { key: ADMIN });
    expect(got.body.model.max_tokens).toBe(64);
  });

  it("answers one 201 and one 200 to two concurrent PUTs creating the same agent", async () => {
    const name = uid("agent-race");
    const put = () =>
      api(`/v1/agents/${name}`, { method: "PUT", key: ADMIN, json: { model: { provider: "anthropic", name: "m" } } });
    const statuses = (await Promise.all([put(), put()])).map((r) => r.status);
    expect(statuses.sort()).toEqual([200, 201]);
  });

  it("pages GET /v1/agents by name with limit and after, passing next as after", async () => {
    const prefix = uid("paged");
    const names = [`${prefix}-a`, `${prefix}-b`, `${prefix}-c`];
    for (const name of names) {
      await apiJson(`/v1/agents/${name}`, {
        method: "PUT",
        key: ADMIN,
        json: { model: { provider: "anthropic", name: "m" } },
      });
    }
    const pages: string[][] = [];
    let after = prefix;
    while (pages.length < 3) {
      const res = await apiJson<{ agents: Array<{ name: string }>; next: string | null }>(
        `/v1/agents?limit=2&after=${after}`,
        { key: ADMIN },
      );
      pages.push(res.body.agents.map((a) => a.name).filter((n) => n.startsWith(prefix)));
      if (!res.body.next?.startsWith(prefix)) break;
      after = res.body.next;
    }
    expect(pages).toEqual([[names[0], names[1]], [names[2]]]);
  });

  it("ends a GET /v1/agents page before 8 MB of configs, its next continuing from there", async () => {
    const prefix = uid("bulky");
    const names = ["a", "b", "c", "d", "e"].map((x) => `${prefix}-${x}`);
    // Five configs of ~1.8 MB (200 tools with 9,000-character descriptions): four fit in a page's 8 MB, the fifth
    // starts the next page.
    const tools = Array.from({ length: 200 }, (_, i) => ({
      name: `t${i}`,
      description: "x".repeat(9000),
      input_schema: { type: "object" },
      execution: { type: "client" },
    }));
    for (const name of names) {
      const put = await api(`/v1/agents/${name}`, {
        method: "PUT",
        key: ADMIN,
        json: { model: { provider: "anthropic", name: "m" }, tools },
      });
      expect(put.status).toBe(201);
    }
    const list = (after: string) =>
      apiJson<{ agents: Array<{ name: string }>; next: string | null }>(`/v1/agents?limit=100&after=${after}`, {
        key: ADMIN,
      });
    const first = await list(prefix);
    expect([first.status, first.body.agents.map((a) => a.name), first.body.next]).toEqual([
      200,
      names.slice(0, 4),
      names[3],
    ]);
    const second = await list(first.body.next as string);
    expect(second.body.agents[0]?.name).toBe(names[4]);
  });

  it("answers 404 for deleting an unknown agent and leaves the agent-config epoch alone", async () => {
    const epoch = () => env.DB.prepare("SELECT epoch FROM agent_epoch WHERE id = 1").first<number>("epoch");
    const before = await epoch();
    const res = await apiJson<ErrorBody>(`/v1/agents/${uid("never-created")}`, { method: "DELETE", key: ADMIN });
    expect([res.status, res.body.error.code]).toEqual([404, "not_found"]);
    expect(await epoch()).toBe(before);
    // A real delete still moves it, so sessions re-read their agent.
    const name = uid("deleted-agent");
    await apiJson(`/v1/agents/${name}`, {
      method: "PUT",
      key: ADMIN,
      json: { model: { provider: "anthropic", name: "m" } },
    });
    const put = await epoch();
    expect((await apiJson(`/v1/agents/${name}`, { method: "DELETE", key: ADMIN })).status).toBe(200);
    expect(await epoch()).toBeGreaterThan(put ?? 0);
  });
});
