// A step inside its context budget (src/session/compaction/run-budgeted-step.ts): an agent whose 10M-token window
// its history is far from still compacts before a step once the view it holds in memory passes MAX_VIEW_BYTES
// (ContextBudget.over), so the object's 128 MB never has to hold a view the size such a window allows; a step pays
// at most two compactions before its request is sent (compactToFit), where a compaction whose rebuilt request was
// still above the limit was followed by one cutting a step later, and another, as long as it stayed above; and a
// cancel while the compaction forced by a provider's "too long" runs ends the turn cancelled, not failed as an
// overflow; and, compaction off, a "too long" turn fails not retryable, naming POST /compact, which unsticks it.
import { describe, expect, it } from "vitest";
import { MAX_VIEW_BYTES } from "../../../../src/storage/limits";
import { city, longSession, requestText, summariesBeforeEachStep, turns } from "../../compaction-helpers";
import {
  ADMIN,
  api,
  apiJson,
  COMPACTION_TOOLS,
  events,
  mockStats,
  mockWindow,
  script,
  seed,
  send,
  setup,
  summaryScript,
  uiChunks,
  uid,
} from "../../helpers";

/** 20,000 characters (the seeding route's most) that name turn i. */
const longText = (i: number) => `turn ${i}: ${"lorem ipsum dolor sit amet ".repeat(800)}`.slice(0, 20_000);

describe("a view past MAX_VIEW_BYTES under a 10M-token window", () => {
  it("is compacted before the step is sent, each request well within the budget", async () => {
    const s = await setup();
    const put = await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: { model: { provider: "anthropic", name: s.model, context_window: 10_000_000 } },
    });
    expect(put.status).toBe(200);
    // Stored, the seeded turns pass the budget (40 KB each); estimated, they are a third of the window's threshold.
    await seed(s, Math.ceil(MAX_VIEW_BYTES / 40_000) + 20, longText);
    // The mock refuses a request over 2M tokens (8 MB of body, 4 bytes a token) as too long, as a provider would:
    // the seeded view (12.8 MB) is refused, half the budget is not.
    await mockWindow(s.model, 2_000_000);
    await script(s.model, [{ reply: { text: "answered" } }]);
    const res = await send(s, { content: "one more question" });
    expect(res.body.status).toBe("completed");
    const stats = await mockStats(s.model);
    expect(stats.overflow).toBe(0);
    expect(stats.summaries).toBeGreaterThan(0);
    const compacted = (await events(s)).filter((e) => e.type === "context_compacted");
    expect(compacted).toHaveLength(1);
    // For its size: its estimate was below the window's threshold (8M tokens).
    expect(compacted[0]?.data.tokens_before).toBeLessThan(8_000_000);
  });
});

describe('a cancel while the compaction after a provider\'s "too long" runs', () => {
  it("ends the turn cancelled, its stream in abort and finish", async () => {
    const s = await longSession("anthropic", { compaction: { keep_recent_turns: 0 } });
    expect(await turns(s, 1, 3)).toEqual(["completed", "completed", "completed"]);
    await script(s.model, [{ error: { status: 400, message: "prompt is too long: 210000 tokens > 200000 maximum" } }]);
    // The summary request stalls until it is aborted.
    await summaryScript(s.model, [{ reply: { text: "never" }, faults: { stall_before_ms: 30_000 } }]);
    const running = api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "one more question" },
      headers: { accept: "text/event-stream" },
    });
    for (let i = 0; i < 400 && (await mockStats(s.model)).summaries !== 1; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    expect((await mockStats(s.model)).summaries).toBe(1);
    const cancel = await apiJson<{ status: string }>(`/v1/sessions/${s.session}/cancel`, {
      method: "POST",
      key: s.key,
    });
    expect(cancel.body.status).toBe("cancelled");
    const chunks = await uiChunks(await running);
    expect(chunks.slice(-2).map((c) => c.type)).toEqual(["abort", "finish"]);
    const state = await apiJson<{ last_turn: { status: string } }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.last_turn.status).toBe("cancelled");
  });
});

describe("a turn of 60 small steps beside a system prompt of two fifths of the limit, each summary long", () => {
  it("pays at most two summary requests before a step, none refused as too long, where one step paid 14", async () => {
    // Anthropic, 8,000 tokens with max_tokens 2,000 counted: requests past 6,000 tokens are refused. A system
    // prompt of ~2,500 tokens, steps of ~150 and summaries of ~1,400: a compaction that kept half the limit left its
    // request over it, and the next cut one step later, and the next, each paying a summary.
    const s = await setup({}, "anthropic");
    const put = await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: {
        model: { provider: "anthropic", name: s.model, context_window: 8000, max_tokens: 2000 },
        tools: COMPACTION_TOOLS,
        max_steps: 64,
        system: "You are a careful agent who writes tidy answers. ".repeat(204),
      },
    });
    expect(put.status).toBe(200);
    await mockWindow(s.model, 8000, true);
    await summaryScript(
      s.model,
      Array.from({ length: 60 }, (_, k) => ({ reply: { text: `Summary ${k}: ${"the work so far. ".repeat(330)}` } })),
    );
    const steps = Array.from({ length: 60 }, (_, k) => ({
      reply: { tool_calls: [{ id: `call_small_${k}`, name: "echo_core", input: { city: city(k, 2) } }] },
    }));
    await script(s.model, [...steps, { reply: { text: "done" } }]);
    const res = await send(s, { content: requestText(60) });
    expect(res.body.status).toBe("completed");
    expect((await mockStats(s.model)).overflow).toBe(0);
    const perStep = await summariesBeforeEachStep(s.model);
    expect(Math.max(...perStep)).toBeLessThanOrEqual(2);
  });
});

describe('a "too long" turn of an agent with compaction off', () => {
  it("fails not retryable, naming POST /compact, and after POST /compact the next message completes", async () => {
    const s = await setup({}, "openai");
    const put = await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: { model: { provider: "openai", name: s.model, context_window: 4000 }, compaction: { enabled: false } },
    });
    expect(put.status).toBe(200);
    await mockWindow(s.model, 4000);
    // ~800 tokens a message, echoed back by the mock: the third turn's request is past the window.
    const message = (i: number) => `${uid(`msg-${i}`)}: ${"lorem ipsum dolor sit amet ".repeat(118)}`;
    type Turn = { status: string; error?: { code: string; message: string; retryable?: boolean } };
    const sent: Turn[] = [];
    for (let i = 1; i <= 6; i++) {
      const res = await apiJson<Turn>(`/v1/sessions/${s.session}/messages`, {
        method: "POST",
        key: s.key,
        json: { content: message(i) },
      });
      sent.push(res.body);
    }
    expect(sent[0]?.status).toBe("completed");
    const last = sent.at(-1);
    expect(last?.status).toBe("failed");
    expect(last?.error?.code).toBe("context_overflow");
    expect(last?.error?.retryable).toBe(false);
    expect(last?.error?.message).toContain("POST /v1/sessions/{id}/compact");
    expect(last?.error?.message).not.toContain("even compacted");
    const compacted = await apiJson(`/v1/sessions/${s.session}/compact`, { method: "POST", key: s.key });
    expect(compacted.status).toBe(200);
    const next = await send(s, { content: message(7) });
    expect(next.body.status).toBe("completed");
  });
});
