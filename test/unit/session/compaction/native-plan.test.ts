// Whether the provider compacts for an agent (src/session/compaction/native-plan.ts): nativePlan says when the provider
// compacts, at which trigger, and why not.
import { describe, expect, it } from "vitest";
import type { AgentConfig } from "../../../../src/agents/types";
import { ContextBudget } from "../../../../src/session/compaction/context-budget";
import { nativePlan } from "../../../../src/session/compaction/native-plan";
import type { HistoryStore } from "../../../../src/session/history/history-store";

/** A budget that has learned nothing (no usage report, no window from an error, nothing dropped); it reads no view. */
function fresh(): ContextBudget {
  return new ContextBudget({} as SqlStorage, {} as HistoryStore);
}

describe("nativePlan", () => {
  /** An agent whose model declares native compaction (threshold 0.8), on `provider` with this window; `extra` overrides. */
  const agent = (provider: string, context_window: number, extra: Record<string, unknown> = {}) =>
    ({
      model: { provider, name: "native-test", context_window, capabilities: { native_compaction: true }, ...extra },
      compaction: { enabled: true, threshold: 0.8, keep_recent_turns: 2 },
    }) as unknown as AgentConfig;

  it("asks the provider to compact at the threshold share of the window", () => {
    expect(nativePlan(agent("anthropic", 70_000), fresh())).toEqual({ native: true, trigger: 56_000 });
  });

  it("is not native, with no reason, when the model does not declare it", () => {
    const undeclared = agent("anthropic", 70_000, { capabilities: {} });
    expect(nativePlan(undeclared, fresh())).toEqual({ native: false, reason: null });
  });

  it("takes the threshold share of the input an output limit leaves, when that is below the window's share", () => {
    const plan = nativePlan(agent("openai-responses", 16_000, { max_tokens: 6000 }), fresh());
    expect(plan).toEqual({ native: true, trigger: 8000 });
  });

  it("raises the trigger to Anthropic's 50,000-token minimum while that is below the input a request can carry", () => {
    expect(nativePlan(agent("anthropic", 60_000), fresh())).toEqual({ native: true, trigger: 50_000 });
  });

  it("says why not when the input a request can carry is no more than the minimum trigger", () => {
    expect(nativePlan(agent("anthropic", 55_000), fresh())).toEqual({
      native: false,
      reason:
        "the window (55000 tokens) less the output limit (8192 tokens) is too small for the provider's minimum compaction trigger (50000)",
    });
  });

  it("says why not on Chat Completions, which has no server-side compaction", () => {
    const plan = nativePlan(agent("openai", 100_000), fresh());
    expect(plan.native).toBe(false);
    expect(!plan.native && plan.reason).toContain("only on the Responses API");
  });

  it("says why not while the provider's last compaction is marked dropped as too large to store", () => {
    const budget = fresh();
    budget.droppedNative = 300_000;
    const plan = nativePlan(agent("anthropic", 70_000), budget);
    expect(!plan.native && plan.reason).toContain("(300000 bytes) was too large to store");
  });

  it("asks the provider again once the conversation is forgotten", () => {
    const budget = fresh();
    budget.droppedNative = 300_000;
    budget.forget();
    expect(nativePlan(agent("anthropic", 70_000), budget)).toEqual({ native: true, trigger: 56_000 });
  });
});
