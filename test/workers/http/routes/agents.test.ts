// PUT /v1/agents/{agent} (src/http/routes/agents.ts) of a config the agent already has, once normalised: answered
// as any replacing PUT, and nothing is written, so the sessions of that agent have nothing to re-read (a deploy
// script that PUTs every agent on each deploy costs them nothing).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN, api, uid } from "../../helpers";

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
