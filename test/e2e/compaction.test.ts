// Long sessions under real workerd (`wrangler dev`, no eval): a session several times the model's window
// completes every turn, compacts, and keeps its whole history readable (README "Long sessions").
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { weatherAgent } from "../helpers/fixtures.ts";
import { Api, type HistoryMessage, Mock, startToolServer, type ToolServer, uniqueModel } from "../helpers/index.ts";

const api = new Api(inject("baseUrl"), inject("adminKey"));
const mock = new Mock(inject("mockUrl"));
const WINDOW = 6000;
const PROTOCOLS = ["anthropic", "openai", "openai-responses"] as const;

let tools: ToolServer;
let tenantKey: string;

beforeAll(async () => {
  tools = await startToolServer(() => ({ forecast: "sunny", detail: "x".repeat(3000) }));
  tenantKey = (await api.createKey(`compaction-${Date.now()}`)).key;
});

afterAll(async () => {
  await tools?.close();
});

describe.each(PROTOCOLS)("a long session under wrangler dev (%s)", (provider) => {
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

/**
 * `turns` turns (twelve unless said) of `words` repeated words each through an agent with native compaction on
 * `provider` and a `window`-token context; returns what every test of it checks.
 */
async function nativeSession(
  provider: "anthropic" | "openai-responses",
  window: number,
  prefix: string,
  words: number,
  turns = 12,
) {
  const model = uniqueModel(`native-${provider}`);
  const agent = `agent-${model}`;
  const base = weatherAgent(tools.url, model, provider);
  await api.putAgent(agent, {
    ...base,
    model: { ...base.model, context_window: window, capabilities: { native_compaction: true } },
  });
  await mock.contextWindow(model, window);
  const session = (await api.createSession(tenantKey, agent)).id;
  const statuses: string[] = [];
  for (let i = 1; i <= turns; i++) {
    const turn = await api.sendJson(tenantKey, session, { content: `${prefix}-${i}: ${"words ".repeat(words)}` });
    statuses.push(turn.status);
  }
  const page = await api.ok<{ messages: HistoryMessage[]; compactions: Array<{ summary: string }> }>(
    "GET",
    `/v1/sessions/${session}/messages?limit=1000`,
    { key: tenantKey },
  );
  return { statuses, stats: await mock.stats(model), last: (await mock.requests(model)).at(-1), page };
}

/** What native compaction guarantees on every protocol: all turns complete, the provider compacted, no summary of ours. */
function expectNativeCompaction(r: Awaited<ReturnType<typeof nativeSession>>, prefix: string): void {
  expect(r.statuses.filter((s) => s !== "completed")).toEqual([]);
  expect(r.stats.model?.compactions).toBeGreaterThan(0);
  expect(r.stats.model?.rejected).toBe(0);
  expect(r.stats.model?.summaries).toBe(0);
  const text = JSON.stringify(r.page.messages);
  for (let i = 1; i <= r.statuses.length; i++) expect(text).toContain(`${prefix}-${i}:`);
  expect(r.page.compactions.length).toBeGreaterThan(0);
}

describe("native compaction under wrangler dev (anthropic compact_20260112)", () => {
  it("the provider compacts at the trigger; the block goes back verbatim, every turn completes", async () => {
    // 70,000-token window at threshold 0.8: the provider is asked to compact past 56,000 input tokens, and a
    // request may carry 61,808 (the window less the default max_tokens, 8,192), past which our own summary would
    // compact first. Turns of ~3,000 tokens land one between the two.
    const r = await nativeSession("anthropic", 70_000, "native", 2000, 24);
    expectNativeCompaction(r, "native");
    expect(r.last?.headers["anthropic-beta"]).toContain("compact-2026-01-12");
    expect(r.last?.raw).toContain('"type":"compaction"');
    expect(r.page.compactions[0]?.summary).toContain("Compacted summary");
  });
});

describe("native compaction under wrangler dev (OpenAI Responses compact_threshold)", () => {
  it("the provider compacts past the threshold; the item goes back verbatim, every turn completes", async () => {
    // 20,000-token window at threshold 0.8: the provider is asked to compact past 16,000 input tokens.
    const r = await nativeSession("openai-responses", 20_000, "resp", 1000);
    expectNativeCompaction(r, "resp");
    expect(r.last?.path).toBe("/v1/responses");
    expect(r.last?.raw).toContain('{"type":"compaction","encrypted_content":"mockcmp_');
  });
});
