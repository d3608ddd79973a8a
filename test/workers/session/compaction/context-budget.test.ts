// The window a provider's overflow error names (src/session/compaction/context-budget.ts, ContextBudget.learn and
// window) is true of that model only, and only for the conversation that met it: an agent moved to another model is
// sized by its own configuration, and a cleared or deleted session starts from the configured window again; it is
// stored (learned-model.ts), so a restarted object still sizes by it. So is the calibration ratio (ContextBudget.ratio:
// what the provider counts per token of the estimate), which a restarted object sizes its first requests by.
import { abortAllDurableObjects } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { denseSession, fetchStep, uuidTool } from "../../compaction-helpers";
import {
  ADMIN,
  apiJson,
  events,
  mockStats,
  overflowNaming,
  recreate,
  type Setup,
  script,
  send,
  setup,
} from "../../helpers";

/** Twelve short turns (~350 tokens each with the answer): ~4,200 tokens, past a 4,000-token window's threshold. */
async function twelveTurns(s: Setup): Promise<void> {
  for (let i = 1; i <= 12; i++) {
    const turn = await send(s, { content: `short ${i}: ${"lorem ipsum dolor sit amet ".repeat(45)}` });
    expect(turn.body.status).toBe("completed");
  }
}

/** The compactions the session's event log holds. */
async function compactions(s: Setup): Promise<number> {
  return (await events(s)).filter((e) => e.type === "context_compacted").length;
}

/** The window GET /v1/sessions/{id} says compaction works to. */
async function contextWindow(s: Setup): Promise<number> {
  const state = await apiJson<{ context: { context_window: number } }>(`/v1/sessions/${s.session}`, { key: s.key });
  return state.body.context.context_window;
}

describe("a window learned from an overflow error", () => {
  it("survives a restart of the object: GET shows it after the restart as before", async () => {
    const s = await setup({}, "openai");
    await overflowNaming(s, 4000);
    expect(await contextWindow(s)).toBe(4000);
    await abortAllDurableObjects();
    expect(await contextWindow(s)).toBe(4000);
  });

  it("does not size the agent's next model: no compaction after the switch, and GET shows the new window", async () => {
    const s = await setup({}, "openai");
    await overflowNaming(s, 4000);
    const before = await compactions(s);
    const put = await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: { model: { provider: "openai", name: `${s.model}-next`, context_window: 100_000 } },
    });
    expect(put.status).toBe(200);
    await twelveTurns(s);
    expect(await compactions(s)).toBe(before);
    const state = await apiJson<{ context: { context_window: number; estimated_tokens: number; used: number } }>(
      `/v1/sessions/${s.session}`,
      { key: s.key },
    );
    expect(state.body.context.context_window).toBe(100_000);
    expect(state.body.context.used).toBeCloseTo(state.body.context.estimated_tokens / 100_000, 2);
  });

  it("is forgotten by /clear: the cleared session compacts by the configured window", async () => {
    const s = await setup({}, "openai");
    await overflowNaming(s, 4000);
    expect((await apiJson(`/v1/sessions/${s.session}/clear`, { method: "POST", key: s.key })).status).toBe(200);
    const before = await compactions(s);
    await twelveTurns(s);
    expect(await compactions(s)).toBe(before);
  });

  it("is forgotten by DELETE: a session created again under the same id compacts by the configured window", async () => {
    const s = await setup({}, "openai");
    await overflowNaming(s, 4000);
    await recreate(s);
    await twelveTurns(s);
    expect(await compactions(s)).toBe(0);
  });
});

describe("the calibration ratio", () => {
  it("survives a restart: a first request of ids past the limit after one is compacted before it is sent", async () => {
    // Anthropic, 32,000 tokens with max_tokens counted: requests past 23,808 tokens are refused. Four pages of 200
    // UUIDs (~19,000 tokens as the provider counts them, ~7,500 as estimated) teach a ratio of ~2.5.
    const s = await denseSession("anthropic", 32_000, [uuidTool("fetch_ids", 200)]);
    const pages = Array.from({ length: 4 }, (_, k) => fetchStep(`call_page_${k + 1}`, "fetch_ids"));
    await script(s.model, [...pages, { reply: { text: "Four pages." } }]);
    expect((await send(s, { content: "Fetch four pages of ids, then say so." })).body.status).toBe("completed");
    await abortAllDurableObjects();
    // 300 more pasted by the user (~7,000 tokens counted, ~2,800 estimated): the restarted object's first request
    // is past the limit only as the provider counts it, with no usage report of its own yet to read.
    const pasted = await (await fetch(`${env.MOCK_URL}/_tool?dense=300&kind=uuids`, { method: "POST" })).text();
    await script(s.model, [{ reply: { text: "Noted." } }]);
    expect((await send(s, { content: `Keep these ids too:\n${pasted}` })).body.status).toBe("completed");
    const stats = await mockStats(s.model);
    expect(stats.overflow).toBe(0);
    expect(stats.summaries).toBeGreaterThan(0);
  });
});
