// Long sessions under real workerd (`wrangler dev`, no eval): a session several times the model's window
// completes every turn, compacts, and keeps its whole history readable (README "Long sessions").
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { weatherAgent } from "../helpers/fixtures.ts";
import { Api, type HistoryMessage, Mock, startToolServer, type ToolServer, uniqueModel } from "../helpers/index.ts";

const api = new Api(inject("baseUrl"), inject("adminKey"));
const mock = new Mock(inject("mockUrl"));
const WINDOW = 6000;

let tools: ToolServer;
let tenantKey: string;

beforeAll(async () => {
  tools = await startToolServer(() => ({ forecast: "sunny", detail: "x".repeat(3000) }));
  tenantKey = (await api.createKey(`compaction-${Date.now()}`)).key;
});

afterAll(async () => {
  await tools?.close();
});

describe.each(["anthropic", "openai"] as const)("a long session under wrangler dev (%s)", (provider) => {
  it("completes 30 turns about 3x the window with zero rejections and every user message readable", async () => {
    const model = uniqueModel(`compaction-${provider}`);
    const agent = `agent-${model}`;
    const base = weatherAgent(tools.url, model, provider);
    await api.putAgent(agent, { ...base, model: { ...base.model, context_window: WINDOW } });
    await mock.contextWindow(model, WINDOW);
    const session = (await api.createSession(tenantKey, agent)).id;
    const statuses: string[] = [];
    for (let i = 1; i <= 30; i++) {
      // Every seventh turn names the tool, so the default brain calls it (a ~3 KB result).
      const ask = i % 7 === 0 ? "use get_weather please. " : "";
      const turn = await api.sendJson(tenantKey, session, { content: `turn-${i}: ${ask}${"words ".repeat(150)}` });
      statuses.push(turn.status);
    }
    expect(statuses.filter((s) => s !== "completed")).toEqual([]);
    const stats = await mock.stats(model);
    expect(stats.model?.rejected).toBe(0);
    expect(stats.model?.overflow).toBe(0);
    const page = await api.ok<{ messages: HistoryMessage[]; compactions: unknown[] }>(
      "GET",
      `/v1/sessions/${session}/messages?limit=1000`,
      { key: tenantKey },
    );
    const text = JSON.stringify(page.messages);
    for (let i = 1; i <= 30; i++) expect(text).toContain(`turn-${i}:`);
    expect(page.compactions.length).toBeGreaterThan(0);
    const state = await api.ok<{ context: { context_window: number; compactions: number } }>(
      "GET",
      `/v1/sessions/${session}`,
      { key: tenantKey },
    );
    expect(state.context.context_window).toBe(WINDOW);
    expect(state.context.compactions).toBe(page.compactions.length);
  });
});
