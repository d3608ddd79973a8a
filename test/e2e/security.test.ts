// Security through the public API in real workerd (`wrangler dev`): session tokens for a mobile-style client,
// scope and cross-tenant refusals, rate limits (the Workers binding and the per-key limiter), CORS preflight,
// redirects at tool-call time, and — in a second wrangler with SWITCHBOARD_ALLOW_PRIVATE_URLS=false — the
// production URL policy at agent PUT and at tool-call time.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  type AgentConfig,
  Api,
  type HistoryMessage,
  isErrorBody,
  Mock,
  startToolServer,
  startWrangler,
  type ToolServer,
  uniqueModel,
} from "../helpers/index.ts";

const api = new Api(inject("baseUrl"), inject("adminKey"));
const mock = new Mock(inject("mockUrl"));
let tools: ToolServer;

beforeAll(async () => {
  tools = await startToolServer((call) =>
    call.path.startsWith("/redirect")
      ? new Response(null, { status: 302, headers: { location: `${tools.url}/secret` } })
      : { reached: call.path },
  );
});
afterAll(async () => {
  await tools?.close();
});

function agentWith(model: string, url: string): AgentConfig {
  return {
    model: { provider: "anthropic", name: model },
    tools: [
      { name: "fetch_it", description: "Fetches.", input_schema: { type: "object" }, execution: { type: "http", url } },
    ],
  };
}

async function session(url = "https://api.example.com/tool") {
  const key = (await api.createKey(`sec-${uniqueModel("t")}`)).key;
  const model = uniqueModel("sec");
  const agent = `agent-${model}`;
  await api.putAgent(agent, agentWith(model, url));
  return { key, model, agent, id: (await api.createSession(key, agent)).id };
}

const toolCallThenText = [{ reply: { tool_calls: [{ name: "fetch_it", input: {} }] } }, { reply: { text: "done" } }];

function toolResults(messages: HistoryMessage[]) {
  return messages.flatMap((m) => m.parts).filter((p) => p.type === "tool_result");
}

describe("session tokens (mobile-style client)", () => {
  it("chats with only a session token; the token cannot escalate", async () => {
    const s = await session();
    const minted = await api.json<{ token: string; expires_at: string }>("POST", `/v1/sessions/${s.id}/tokens`, {
      key: s.key,
      body: { actions: ["send", "stream", "read"], ttl_s: 300 },
    });
    expect(minted.status).toBe(201);
    const token = minted.body.token;
    await mock.script(s.model, [{ reply: { text: "Hi from the model." } }]);
    const read = await api.sendSse(token, s.id, { content: "hello" });
    expect(read.done).toBe(true);
    expect((await api.stream(token, s.id, 0)).status).toBeLessThan(300);
    const history = await api.history(token, s.id);
    expect(JSON.stringify(history.messages)).toContain("Hi from the model.");

    const readOnly = (
      await api.ok<{ token: string }>("POST", `/v1/sessions/${s.id}/tokens`, {
        key: s.key,
        body: { actions: ["read"] },
      })
    ).token;
    const denied = await api.send(readOnly, s.id, { content: "escalate" }, { json: true });
    expect(denied.status).toBe(403);
    const other = (await api.createSession(s.key, s.agent)).id;
    expect((await api.json("GET", `/v1/sessions/${other}/messages`, { key: token })).status).toBe(403);
    expect(
      (await api.json("POST", `/v1/sessions/${s.id}/tokens`, { key: token, body: { actions: ["read"] } })).status,
    ).toBe(403);
    expect((await api.json("POST", "/v1/sessions", { key: token, body: { agent: s.agent } })).status).toBe(403);
    const tampered = `${token.slice(0, -3)}${token.endsWith("AAA") ? "BBB" : "AAA"}`;
    const bad = await api.json("GET", `/v1/sessions/${s.id}/messages`, { key: tampered });
    expect(bad.status).toBe(401);
    expect(isErrorBody(bad.body)).toBe(true);
    expect((await api.history(s.key, s.id)).messages).toEqual(history.messages);
  });

  it("another tenant's key gets 404 for the session and its tokens route", async () => {
    const s = await session();
    const other = (await api.createKey(`sec-other-${uniqueModel("t")}`)).key;
    expect((await api.getSession(other, s.id)).status).toBe(404);
    expect(
      (await api.json("POST", `/v1/sessions/${s.id}/tokens`, { key: other, body: { actions: ["read"] } })).status,
    ).toBe(404);
  });
});

describe("rate limits in workerd", () => {
  it("a per-key limit answers 429 rate_limited with Retry-After", async () => {
    const { key } = await api.ok<{ key: string }>("POST", "/v1/keys", {
      key: api.admin,
      body: { tenant: `sec-rl-${uniqueModel("t")}`, rate_limit_per_min: 2 },
    });
    expect((await api.json("GET", "/v1/sessions", { key })).status).toBe(200);
    expect((await api.json("GET", "/v1/sessions", { key })).status).toBe(200);
    const res = await api.json("GET", "/v1/sessions", { key });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("the Workers rate-limiting binding enforces the default (600/min) under wrangler dev", async () => {
    const { key } = await api.createKey(`sec-binding-${uniqueModel("t")}`);
    // The binding's window is one minute; if it rolls over mid-test the count restarts, hence the margin.
    let ok = 0;
    let firstLimitedAfter = -1;
    for (let batch = 0; batch < 65 && firstLimitedAfter < 0; batch++) {
      const statuses = await Promise.all(
        Array.from({ length: 20 }, () =>
          api.request("GET", "/v1/sessions?limit=1", { key }).then(async (r) => {
            await r.arrayBuffer();
            return r.status;
          }),
        ),
      );
      for (const status of statuses) {
        if (status === 200) ok += 1;
        else if (status === 429 && firstLimitedAfter < 0) firstLimitedAfter = ok;
      }
    }
    expect(firstLimitedAfter).toBeGreaterThanOrEqual(600);
  }, 120_000);
});

describe("CORS in workerd", () => {
  it("answers a preflight for a tenant's origin and refuses an unknown one", async () => {
    const tenant = `sec-cors-${uniqueModel("t")}`;
    const origin = `https://${tenant}.example.com`;
    await api.ok("PUT", `/v1/tenants/${tenant}/cors`, { key: api.admin, body: { allowed_origins: [origin] } });
    const preflight = (o: string) =>
      fetch(api.url("/v1/sessions/x/messages"), {
        method: "OPTIONS",
        headers: {
          origin: o,
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization",
        },
      });
    const ok = await preflight(origin);
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe(origin);
    const bad = await preflight("https://evil.example.net");
    expect(bad.status).toBe(403);
    expect(bad.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("redirects at tool-call time", () => {
  it("a tool endpoint answering 302 to a private URL gives an is_error result; the target is never reached", async () => {
    const s = await session(`${tools.url}/redirect`);
    await mock.script(s.model, toolCallThenText);
    const turn = await api.sendJson(s.key, s.id, { content: "go" });
    expect(turn.status).toBe("completed");
    const [result] = toolResults((await api.history(s.key, s.id)).messages);
    expect(result).toMatchObject({ is_error: true });
    expect(JSON.stringify(result)).toContain("302");
    expect(tools.calls.some((c) => c.path.startsWith("/secret"))).toBe(false);
  });
});

describe("production URL policy (SWITCHBOARD_ALLOW_PRIVATE_URLS=false)", () => {
  it("refuses private URLs at agent PUT and at tool-call time", async () => {
    const persistDir = await mkdtemp(path.join(tmpdir(), "switchboard-strict-"));
    const vars = {
      SWITCHBOARD_ADMIN_KEY: api.admin,
      ANTHROPIC_API_KEY: "e2e",
      ANTHROPIC_BASE_URL: mock.anthropicBaseUrl,
      SWITCHBOARD_DEBUG_CHECKS: "true",
    };
    try {
      // An agent stored while private URLs were allowed…
      const lax = await startWrangler({ persistDir, vars: { ...vars, SWITCHBOARD_ALLOW_PRIVATE_URLS: "true" } });
      const laxApi = new Api(lax.url, api.admin);
      const model = uniqueModel("strict");
      let key = "";
      let id = "";
      try {
        key = (await laxApi.createKey("strict")).key;
        await laxApi.putAgent("strict-agent", agentWith(model, `${tools.url}/private`));
        id = (await laxApi.createSession(key, "strict-agent")).id;
      } finally {
        await lax.stop();
      }
      // …is refused at call time once they are not; and no new private URL gets in.
      const strict = await startWrangler({
        persistDir,
        migrate: false,
        vars: { ...vars, SWITCHBOARD_ALLOW_PRIVATE_URLS: "false" },
      });
      try {
        const strictApi = new Api(strict.url, api.admin);
        const strictPut = `agent-${uniqueModel("strict-put")}`;
        for (const url of [
          "https://127.0.0.1/x",
          "https://2130706433/",
          "https://[::1]/",
          "https://[::ffff:127.0.0.1]/",
          "https://localhost/",
          "https://169.254.169.254/",
          `${tools.url}/private`,
        ]) {
          const res = await strictApi.json("PUT", `/v1/agents/${strictPut}`, {
            key: api.admin,
            body: agentWith(model, url),
          });
          expect(res.status, url).toBe(400);
          expect(isErrorBody(res.body)).toBe(true);
        }
        expect((await strictApi.json("GET", `/v1/agents/${strictPut}`, { key: api.admin })).status).toBe(404);
        await mock.script(model, toolCallThenText);
        const turn = await strictApi.sendJson(key, id, { content: "go" });
        expect(turn.status).toBe("completed");
        const [result] = toolResults((await strictApi.history(key, id)).messages);
        expect(result).toMatchObject({ is_error: true });
        expect(JSON.stringify(result)).toContain("refused");
        expect(tools.calls.some((c) => c.path.startsWith("/private"))).toBe(false);
      } finally {
        await strict.stop();
      }
    } finally {
      await rm(persistDir, { recursive: true, force: true });
    }
  }, 180_000);
});
