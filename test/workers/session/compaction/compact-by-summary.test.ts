// How far a compaction cuts (src/session/compaction/compact-by-summary.ts): by the estimate calibrated to what the provider
// counts (ContextBudget.ratio), so a history of ids, which a real tokenizer reads ~2.5 times denser than the
// estimate, is cut to well under the limit once, not a step at a time (the mock counts as o200k does); and to half
// the room the limit leaves beside the system prompt and tools, so a system prompt of half the window still leaves
// the steps after a compaction room, where it was over the limit again at the next step.
import { describe, expect, it } from "vitest";
import {
  denseSession,
  fetchStep,
  PROTOCOLS,
  pageTool,
  summariesBeforeEachStep,
  uuidTool,
} from "../../compaction-helpers";
import { ADMIN, apiJson, mockStats, mockWindow, script, send, setup } from "../../helpers";

describe.each(PROTOCOLS)("a turn of 24 steps of UUID pages in a 64,000-token window (%s)", (provider) => {
  it("compacts at most 3 times, where it compacted at every step from the 11th on", async () => {
    const s = await denseSession(provider, 64_000, [uuidTool("fetch_ids", 200)]);
    const steps = Array.from({ length: 24 }, (_, k) => fetchStep(`call_page_${k + 1}`, "fetch_ids"));
    await script(s.model, [...steps, { reply: { text: "Fetched every page." } }]);
    const res = await send(s, { content: "Fetch 24 pages of ids, one page per step, then say you are done." });
    expect(res.body.status).toBe("completed");
    const stats = await mockStats(s.model);
    expect(stats.overflow).toBe(0);
    expect(stats.summaries).toBeLessThanOrEqual(3);
  });
});

describe("an Anthropic turn of small UUID pages, then a large one, in a 32,000-token window", () => {
  it("completes, refused as too long at most once, where even its retry was refused", async () => {
    // max_tokens counted: requests past 23,808 tokens are refused.
    const s = await denseSession("anthropic", 32_000, [uuidTool("fetch_small", 60), uuidTool("fetch_big", 400)]);
    await script(s.model, [
      ...Array.from({ length: 22 }, (_, k) => fetchStep(`call_s${k}`, "fetch_small")),
      fetchStep("call_b1", "fetch_big"),
      ...Array.from({ length: 4 }, (_, k) => fetchStep(`call_t${k}`, "fetch_small")),
      fetchStep("call_b2", "fetch_big"),
      { reply: { text: "done" } },
    ]);
    const res = await send(s, { content: "Fetch the pages one per step, then say done." });
    expect(res.body.status).toBe("completed");
    expect((await mockStats(s.model)).overflow).toBeLessThanOrEqual(1);
  });
});

describe("a turn of 10 steps beside a system prompt of half the window", () => {
  it("is summarised 3 times at most, where it was summarised at every step from the 6th on", async () => {
    // 8,000 tokens, compacting past 6,400: the system prompt takes ~4,000, each step's result 400 (5 % of the window).
    const s = await setup({}, "openai");
    const put = await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: {
        model: { provider: "openai", name: s.model, context_window: 8000 },
        tools: [pageTool("fetch_page", 1600)],
        max_steps: 20,
        system: "You are a careful agent who writes tidy answers. ".repeat(326),
      },
    });
    expect(put.status).toBe(200);
    await mockWindow(s.model, 8000);
    const steps = Array.from({ length: 10 }, (_, k) => fetchStep(`call_page_${k + 1}`, "fetch_page"));
    await script(s.model, [...steps, { reply: { text: "Fetched every page." } }]);
    const res = await send(s, { content: "Fetch 10 pages, one page per step, then say you are done." });
    expect(res.body.status).toBe("completed");
    expect((await mockStats(s.model)).overflow).toBe(0);
    const perStep = await summariesBeforeEachStep(s.model);
    expect(perStep.reduce((n, k) => n + k, 0)).toBeLessThanOrEqual(3);
  });
});
