// The rest of the security suite in real workerd (`wrangler dev`): keys, tokens, webhook
// signatures, timestamps and replays, oversized and deeply nested bodies, prototype-pollution
// payloads. Every case: the right status, a JSON error, and no state change.
import { randomBytes, randomUUID } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { Api, isErrorBody, Mock, uniqueModel } from "../helpers/index.ts";

const api = new Api(inject("baseUrl"), inject("adminKey"));
const mock = new Mock(inject("mockUrl"));
const secret = `whsec_${randomBytes(32).toString("base64")}`;
let key: string;
let tenant: string;
let agent: string;
let model: string;
let sessionId: string;

beforeAll(async () => {
  tenant = `secin-${randomUUID().slice(0, 8)}`;
  key = (await api.createKey(tenant)).key;
  model = uniqueModel("secin");
  agent = `secin-${model}`;
  await api.putAgent(agent, {
    model: { provider: "anthropic", name: model },
    system: "test",
    webhook_secrets: [secret],
    webhook_tenant: tenant,
  } as never);
  sessionId = (await api.createSession(key, agent)).id;
});

/** The session's observable state, to prove a refused request changed nothing. */
async function snapshot(): Promise<string> {
  const [state, history, runs] = await Promise.all([
    api.ok("GET", `/v1/sessions/${sessionId}`, { key }),
    api.history(key, sessionId),
    mock.requests(model),
  ]);
  return JSON.stringify({ state, history, runs: runs.length });
}

async function expectError(res: Response, status: number): Promise<string> {
  expect(res.status).toBe(status);
  const body: unknown = await res.json();
  expect(isErrorBody(body)).toBe(true);
  return (body as { error: { code: string } }).error.code;
}

function signed(body: string, opts: { id?: string; at?: Date; sign?: string } = {}) {
  const id = opts.id ?? `msg_${randomUUID()}`;
  const at = opts.at ?? new Date();
  return api.request("POST", `/v1/agents/${agent}/runs`, {
    rawBody: body,
    headers: {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(opts.sign ?? secret).sign(id, at, body),
    },
  });
}

describe("keys and tokens", () => {
  it("refuses a missing, malformed or unknown key on tenant routes with 401", async () => {
    const before = await snapshot();
    for (const auth of [undefined, "Bearer", "Basic abc", "Bearer sk_sb_unknown"]) {
      const res = await fetch(api.url(`/v1/sessions/${sessionId}/messages`), {
        method: "POST",
        headers: { "content-type": "application/json", ...(auth ? { authorization: auth } : {}) },
        body: JSON.stringify({ content: "hi" }),
      });
      expect(await expectError(res, 401)).toMatch(/unauthorized/);
    }
    expect(await snapshot()).toBe(before);
  });

  it("refuses the admin key on tenant routes with 403 forbidden (the wrong kind of credential)", async () => {
    const before = await snapshot();
    const res = await fetch(api.url(`/v1/sessions/${sessionId}/messages`), {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${inject("adminKey")}` },
      body: JSON.stringify({ content: "hi" }),
    });
    expect(await expectError(res, 403)).toMatch(/forbidden/);
    expect(await snapshot()).toBe(before);
  });

  it("refuses tampered and malformed session tokens with 401", async () => {
    const { token } = await api.ok<{ token: string }>("POST", `/v1/sessions/${sessionId}/tokens`, {
      key,
      body: { actions: ["read", "send"], ttl_s: 60 },
    });
    const before = await snapshot();
    const [claims, sig] = token.slice(4).split(".");
    const forged = `sbt_${Buffer.from(JSON.stringify({ forged: true })).toString("base64url")}.${sig}`;
    for (const bad of [`${token}x`, `sbt_${claims}.${"A".repeat(sig?.length ?? 10)}`, forged, "sbt_", "sbt_a.b.c"]) {
      const res = await api.request("POST", `/v1/sessions/${sessionId}/messages`, { key: bad, body: { content: "x" } });
      await expectError(res, 401);
    }
    expect(await snapshot()).toBe(before);
  });
});

describe("webhook signatures", () => {
  it("refuses a tampered body, a wrong secret and a missing signature with 401", async () => {
    const body = JSON.stringify({ input: "hello" });
    const before = await snapshot();
    const id = `msg_${randomUUID()}`;
    const at = new Date();
    const good = new Webhook(secret).sign(id, at, body);
    const tampered = await api.request("POST", `/v1/agents/${agent}/runs`, {
      rawBody: JSON.stringify({ input: "HELLO" }),
      headers: {
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        "webhook-signature": good,
      },
    });
    await expectError(tampered, 401);
    await expectError(await signed(body, { sign: `whsec_${randomBytes(32).toString("base64")}` }), 401);
    const unsigned = await api.request("POST", `/v1/agents/${agent}/runs`, { rawBody: body });
    await expectError(unsigned, 401);
    expect(await snapshot()).toBe(before);
    expect(await mock.requests(model)).toHaveLength(0);
  });

  it("refuses timestamps outside the 5-minute window", async () => {
    const body = JSON.stringify({ input: "hello" });
    await expectError(await signed(body, { at: new Date(Date.now() - 6 * 60_000) }), 401);
    await expectError(await signed(body, { at: new Date(Date.now() + 6 * 60_000) }), 401);
  });

  it("treats a replayed webhook-id as the same run", async () => {
    await mock.script(model, [{ reply: { text: "once" } }]);
    const body = JSON.stringify({ input: "replay me" });
    const id = `msg_${randomUUID()}`;
    const first = await signed(body, { id });
    const again = await signed(body, { id });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    const a = (await first.json()) as { run_id: string };
    const b = (await again.json()) as { run_id: string };
    expect(b.run_id).toBe(a.run_id);
    // The run is done before the next test snapshots this model's requests (its request would land in between).
    await api.runReaching(key, a.run_id, "completed");
  });
});

describe("hostile bodies", () => {
  it.each([
    ["an oversized body", () => JSON.stringify({ content: "x".repeat(5_300_000) }), 413],
    ["deeply nested JSON", () => `{"content":"x","max_steps":${"[".repeat(5000)}${"]".repeat(5000)}}`, 400],
    ["a __proto__ payload", () => '{"content":"x","__proto__":{"polluted":true}}', 400],
    ["a constructor.prototype payload", () => '{"content":"x","constructor":{"prototype":{"polluted":true}}}', 400],
    ["malformed JSON", () => '{"content": "x"', 400],
  ])("refuses %s with a JSON error and changes nothing", async (_name, body, status) => {
    const before = await snapshot();
    const res = await api.request("POST", `/v1/sessions/${sessionId}/messages`, { key, rawBody: body() });
    await expectError(res, status);
    expect(await snapshot()).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses a __proto__ key in session metadata and creates nothing", async () => {
    const list = async () =>
      (await api.ok<{ sessions: unknown[] }>("GET", "/v1/sessions?limit=200", { key })).sessions.length;
    const before = await list();
    const res = await api.request("POST", "/v1/sessions", {
      key,
      rawBody: `{"agent":"${agent}","metadata":{"__proto__":{"admin":true}}}`,
    });
    await expectError(res, 400);
    expect(await list()).toBe(before);
  });
});

// Request bodies are validated by the Ajv standalone code generated at build time (src/json-schema/):
// in real workerd it runs without eval and answers a schema violation with the field and what is wrong.
describe("bodies that break their schema", () => {
  async function refusal(res: Response): Promise<string> {
    expect(await expectError(res.clone(), 400)).toBe("invalid_request");
    return ((await res.json()) as { error: { message: string } }).error.message;
  }

  it("names the field and the problem for a message body, and changes nothing", async () => {
    const before = await snapshot();
    const path = `/v1/sessions/${sessionId}/messages`;
    const wrongType = await api.request("POST", path, { key, body: { content: 42 } });
    expect(await refusal(wrongType)).toBe("content: expected string or array, got integer");
    const outOfRange = await api.request("POST", path, { key, body: { content: "x", max_steps: 0 } });
    expect(await refusal(outOfRange)).toBe("max_steps: must be at least 1 (got 0)");
    const unknown = await api.request("POST", path, { key, body: { content: "x", contnet: "y" } });
    expect(await refusal(unknown)).toBe('body: property "contnet" is not allowed');
    expect(await snapshot()).toBe(before);
  });

  it("runs the generated code's runtime helpers (string length, deep equality) in workerd", async () => {
    const before = await snapshot();
    const long = { content: "x", tool_results: [{ tool_use_id: "😀".repeat(257), content: "x" }] };
    const tooLong = await api.request("POST", `/v1/sessions/${sessionId}/messages`, { key, body: long });
    expect(await refusal(tooLong)).toBe("tool_results.0.tool_use_id: must be at most 256 characters long (got 257)");
    const twice = { actions: ["read", "read"] };
    const duplicate = await api.request("POST", `/v1/sessions/${sessionId}/tokens`, { key, body: twice });
    expect(await refusal(duplicate)).toBe("actions: must not contain duplicates (items 0 and 1 are equal)");
    expect(await snapshot()).toBe(before);
  });

  it("names the nested field of an agent config and keeps the agent as it was", async () => {
    const bad = { model: { provider: "anthropic", name: model }, tools: [{ name: "bad name!", input_schema: {} }] };
    const res = await api.request("PUT", `/v1/agents/${agent}`, { key: api.admin, body: bad });
    expect(await refusal(res)).toBe('tools.0: missing required property "execution"');
    const kept = await api.ok<{ system?: string }>("GET", `/v1/agents/${agent}`, { key: api.admin });
    expect(kept.system).toBe("test");
  });
});
