// One tool call checked and run (src/session/turn/execute.ts): an agent tool saved before its schema's pattern was
// refused (a lookahead, which the linear-time regex engine cannot run) keeps the tool, and each call of it is
// answered as invalid with the reason, never run.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN, apiJson, history, type Setup, script, send, tenantKey, uid } from "../../helpers";

const schemaWith = (pattern: string) => ({ type: "object", properties: { code: { type: "string", pattern } } });

/**
 * A session of an agent whose http tool `lookup` has a lookahead pattern: saved with an ordinary pattern, then the
 * stored config is given the lookahead in D1 itself, as a config saved before the refusal holds it.
 */
async function agentSavedEarlier(): Promise<Setup> {
  const key = await tenantKey();
  const agent = uid("agent");
  const model = uid("mock-anthropic");
  const lookup = {
    name: "lookup",
    description: "looks a code up",
    input_schema: schemaWith("^.{8,}$"),
    execution: { type: "http", url: `${env.MOCK_URL}/_tool` },
  };
  const put = await apiJson(`/v1/agents/${agent}`, {
    method: "PUT",
    key: ADMIN,
    json: { model: { provider: "anthropic", name: model }, tools: [lookup] },
  });
  if (put.status !== 201) throw new Error(`agent: ${put.status} ${JSON.stringify(put.body)}`);
  const row = await env.DB.prepare("SELECT config FROM agents WHERE name = ?").bind(agent).first<{ config: string }>();
  const config = JSON.parse(row?.config as string) as { tools: Array<{ input_schema: unknown }> };
  (config.tools[0] as { input_schema: unknown }).input_schema = schemaWith("^(?=.*\\d).{8,}$");
  await env.DB.prepare("UPDATE agents SET config = ? WHERE name = ?").bind(JSON.stringify(config), agent).run();
  const ses = await apiJson<{ id: string }>("/v1/sessions", { method: "POST", key, json: { agent } });
  if (ses.status !== 201) throw new Error(`session: ${ses.status} ${JSON.stringify(ses.body)}`);
  return { key, agent, model, session: ses.body.id };
}

describe("an agent tool saved with a pattern the linear-time engine cannot run", () => {
  it("answers its call as invalid, naming the pattern and why", async () => {
    const s = await agentSavedEarlier();
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_lookup_code", name: "lookup", input: { code: "abc12345" } }] } },
      { reply: { text: "It could not be looked up." } },
    ]);
    expect((await send(s, { content: "look up abc12345" })).body.status).toBe("completed");
    const result = (await history(s)).flatMap((m) => m.parts).find((p) => p.type === "tool_result");
    expect(result).toMatchObject({ tool_use_id: "toolu_lookup_code", is_error: true });
    expect(String(result?.content)).toContain(
      `- the tool's own schema is invalid: "pattern" at /properties/code: "^(?=.*\\\\d).{8,}$" has a lookahead ` +
        "((?= or (?!), which the linear-time regex engine cannot run",
    );
  });
});
