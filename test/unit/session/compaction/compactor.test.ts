// The Compactor (src/session/compaction/compactor.ts) in Node: usage estimates each message once (and a view not in
// memory from its stored sizes), over compacts a view too large to hold whatever the window, learn reads a
// model's window from each server's overflow error, and estimate reads a usage report only of the model it sizes.
import { describe, expect, it, vi } from "vitest";
import type { AgentConfig } from "../../../../src/agents/types";
import type { Message } from "../../../../src/model/message";
import { type CompactionDeps, Compactor } from "../../../../src/session/compaction/compactor";
import { sizeTokens, textTokens } from "../../../../src/session/compaction/estimate";
import type { HistoryStore } from "../../../../src/session/history/store";
import { MAX_VIEW_BYTES } from "../../../../src/storage/limits";

// The compactor's span helpers import the Workers runtime module; in Node they run without tracing.
vi.mock("cloudflare:workers", () => ({}));
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

/** A compactor over `history` (no compaction stored). */
function compactorWith(history: Partial<HistoryStore>): Compactor {
  const sql = { exec: () => ({ toArray: () => [{ n: 0 }] }) };
  return new Compactor({ history, storage: { sql } } as unknown as CompactionDeps);
}

/** A compactor over an in-memory view (what `usage` reads: the messages, no preamble, no compaction). */
function compactorOver(messages: Message[]): Compactor {
  return compactorWith({
    messages: () => messages,
    cachedMessages: () => messages,
    preamble: () => null,
    viewStart: () => 0,
  });
}

describe("Compactor.usage", () => {
  it("estimates each message once: a repeated read sizes only the message added since", () => {
    const messages = Array.from({ length: 50 }, (_, i) => message(i + 1, `message ${i} `.repeat(100)));
    const compactor = compactorOver(messages);
    const first = compactor.usage().estimated_tokens;
    vi.mocked(textTokens).mockClear();
    expect(compactor.usage().estimated_tokens).toBe(first);
    expect(vi.mocked(textTokens)).not.toHaveBeenCalled();
    const added = message(51, "one more");
    messages.push(added);
    expect(compactor.usage().estimated_tokens).toBe(first + textTokens(JSON.stringify(added.parts)));
    expect(vi.mocked(textTokens)).toHaveBeenCalledTimes(2); // the new message, and the expectation's own
  });
});

describe("Compactor.usage of a view not in memory", () => {
  it("estimates it from the stored sizes, parsing no message", () => {
    const size = { bytes: 9_000_000, chars: 8_000_000 };
    const compactor = compactorWith({
      messages: () => {
        throw new Error("the view was read");
      },
      cachedMessages: () => null,
      viewSize: () => ({ ...size }),
      preamble: () => null,
      viewStart: () => 0,
    });
    expect(compactor.usage().estimated_tokens).toBe(sizeTokens(size));
  });
});

describe("Compactor.over", () => {
  /** Compaction on, a 10M-token window: an estimate of 1,000 tokens is far below its limit. */
  const agent = {
    model: { provider: "anthropic", name: "over-test", context_window: 10_000_000, capabilities: {} },
    compaction: { enabled: true, threshold: 0.8, keep_recent_turns: 2 },
  } as unknown as AgentConfig;
  const over = (bytes: number) => compactorWith({ viewSize: () => ({ bytes, chars: bytes }) }).over(agent, 1000);

  it("compacts a view stored in more than MAX_VIEW_BYTES, however far its request is below the window", () => {
    expect(over(MAX_VIEW_BYTES)).toBe(false);
    expect(over(MAX_VIEW_BYTES + 1)).toBe(true);
  });
});

describe("Compactor.learn", () => {
  /** An agent configured far larger than any window below, so `window` shows what was learned. */
  const agent = { model: { provider: "openai", name: "learn-test", context_window: 1_000_000 } } as AgentConfig;
  const learned = (message: string) => {
    const compactor = compactorOver([]);
    compactor.learn(agent.model, message);
    return compactor.window(agent);
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

describe("Compactor.window", () => {
  it("applies a learned window only to the model it was learned from, as configured then", () => {
    const compactor = compactorOver([]);
    compactor.learn(model("window-a"), "This model's maximum context length is 4000 tokens.");
    expect(compactor.window({ model: model("window-a") } as AgentConfig)).toBe(4000);
    expect(compactor.window({ model: model("window-b") } as AgentConfig)).toBe(100_000);
    expect(compactor.window({ model: model("window-a", 50_000) } as AgentConfig)).toBe(50_000);
  });
});

describe("Compactor.estimate", () => {
  it("reads the provider's last usage report only for the model it reported on, as configured then", () => {
    const compactor = compactorOver([]);
    // The model counted this 1,000-token estimate as 3,000 tokens.
    compactor.observe(model("estimate-a"), 1000, { input_tokens: 3000 });
    expect(compactor.estimate(model("estimate-a"), 1200)).toBe(3200);
    expect(compactor.estimate(model("estimate-b"), 1200)).toBe(1200);
    expect(compactor.estimate(model("estimate-a", 50_000), 1200)).toBe(1200);
  });
});

describe("Compactor.limit", () => {
  const limit = (model: Record<string, unknown>, threshold = 0.8) =>
    compactorOver([]).limit({
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
