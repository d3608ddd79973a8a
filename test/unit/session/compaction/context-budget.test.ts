// The context budget (src/session/compaction/context-budget.ts) in Node: usage estimates each message once (and a
// view not in memory from its stored sizes), over compacts a view too large to hold whatever the window, learn reads
// a model's window from each server's overflow error, estimate reads a usage report only of the model it sizes,
// ratio calibrates the estimate by what reports and overflow errors counted.
import { describe, expect, it, vi } from "vitest";
import type { AgentConfig } from "../../../../src/agents/types";
import type { Message } from "../../../../src/model/message";
import { ContextBudget } from "../../../../src/session/compaction/context-budget";
import { sizeTokens, textTokens } from "../../../../src/session/compaction/estimate";
import type { HistoryStore } from "../../../../src/session/history/history-store";
import { MAX_VIEW_BYTES } from "../../../../src/storage/limits";

vi.mock("../../../../src/session/compaction/estimate", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../../src/session/compaction/estimate")>();
  return { ...real, textTokens: vi.fn(real.textTokens) };
});

const message = (seq: number, text: string): Message => ({
  seq,
  role: seq % 2 ? "user" : "assistant",
  origin: "client",
  turn_id: `turn_${seq}`,
  parts: [{ type: "text", text }],
  created_at: "",
});

/** A budget over `history` (no compaction stored). */
function budgetWith(history: Partial<HistoryStore>): ContextBudget {
  const sql = { exec: () => ({ toArray: () => [{ n: 0 }] }) };
  return new ContextBudget(sql as unknown as SqlStorage, history as HistoryStore);
}

/** A budget over an in-memory view (what `usage` reads: the messages, no preamble, no compaction). */
function budgetOver(messages: Message[]): ContextBudget {
  return budgetWith({
    messages: () => messages,
    cachedMessages: () => messages,
    preamble: () => null,
    viewStart: () => 0,
  });
}

describe("ContextBudget.usage", () => {
  it("estimates each message once: a repeated read sizes only the message added since", () => {
    const messages = Array.from({ length: 50 }, (_, i) => message(i + 1, `message ${i} `.repeat(100)));
    const budget = budgetOver(messages);
    const first = budget.usage().estimated_tokens;
    vi.mocked(textTokens).mockClear();
    expect(budget.usage().estimated_tokens).toBe(first);
    expect(vi.mocked(textTokens)).not.toHaveBeenCalled();
    const added = message(51, "one more");
    messages.push(added);
    expect(budget.usage().estimated_tokens).toBe(first + textTokens(JSON.stringify(added.parts)));
    expect(vi.mocked(textTokens)).toHaveBeenCalledTimes(2); // the new message, and the expectation's own
  });
});

describe("ContextBudget.usage of a view not in memory", () => {
  it("estimates it from the stored sizes, parsing no message", () => {
    const size = { bytes: 9_000_000, chars: 8_000_000 };
    const budget = budgetWith({
      messages: () => {
        throw new Error("the view was read");
      },
      cachedMessages: () => null,
      viewSize: () => ({ ...size }),
      preamble: () => null,
      viewStart: () => 0,
    });
    expect(budget.usage().estimated_tokens).toBe(sizeTokens(size));
  });
});

describe("ContextBudget.over", () => {
  /** Compaction on, a 10M-token window: an estimate of 1,000 tokens is far below its limit. */
  const agent = {
    model: { provider: "anthropic", name: "over-test", context_window: 10_000_000, capabilities: {} },
    compaction: { enabled: true, threshold: 0.8, keep_recent_turns: 2 },
  } as unknown as AgentConfig;
  const over = (bytes: number) => budgetWith({ viewSize: () => ({ bytes, chars: bytes }) }).over(agent, 1000);

  it("compacts a view stored in more than MAX_VIEW_BYTES, however far its request is below the window", () => {
    expect(over(MAX_VIEW_BYTES)).toBe(false);
    expect(over(MAX_VIEW_BYTES + 1)).toBe(true);
  });
});

describe("ContextBudget.learn", () => {
  /** An agent configured far larger than any window below, so `window` shows what was learned. */
  const agent = { model: { provider: "openai", name: "learn-test", context_window: 1_000_000 } } as AgentConfig;
  const learned = (message: string) => {
    const budget = budgetOver([]);
    budget.learn(agent.model, message, 1000);
    return budget.window(agent);
  };

  it("learns Kimi's window from 'exceeded model token limit: N (requested: M)'", () => {
    expect(learned("Invalid request: Your request exceeded model token limit: 262144 (requested: 291351)")).toBe(
      262144,
    );
  });

  it("learns Qwen's window from 'Range of input length should be [1, N]'", () => {
    expect(learned("<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 129024]")).toBe(
      129024,
    );
  });

  it("learns llama.cpp's window from 'exceeds the available context size (N tokens)'", () => {
    expect(learned("request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it")).toBe(
      4096,
    );
  });

  it("learns an older Anthropic model's window from 'exceed context limit: N + M > W'", () => {
    expect(learned("input length and `max_tokens` exceed context limit: 195000 + 8192 > 200000")).toBe(200000);
  });
});

/** An OpenAI-protocol model config of this name and configured window. */
const model = (name: string, context_window = 100_000) =>
  ({ provider: "openai", name, context_window, capabilities: {} }) as unknown as AgentConfig["model"];

describe("ContextBudget.window", () => {
  it("applies a learned window only to the model it was learned from, as configured then", () => {
    const budget = budgetOver([]);
    budget.learn(model("window-a"), "This model's maximum context length is 4000 tokens.", 1000);
    expect(budget.window({ model: model("window-a") } as AgentConfig)).toBe(4000);
    expect(budget.window({ model: model("window-b") } as AgentConfig)).toBe(100_000);
    expect(budget.window({ model: model("window-a", 50_000) } as AgentConfig)).toBe(50_000);
  });
});

describe("ContextBudget.estimate", () => {
  it("reads the provider's last usage report only for the model it reported on, as configured then", () => {
    const budget = budgetOver([]);
    // The model counted this 1,000-token estimate as 3,000 tokens: the 200 added since count 3 for 1 too.
    budget.observe(model("estimate-a"), 1000, { input_tokens: 3000 });
    expect(budget.estimate(model("estimate-a"), 1200)).toBe(3600);
    expect(budget.estimate(model("estimate-b"), 1200)).toBe(1200);
    expect(budget.estimate(model("estimate-a", 50_000), 1200)).toBe(1200);
  });
});

describe("ContextBudget.ratio", () => {
  it("is what the provider counted per token of the estimate, at least 1, and sizes a request after a compaction", () => {
    const budget = budgetOver([]);
    budget.observe(model("ratio-a"), 1000, { input_tokens: 2500 });
    expect(budget.ratio(model("ratio-a"))).toBe(2.5);
    budget.compacted();
    expect(budget.estimate(model("ratio-a"), 400)).toBe(1000);
    budget.observe(model("ratio-b"), 1000, { input_tokens: 700 });
    expect(budget.ratio(model("ratio-b"))).toBe(1);
  });

  it("moves only by a tenth or more of the ratio in force, so a report barely off it changes nothing", () => {
    const budget = budgetOver([]);
    budget.observe(model("ratio-step"), 1000, { input_tokens: 2000 });
    budget.observe(model("ratio-step"), 1000, { input_tokens: 2150 });
    expect(budget.ratio(model("ratio-step"))).toBe(2);
    budget.observe(model("ratio-step"), 1000, { input_tokens: 1500 });
    expect(budget.ratio(model("ratio-step"))).toBe(1.5);
    budget.observe(model("ratio-step"), 1000, { input_tokens: 900 });
    expect(budget.ratio(model("ratio-step"))).toBe(1);
  });

  it("is learned from the input tokens an overflow error counted, and is the model's own", () => {
    const wordings = [
      "prompt is too long: 30000 tokens > 20000 maximum",
      "input length and `max_tokens` exceed context limit: 30000 + 8192 > 32000",
      "This model's maximum context length is 20000 tokens. However, your messages resulted in 30000 tokens.",
      "Your input exceeds the context window of this model. However, your input resulted in 30000 tokens.",
      "However, you requested 38192 tokens (30000 in the messages, 8192 in the completion).",
      "request (30000 tokens) exceeds the available context size (20000 tokens), try increasing it",
    ];
    for (const wording of wordings) {
      const budget = budgetOver([]);
      budget.learn(model("ratio-error"), wording, 10_000);
      expect([wording, budget.ratio(model("ratio-error"))]).toEqual([wording, 3]);
      expect(budget.estimate(model("ratio-error"), 10_000)).toBe(30_000);
      expect(budget.ratio(model("ratio-other"))).toBe(1);
    }
  });

  it("is not learned from a bare 'you requested N tokens', which counts the output limit too", () => {
    const budget = budgetOver([]);
    budget.learn(
      model("ratio-bare"),
      "maximum context length is 4000 tokens. However, you requested 5000 tokens.",
      1000,
    );
    expect(budget.ratio(model("ratio-bare"))).toBe(1);
  });
});

describe("ContextBudget.limit", () => {
  const limit = (model: Record<string, unknown>, threshold = 0.8) =>
    budgetOver([]).limit({
      model: { capabilities: {}, ...model },
      compaction: { enabled: true, threshold, keep_recent_turns: 2 },
    } as unknown as AgentConfig);

  it("is the window less the max_tokens the request carries, where that is below the threshold share", () => {
    // Anthropic requests always carry max_tokens: 8,192 unless the agent sets one.
    expect(limit({ provider: "anthropic", name: "m", context_window: 16_000 })).toBe(16_000 - 8192);
    expect(limit({ provider: "openai", name: "m", context_window: 16_000, max_tokens: 6000 })).toBe(10_000);
    expect(limit({ provider: "openai-responses", name: "m", context_window: 16_000, max_tokens: 6000 })).toBe(10_000);
  });

  it("is the threshold share of the window when the request leaves more room, or carries no max_tokens", () => {
    expect(limit({ provider: "anthropic", name: "m", context_window: 200_000 })).toBe(160_000);
    expect(limit({ provider: "openai", name: "m", context_window: 16_000 })).toBe(12_800);
    expect(limit({ provider: "openai", name: "m", context_window: 16_000 }, 0.2)).toBe(3200);
  });

  it("is the threshold share when max_tokens is the whole window or more (no request of that agent could fit)", () => {
    expect(limit({ provider: "anthropic", name: "m", context_window: 8000 })).toBe(6400);
  });
});
