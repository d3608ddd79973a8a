// PUT /v1/agents/{agent} (src/http/routes/agents.ts): a config the agent already has, once normalised, is answered
// as any replacing PUT, and nothing is written, so the sessions of that agent have nothing to re-read (a deploy
// script that PUTs every agent on each deploy costs them nothing); a system prompt larger than the context window
// on its own is refused (agents/normalize.ts), as no turn of such an agent could ever be sent; so is a tool schema
// whose pattern the linear-time regex engine cannot run, as no call of that tool could be checked.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN, api, apiJson, uid } from "../../helpers";

/** The agent-config epoch and the agent's `updated_at`, as D1 holds them. */
async function stored(name: string): Promise<{ epoch: number | null; updated_at: string | null }> {
  const row = await env.DB.prepare(
    "SELECT (SELECT epoch FROM agent_epoch WHERE id = 1) AS epoch, (SELECT updated_at FROM agents WHERE name = ?) AS updated_at",
  )
    .bind(name)
    .first<{ epoch: number | null; updated_at: string | null }>();
  return { epoch: row?.epoch ?? null, updated_at: row?.updated_at ?? null };
}

describe("a PUT of the config an agent already has", () => {
  it("answers 200 with the agent, as a replacing PUT does, and writes nothing", async () => {
    const name = uid("unchanged");
    const put = (model: Record<string, unknown>) =>
      api(`/v1/agents/${name}`, { method: "PUT", key: ADMIN, json: { model, system: "Same." } });
    const first = await put({ provider: "anthropic", name: "m" });
    expect(first.status).toBe(201);
    const created = await first.json();
    const before = await stored(name);
    // The same agent once normalised (the keys of its model in another order).
    const again = await put({ name: "m", provider: "anthropic" });
    expect(again.status).toBe(200);
    expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(await again.json()).toEqual(created);
    expect(await stored(name)).toEqual(before);
  });
});

describe("a PUT whose system prompt alone is over the context window", () => {
  it("is refused 400 naming its estimated size and the window, and stores no agent", async () => {
    const name = uid("wide-system");
    // ~10,000 tokens (4 characters a token) against an 8,000-token window.
    const system = "You are a careful agent. ".repeat(1600);
    const put = await apiJson<{ error: { code: string; message: string } }>(`/v1/agents/${name}`, {
      method: "PUT",
      key: ADMIN,
      json: { model: { provider: "anthropic", name: "m", context_window: 8000 }, system },
    });
    expect([put.status, put.body.error?.code]).toEqual([400, "invalid_request"]);
    expect(put.body.error.message).toMatch(
      /^system: about 10000 tokens \(estimated\), more than model\.context_window \(8000 tokens\)/,
    );
    expect((await api(`/v1/agents/${name}`, { key: ADMIN })).status).toBe(404);
  });
});

describe("a PUT whose tool schema has a pattern with a lookahead", () => {
  it("is refused 422 invalid_schema naming the tool, the pattern and why, and stores no agent", async () => {
    const name = uid("lookahead-tool");
    const input_schema = { type: "object", properties: { pw: { type: "string", pattern: "^(?=.*\\d).{8,}$" } } };
    const put = await apiJson<{ error: { code: string; message: string } }>(`/v1/agents/${name}`, {
      method: "PUT",
      key: ADMIN,
      json: {
        model: { provider: "anthropic", name: "m" },
        tools: [{ name: "set_password", input_schema, execution: { type: "client" } }],
      },
    });
    expect([put.status, put.body.error?.code]).toEqual([422, "invalid_schema"]);
    expect(put.body.error.message).toBe(
      'tools.0.input_schema: "pattern" at /properties/pw: "^(?=.*\\\\d).{8,}$" has a lookahead ((?= or (?!), ' +
        "which the linear-time regex engine cannot run",
    );
    expect((await api(`/v1/agents/${name}`, { key: ADMIN })).status).toBe(404);
  });
});
