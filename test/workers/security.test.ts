// Security through the public API: keys, session tokens and their scopes. Every refusal is a JSON error and
// leaves history as it was.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { mintToken, type TokenClaims } from "../../src/http/tokens";
import { ADMIN, api, apiJson, history, type Setup, script, setup, sseFrames, tenantKey } from "./helpers";

type ErrorBody = { error: { code: string; message: string } };
type Token = { token: string; expires_at: string; actions: string[] };

async function token(s: Setup, actions: string[], ttl_s?: number): Promise<string> {
  const res = await apiJson<Token>(`/v1/sessions/${s.session}/tokens`, {
    method: "POST",
    key: s.key,
    json: { actions, ...(ttl_s ? { ttl_s } : {}) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.token;
}

/** A token's claims, read without checking its signature. */
function claimsOf(token: string): TokenClaims {
  const [body] = token.slice(4).split(".");
  return JSON.parse(atob(String(body).replaceAll("-", "+").replaceAll("_", "/")));
}

/** Every session route with the action a token needs for it. */
const ROUTES = [
  ["GET", "", "read"],
  ["GET", "/messages", "read"],
  ["GET", "/events", "read"],
  ["GET", "/stream", "stream"],
  ["POST", "/messages", "send", { content: "intrude" }],
  ["POST", "/tool-results", "send", { results: [{ tool_use_id: "toolu_x", content: "x" }] }],
  ["POST", "/chat", "send", { messages: [{ role: "user", parts: [{ type: "text", text: "intrude" }] }] }],
  ["POST", "/retry", "send"],
  ["POST", "/cancel", "send"],
] as const;

describe("session tokens: minting", () => {
  it("mints a token for one session with bounded ttl", async () => {
    const s = await setup();
    const before = Date.now();
    const res = await apiJson<Token>(`/v1/sessions/${s.session}/tokens`, {
      method: "POST",
      key: s.key,
      json: { actions: ["stream", "send", "read"], ttl_s: 120 },
    });
    expect(res.status).toBe(201);
    expect(res.body.token).toMatch(/^sbt_[\w-]+\.[\w-]+$/);
    expect(res.body.actions).toEqual(["send", "stream", "read"]);
    const exp = Date.parse(res.body.expires_at);
    expect(exp).toBeGreaterThanOrEqual(before + 119_000);
    expect(exp).toBeLessThanOrEqual(Date.now() + 121_000);
  });

  it.each([
    [{ actions: ["read"], ttl_s: 59 }],
    [{ actions: ["read"], ttl_s: 86_401 }],
    [{ actions: ["read"], ttl_s: 1.5 }],
    [{ actions: [] }],
    [{ actions: ["admin"] }],
    [{ actions: ["read", "read"] }],
    [{ ttl_s: 900 }],
    [{ actions: ["read"], session: "other" }],
  ])("refuses a bad body %j with 400", async (json) => {
    const s = await setup();
    const res = await apiJson<ErrorBody>(`/v1/sessions/${s.session}/tokens`, { method: "POST", key: s.key, json });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
  });

  it("answers 404 for another tenant's session and 401 without a key", async () => {
    const s = await setup();
    const other = await tenantKey();
    const json = { actions: ["read"] };
    const path = `/v1/sessions/${s.session}/tokens`;
    expect((await apiJson(path, { method: "POST", key: other, json })).status).toBe(404);
    expect((await apiJson(path, { method: "POST", json })).status).toBe(401);
  });
});

describe("session tokens: a mobile-style client", () => {
  it("chats with only a session token: send, stream, read", async () => {
    const s = await setup();
    const t = await token(s, ["send", "stream", "read"]);
    await script(s.model, [{ reply: { text: "Hello from the model." } }]);
    const sent = await api(`/v1/sessions/${s.session}/messages`, { method: "POST", key: t, json: { content: "hi" } });
    expect(sent.status).toBe(200);
    const frames = await sseFrames(sent);
    expect(frames.at(-1)?.data).toBe("[DONE]");
    expect(frames.some((f) => f.data.includes("text-delta"))).toBe(true);
    const replay = await api(`/v1/sessions/${s.session}/stream?after=0`, { key: t });
    expect([200, 204]).toContain(replay.status);
    if (replay.status === 200) expect((await sseFrames(replay)).length).toBeGreaterThan(0);
    const msgs = await apiJson<{ messages: unknown[] }>(`/v1/sessions/${s.session}/messages`, { key: t });
    expect(msgs.status).toBe(200);
    expect(msgs.body.messages).toHaveLength(2);
    expect(JSON.stringify(msgs.body.messages[1])).toContain("Hello from the model.");
    expect((await apiJson(`/v1/sessions/${s.session}`, { key: t })).status).toBe(200);
    expect((await apiJson(`/v1/sessions/${s.session}/events`, { key: t })).status).toBe(200);
  });
});

describe("session tokens: scope", () => {
  it("a token without an action gets 403 insufficient_scope on every route needing it, history unchanged", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }]);
    await apiJson(`/v1/sessions/${s.session}/messages`, { method: "POST", key: s.key, json: { content: "hi" } });
    const before = await history(s);
    const tokens = {
      read: await token(s, ["read"]),
      send: await token(s, ["send"]),
      stream: await token(s, ["stream"]),
    };
    for (const [method, path, needs, json] of ROUTES) {
      for (const [has, t] of Object.entries(tokens)) {
        if (has === needs) continue;
        const res = await apiJson<ErrorBody>(`/v1/sessions/${s.session}${path}`, { method, key: t, json });
        expect(res.status, `${has} token on ${method} ${path}`).toBe(403);
        expect(res.body.error.code).toBe("insufficient_scope");
      }
    }
    expect(await history(s)).toEqual(before);
  });

  it("a token for session A is refused (403) on session B, existing or not, and B is untouched", async () => {
    const a = await setup();
    const bSession = await apiJson<{ id: string }>("/v1/sessions", {
      method: "POST",
      key: a.key,
      json: { agent: a.agent },
    });
    const b: Setup = { ...a, session: bSession.body.id };
    const t = await token(a, ["send", "stream", "read"]);
    for (const target of [b.session, "no-such-session"]) {
      for (const [method, path, , json] of ROUTES) {
        const res = await apiJson<ErrorBody>(`/v1/sessions/${target}${path}`, { method, key: t, json });
        expect(res.status, `${method} ${target}${path}`).toBe(403);
        expect(res.body.error.code).toBe("forbidden");
      }
    }
    expect(await history(b)).toEqual([]);
  });

  it("a token cannot create sessions or tokens, list, clear or delete sessions, or reach admin routes", async () => {
    const s = await setup();
    const t = await token(s, ["send", "stream", "read"]);
    const cases = [
      ["POST", "/v1/sessions", { agent: s.agent }, 403],
      ["GET", "/v1/sessions", undefined, 403],
      ["POST", `/v1/sessions/${s.session}/tokens`, { actions: ["read"], ttl_s: 86_400 }, 403],
      ["POST", `/v1/sessions/${s.session}/clear`, undefined, 403],
      ["DELETE", `/v1/sessions/${s.session}`, undefined, 403],
      ["POST", "/v1/keys", { tenant: "x" }, 403],
      ["PUT", `/v1/agents/${s.agent}`, { model: { provider: "anthropic", name: "m" } }, 403],
      ["PUT", "/v1/tenants/x/cors", { allowed_origins: [] }, 403],
    ] as const;
    const listBefore = await apiJson<{ sessions: unknown[] }>("/v1/sessions", { key: s.key });
    for (const [method, path, json, status] of cases) {
      const res = await apiJson<ErrorBody>(path, { method, key: t, json });
      expect(res.status, `${method} ${path}`).toBe(status);
      expect(typeof res.body.error.code).toBe("string");
    }
    expect((await apiJson<{ sessions: unknown[] }>("/v1/sessions", { key: s.key })).body).toEqual(listBefore.body);
    expect((await apiJson(`/v1/sessions/${s.session}`, { key: t })).status).toBe(200);
  });
});

describe("session tokens: invalid ones", () => {
  it("refuses tampered, forged, malformed and expired tokens with 401", async () => {
    const s = await setup();
    const good = await token(s, ["read"]);
    const [body, sig] = good.slice(4).split(".");
    const claims = claimsOf(good);
    const reencode = (v: unknown) =>
      btoa(JSON.stringify(v)).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
    const escalated = `sbt_${reencode({ ...claims, act: ["send", "stream", "read"] })}.${sig}`;
    const flipped = good.slice(0, -2) + (good.endsWith("AA") ? "BB" : "AA");
    const foreign = await mintToken({ ...env, SWITCHBOARD_TOKEN_SECRET: "not-the-server-secret" }, claims);
    const expired = await mintToken(env, { ...claims, exp: Math.floor(Date.now() / 1000) - 1 });
    const path = `/v1/sessions/${s.session}/messages`;
    for (const [what, t, code] of [
      ["escalated claims", escalated, "unauthorized"],
      ["flipped signature", flipped, "unauthorized"],
      ["foreign secret", foreign, "unauthorized"],
      ["no signature", `sbt_${body}`, "unauthorized"],
      ["garbage", "sbt_!!!.???", "unauthorized"],
      ["expired", expired, "token_expired"],
    ] as const) {
      const res = await apiJson<ErrorBody>(path, { key: t });
      expect(res.status, what).toBe(401);
      expect(res.body.error.code, what).toBe(code);
      const send = await apiJson<ErrorBody>(path, { method: "POST", key: t, json: { content: "x" } });
      expect(send.status, `${what} (send)`).toBe(401);
    }
    expect(await history(s)).toEqual([]);
  });

  it("a token minted before its session was deleted opens nothing of a new session of the same id (404, as missing)", async () => {
    const s0 = await setup();
    const s: Setup = { ...s0, session: `reused-${s0.session}` };
    const create = (metadata: Record<string, unknown>) =>
      apiJson("/v1/sessions", { method: "POST", key: s.key, json: { agent: s.agent, id: s.session, metadata } });
    expect((await create({ owner: "first" })).status).toBe(201);
    const old = await token(s, ["send", "stream", "read", "approve"]);
    expect((await apiJson(`/v1/sessions/${s.session}`, { method: "DELETE", key: s.key })).status).toBe(200);
    expect((await create({ owner: "second" })).status).toBe(201);
    for (const [method, path, , json] of ROUTES) {
      const res = await apiJson<ErrorBody>(`/v1/sessions/${s.session}${path}`, { method, key: old, json });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code, `${method} ${path}`).toBe("not_found");
    }
    expect(await history(s)).toEqual([]);
    const fresh = await apiJson<{ metadata: unknown }>(`/v1/sessions/${s.session}`, {
      key: await token(s, ["read"]),
    });
    expect(fresh.status).toBe(200);
    expect(fresh.body.metadata).toEqual({ owner: "second" });
  });

  it("a token minted in the second its session was deleted and created again opens nothing of the new one (404)", async () => {
    const s0 = await setup();
    const s: Setup = { ...s0, session: `same-second-${s0.session}` };
    const create = () =>
      apiJson<{ created_at: string }>("/v1/sessions", {
        method: "POST",
        key: s.key,
        json: { agent: s.agent, id: s.session },
      });
    await create();
    const minted = claimsOf(await token(s, ["read"]));
    await apiJson(`/v1/sessions/${s.session}`, { method: "DELETE", key: s.key });
    const again = await create();
    // The same token as minted in the second the new session was created: its iat alone cannot tell them apart.
    const sameSecond = await mintToken(env, { ...minted, iat: Math.floor(Date.parse(again.body.created_at) / 1000) });
    const res = await apiJson<ErrorBody>(`/v1/sessions/${s.session}`, { key: sameSecond });
    expect([res.status, res.body.error?.code]).toEqual([404, "not_found"]);
  });

  it("a token minted before tokens named their session's incarnation still opens the session it was minted for", async () => {
    const s = await setup();
    const { inc: _inc, ...legacy } = claimsOf(await token(s, ["read"]));
    const res = await apiJson(`/v1/sessions/${s.session}`, { key: await mintToken(env, legacy) });
    expect(res.status).toBe(200);
  });

  it("a token minted before tokens named their session's incarnation opens nothing of a session created in a later second (404)", async () => {
    const s = await setup();
    const { inc: _inc, ...legacy } = claimsOf(await token(s, ["read"]));
    const state = await apiJson<{ created_at: string }>(`/v1/sessions/${s.session}`, { key: s.key });
    const iat = Math.floor(Date.parse(state.body.created_at) / 1000) - 1;
    const res = await apiJson<ErrorBody>(`/v1/sessions/${s.session}`, {
      key: await mintToken(env, { ...legacy, iat }),
    });
    expect([res.status, res.body.error?.code]).toEqual([404, "not_found"]);
  });

  it("revoking the API key that minted a token revokes the token", async () => {
    const created = await apiJson<{ id: string; key: string }>("/v1/keys", {
      method: "POST",
      key: ADMIN,
      json: { tenant: `revoke-tokens-${Date.now()}` },
    });
    const s0 = await setup();
    const ses = await apiJson<{ id: string }>("/v1/sessions", {
      method: "POST",
      key: created.body.key,
      json: { agent: s0.agent },
    });
    const s: Setup = { ...s0, key: created.body.key, session: ses.body.id };
    const t = await token(s, ["read"]);
    expect((await apiJson(`/v1/sessions/${s.session}`, { key: t })).status).toBe(200);
    await apiJson(`/v1/keys/${created.body.id}`, { method: "DELETE", key: ADMIN });
    expect((await apiJson(`/v1/sessions/${s.session}`, { key: t })).status).toBe(401);
  });

  it.each([
    ["no header", undefined],
    ["Basic auth", "Basic dXNlcjpwdw=="],
    ["empty bearer", "Bearer "],
    ["two tokens", "Bearer a b"],
  ])("refuses %s with 401 JSON", async (_what, header) => {
    const s = await setup();
    const headers: Record<string, string> = header ? { authorization: header } : {};
    const res = await apiJson<ErrorBody>(`/v1/sessions/${s.session}/messages`, { headers });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("unauthorized");
  });
});
