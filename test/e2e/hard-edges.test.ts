// Hard edges through real workerd (`wrangler dev`): provider-reused tool-call ids and built-in calls
// that do not apply, with the strict mock model behind both providers.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { weatherAgent } from "../helpers/fixtures.ts";
import { Api, Mock, type Part, startToolServer, type ToolServer, uniqueModel } from "../helpers/index.ts";

const api = new Api(inject("baseUrl"), inject("adminKey"));
const mock = new Mock(inject("mockUrl"));

let tools: ToolServer;
let tenantKey: string;

beforeAll(async () => {
  tools = await startToolServer((call) => ({ city: (call.input as { city?: string }).city ?? "?", sunny: true }));
  tenantKey = (await api.createKey(`edges-${Date.now()}`)).key;
});

afterAll(async () => {
  await tools?.close();
});

async function setup(provider: "anthropic" | "openai"): Promise<{ model: string; session: string }> {
  const model = uniqueModel(`edges-${provider}`);
  const agent = `agent-${model}`;
  await api.putAgent(agent, weatherAgent(tools.url, model, provider));
  return { model, session: (await api.createSession(tenantKey, agent)).id };
}

describe.each(["anthropic", "openai"] as const)("hard edges under wrangler dev (%s)", (provider) => {
  it("a provider that names every call call_0 keeps working turn after turn", async () => {
    const s = await setup(provider);
    for (const city of ["Paris", "Oslo", "Rome"]) {
      await mock.script(s.model, [
        { reply: { tool_calls: [{ id: "call_0", name: "get_weather", input: { city } }] } },
        { reply: { text: `Sunny in ${city}.` } },
      ]);
      const turn = await api.sendJson(tenantKey, s.session, { content: `weather in ${city}?` });
      expect(turn.error).toBeUndefined();
      expect(turn.status).toBe("completed");
    }
    const parts: Part[] = (await api.history(tenantKey, s.session)).messages.flatMap((m) => m.parts);
    const uses = parts.flatMap((p) => (p.type === "tool_use" ? [p.id] : []));
    const results = parts.flatMap((p) => (p.type === "tool_result" ? [p.tool_use_id] : []));
    expect(uses).toEqual(["call_0", "call_0_2", "call_0_3"]);
    expect(results).toEqual(uses);
    const stats = await mock.stats(s.model);
    expect(stats.model).toMatchObject({ requests: 6, rejected: 0, rejected_p: 0 });
  });

  it("a structured_output call in a turn without json_schema is answered and the turn completes", async () => {
    const s = await setup(provider);
    await mock.script(s.model, [
      { reply: { tool_calls: [{ id: "call_0", name: "structured_output", input: { city: "Oslo" } }] } },
      { reply: { text: "Oslo." } },
    ]);
    const turn = await api.sendJson(tenantKey, s.session, { content: "which city?" });
    expect(turn.status).toBe("completed");
    const parts: Part[] = (await api.history(tenantKey, s.session)).messages.flatMap((m) => m.parts);
    expect(parts.find((p) => p.type === "tool_result")).toMatchObject({ tool_use_id: "call_0", is_error: true });
    expect((await mock.stats(s.model)).model).toMatchObject({ rejected: 0 });
  });
});
