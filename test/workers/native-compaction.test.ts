// Native (server-side) compaction where the model declares it, and the summary request's reused prefix
// (README "Long sessions"): Anthropic `compact_20260112` against the mock's emulation, OpenAI's fallback.
import { abortAllDurableObjects } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  ADMIN,
  api,
  apiJson,
  COMPACTION_TOOLS,
  events,
  expectNativeCompacted,
  history,
  mockStats,
  mockWindow,
  pairingProblems,
  recreate,
  type Setup,
  script,
  send,
  setup,
} from "./helpers";

interface Recorded {
  body: Record<string, unknown> & { messages: Array<{ role: string; content: unknown }> };
  headers: Record<string, string>;
  raw: string;
  rejected: unknown;
}

async function requests(model: string): Promise<Recorded[]> {
  const res = await fetch(`${env.MOCK_URL}/_mock/requests?model=${model}`);
  return ((await res.json()) as { requests: Recorded[] }).requests;
}

/**
 * A session whose agent (and the mock) have a `window`-token context window; with `maxTokens`, the agent's output
 * limit, which the mock's window then holds with the input.
 */
async function session(
  provider: "anthropic" | "openai",
  window: number,
  capabilities: Record<string, boolean>,
  compaction: Record<string, unknown> = {},
  maxTokens?: number,
): Promise<Setup> {
  const s = await setup({}, provider);
  const put = await apiJson(`/v1/agents/${s.agent}`, {
    method: "PUT",
    key: ADMIN,
    json: {
      model: { provider, name: s.model, context_window: window, capabilities, max_tokens: maxTokens },
      system: "You are a test agent.",
      tools: COMPACTION_TOOLS,
      compaction,
    },
  });
  if (put.status >= 300) throw new Error(`agent: ${put.status} ${JSON.stringify(put.body)}`);
  await mockWindow(s.model, window, maxTokens !== undefined);
  return s;
}

/** Sends 34 messages of ~2,000 tokens, each answered: past a 50,000-token trigger twice over. */
async function sendLong(s: Setup): Promise<void> {
  for (let i = 1; i <= 34; i++) {
    const res = await send(s, { content: `long-${i}: ${"lorem ipsum dolor sit ".repeat(365)}` });
    expect([res.body.status, res.body.error]).toEqual(["completed", undefined]);
  }
}

const isSummary = (r: Recorded) => r.raw.includes("Summarise the conversation transcript above");

describe("native compaction (Anthropic compact_20260112)", () => {
  it("the provider compacts at the trigger: block stored and sent back, view starts at it, tools kept, nothing lost", async () => {
    // 70,000-token window, threshold 0.8: trigger 56,000 (the API's minimum is 50,000).
    const s = await session("anthropic", 70_000, { native_compaction: true });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_s1", name: "tool_search", input: { query: "select:lookup_order" } }] } },
      { reply: { tool_calls: [{ id: "call_l1", name: "lookup_order", input: { city: "Paris" } }] } },
      { reply: { text: "Order found." } },
    ]);
    // ~6,000 tokens per user message: the mock compacts around the tenth turn. Streamed, to see the UI parts.
    let streamed = "";
    for (let i = 1; i <= 13; i++) {
      const res = await api(`/v1/sessions/${s.session}/messages`, {
        method: "POST",
        key: s.key,
        json: { content: `native-${i}: ${"lorem ipsum dolor sit ".repeat(1100)}` },
        headers: { accept: "text/event-stream" },
      });
      streamed += await res.text();
    }
    const finished = (await events(s)).filter((e) => e.type === "turn_finished").map((e) => e.data.status);
    expect(finished).toHaveLength(13);
    expect(finished.filter((x) => x !== "completed")).toEqual([]);
    // The compacting turn streamed a data-compaction part saying the provider did it, and the provider
    // summarised (no summary request of ours); the boundary message opens with its block.
    const { boundary, block: part } = await expectNativeCompacted(s, streamed, "anthropic");

    // The request after it: the block sent back verbatim right after a short lead, the beta and the edit
    // on, the kept deferred tool declared in full (its tool_reference is gone), and far fewer bytes.
    const reqs = (await requests(s.model)).filter((r) => !isSummary(r));
    const firstAfter = reqs.findIndex((r) => r.raw.includes(part.encrypted));
    expect(firstAfter).toBeGreaterThan(0);
    const after = reqs[firstAfter] as Recorded;
    const before = reqs[firstAfter - 1] as Recorded;
    expect(after.headers["anthropic-beta"]).toContain("compact-2026-01-12");
    expect(after.body.context_management).toEqual({
      edits: [{ type: "compact_20260112", trigger: { type: "input_tokens", value: 56_000 } }],
    });
    expect(after.body.messages[0]?.role).toBe("user");
    expect(after.body.messages[1]?.role).toBe("assistant");
    expect((after.body.messages[1]?.content as unknown[] | undefined)?.[0]).toMatchObject({
      type: "compaction",
      content: part.content,
      encrypted_content: part.encrypted,
    });
    const lookup = (after.body.tools as Array<Record<string, unknown>>).find((t) => t.name === "lookup_order");
    expect(lookup?.defer_loading).toBeUndefined();
    expect(after.raw).not.toContain("tool_reference");
    expect(after.raw.length).toBeLessThan(before.raw.length / 3);

    // Every user message stays readable, with a marker where the provider compacted.
    const page = await apiJson<{
      messages: Array<{ parts: Array<{ type: string; text?: string }> }>;
      compactions: Array<{ before_seq: number; summary: string }>;
    }>(`/v1/sessions/${s.session}/messages?limit=1000`, { key: s.key });
    const text = JSON.stringify(page.body.messages);
    for (let i = 1; i <= 13; i++) expect(text).toContain(`native-${i}:`);
    expect(page.body.compactions.map((c) => c.before_seq)).toContain(boundary);
    expect(page.body.compactions.find((c) => c.before_seq === boundary)?.summary).toBe(part.content);

    // The deferred tool loaded at turn 1 is still callable after the compaction.
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_late", name: "lookup_order", input: { city: "Rome" } }] } },
      { reply: { text: "Late order found." } },
    ]);
    const late = await send(s, { content: "late: look up the Rome order" });
    expect(late.body.status).toBe("completed");
    const result = late.body.messages.flatMap((m) => m.parts).find((p) => p.tool_use_id === "call_late");
    expect(result?.is_error).toBe(false);
    expect((await mockStats(s.model)).rejected).toBe(0);
  });

  it("a loaded tool over the budget is dropped: announced after the block (not before it), still callable", async () => {
    const s = await session("anthropic", 70_000, { native_compaction: true }, { tool_budget_tokens: 0 });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_s1", name: "tool_search", input: { query: "select:lookup_order" } }] } },
      { reply: { tool_calls: [{ id: "call_l1", name: "lookup_order", input: { city: "Paris" } }] } },
      { reply: { text: "Order found." } },
    ]);
    for (let i = 1; i <= 12 && (await mockStats(s.model)).compactions === 0; i++) {
      expect((await send(s, { content: `drop-${i}: ${"lorem ipsum dolor sit ".repeat(1100)}` })).body.status).toBe(
        "completed",
      );
    }
    const compacted = (await events(s)).filter((e) => e.type === "context_compacted");
    expect(compacted[0]?.data).toMatchObject({ native: true, tools_kept: [], tools_dropped: ["lookup_order"] });
    const state = await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.loaded_tools).not.toContain("lookup_order");
    // The next request announces it after the compaction block: the provider drops what precedes the block.
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_l2", name: "lookup_order", input: { city: "Rome" } }] } },
      { reply: { text: "Found again." } },
    ]);
    const again = await send(s, { content: "again: look up the Rome order" });
    expect(again.body.status).toBe("completed");
    const reqs = (await requests(s.model)).filter((r) => !isSummary(r));
    const announced = reqs.find((r) => r.raw.includes("<tools_removed>lookup_order</tools_removed>")) as Recorded;
    const at = announced.body.messages.findIndex((m) => JSON.stringify(m.content).includes("<tools_removed>"));
    const block = announced.body.messages.findIndex((m) => JSON.stringify(m.content).includes('"type":"compaction"'));
    expect(block).toBe(1);
    expect(at).toBeGreaterThan(block);
    const decl = (announced.body.tools as Array<Record<string, unknown>>).find((t) => t.name === "lookup_order");
    expect(decl?.defer_loading).toBe(true);
    // A valid direct call still runs and loads it again.
    const result = again.body.messages.flatMap((m) => m.parts).find((p) => p.tool_use_id === "call_l2");
    expect(result?.is_error).toBe(false);
    const after = await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(after.body.loaded_tools).toContain("lookup_order");
    expect((await mockStats(s.model)).rejected).toBe(0);
  });

  it("a window too small for the provider's 50,000-token minimum trigger falls back to our summary, saying why", async () => {
    const s = await session("anthropic", 8000, { native_compaction: true });
    for (let i = 1; i <= 8; i++) {
      expect((await send(s, { content: `small-${i}: ${"lorem ipsum dolor sit ".repeat(150)}` })).body.status).toBe(
        "completed",
      );
    }
    const compacted = (await events(s)).filter((e) => e.type === "context_compacted");
    expect(compacted.length).toBeGreaterThan(0);
    expect(compacted[0]?.data.native).toBe(false);
    expect(String(compacted[0]?.data.native_unavailable)).toContain("minimum compaction trigger");
    const reqs = await requests(s.model);
    expect(reqs.some((r) => r.body.context_management !== undefined)).toBe(false);
    expect((await mockStats(s.model)).rejected).toBe(0);
  });

  it("an output limit that leaves less input than the minimum trigger falls back to our summary, saying why, before any request is refused", async () => {
    // 70,000-token window less max_tokens 20,000: 50,000 input tokens, no more than the 50,000-token minimum.
    const s = await session("anthropic", 70_000, { native_compaction: true }, {}, 20_000);
    await sendLong(s);
    const stats = await mockStats(s.model);
    expect([stats.overflow, stats.compactions, stats.rejected]).toEqual([0, 0, 0]);
    const compacted = (await events(s)).filter((e) => e.type === "context_compacted");
    expect(compacted.length).toBeGreaterThan(0);
    for (const e of compacted) {
      expect(e.data.native).toBe(false);
      expect(String(e.data.native_unavailable)).toContain("less the output limit (20000 tokens)");
    }
    expect((await requests(s.model)).some((r) => r.body.context_management !== undefined)).toBe(false);
  });

  it("an output limit past the threshold's headroom lowers the trigger below what a request can carry: the provider compacts, no request refused", async () => {
    // 100,000-token window less max_tokens 30,000: 70,000 input tokens; the trigger is 0.8 of that, not of the window.
    const s = await session("anthropic", 100_000, { native_compaction: true }, {}, 30_000);
    await sendLong(s);
    const stats = await mockStats(s.model);
    expect([stats.overflow, stats.summaries, stats.rejected]).toEqual([0, 0, 0]);
    expect(stats.compactions).toBeGreaterThan(0);
    const compacted = (await events(s)).filter((e) => e.type === "context_compacted");
    expect(compacted.map((e) => e.data.native)).toEqual(Array(stats.compactions).fill(true));
    expect((await requests(s.model))[0]?.body.context_management).toEqual({
      edits: [{ type: "compact_20260112", trigger: { type: "input_tokens", value: 56_000 } }],
    });
  });
});

describe("a native compaction cut mid-stream", () => {
  it("a stream cut after the compaction block leaves no compaction behind; the next turn compacts and completes", async () => {
    // 120,000-token window: trigger 96,000, and the turn after the cut one (~6,000 tokens more) still fits.
    const s = await session("anthropic", 120_000, { native_compaction: true });
    const content = (i: number) => `cut-${i}: ${"lorem ipsum dolor sit ".repeat(1100)}`;
    let cutTurn = 0;
    for (let i = 1; i <= 14 && cutTurn === 0; i++) {
      const reqs = await requests(s.model);
      const last = reqs[reqs.length - 1]?.raw.length ?? 0;
      // This turn's request carries the last one, its echoed answer and the new message: past the trigger?
      if ((last + 2 * content(i).length + 1000) / 4 > 96_000) {
        // The answer is cut right after the compaction block (message_start, block start, ping, delta, stop).
        await script(s.model, [{ reply: { text: "never whole" }, faults: { cut_after_events: 5, cut_grace_ms: 2 } }]);
        cutTurn = i;
      }
      const res = await send(s, { content: content(i) });
      if (cutTurn === i) {
        expect(res.body.status).toBe("failed");
        expect(res.body.error?.code).toBe("provider_stream_cut");
      } else expect(res.body.status).toBe("completed");
    }
    expect(cutTurn).toBeGreaterThan(0);
    expect((await mockStats(s.model)).compactions).toBe(1);
    // Nothing of the cut compaction was kept: no record, no part, the view did not move.
    expect((await events(s)).some((e) => e.type === "context_compacted")).toBe(false);
    expect(JSON.stringify(await history(s))).not.toContain('"type":"compaction"');
    // The next turn compacts again, whole this time, and completes.
    const next = await send(s, { content: content(99) });
    expect(next.body.status).toBe("completed");
    expect((await mockStats(s.model)).compactions).toBe(2);
    const compacted = (await events(s)).filter((e) => e.type === "context_compacted");
    expect(compacted.map((e) => e.data.native)).toEqual([true]);
    expect((await mockStats(s.model)).summaries).toBe(0);
    expect(pairingProblems(await history(s))).toEqual([]);
    expect((await mockStats(s.model)).rejected).toBe(0);
  });
});

describe("a provider's compaction larger than its rows (a multi-million-token window)", () => {
  it("is dropped as a failed compaction (it cannot be cut), saying so, and later turns keep completing", async () => {
    const s = await session("anthropic", 10_000_000, { native_compaction: true });
    const compaction = {
      content: `summary ${"x".repeat(2_500_000)}`,
      encrypted_content: "sealed",
      tokens_before: 1,
      tokens_after: 1,
    };
    await script(s.model, [{ reply: { text: "Answered.", compaction } }]);
    expect((await send(s, { content: "first question" })).body.status).toBe("completed");
    const stored = (await history(s)).flatMap((m) => m.parts).filter((p) => p.type === "compaction");
    expect(stored).toEqual([{ type: "compaction", provider: "anthropic", content: null }]);
    const all = await events(s);
    expect(all.some((e) => e.type === "context_compacted")).toBe(false);
    expect(all.find((e) => e.type === "compaction_failed")?.data.native).toBe(true);
    await script(s.model, [{ reply: { text: "Still here." } }]);
    expect((await send(s, { content: "next question" })).body.status).toBe("completed");
    expect((await mockStats(s.model)).rejected).toBe(0);
  });
});

describe("after a provider's compaction too large to store", () => {
  /** A compaction block over the row budget (SUMMARY_BUDGET_BYTES), whatever the request's size. */
  const oversized = {
    content: `summary ${"x".repeat(2_500_000)}`,
    encrypted_content: "sealed",
    tokens_before: 1,
    tokens_after: 1,
  };
  const asksToCompact = (r: Recorded) => r.body.context_management !== undefined;

  /**
   * A session of a `window`-token window (keep_recent_turns 0) whose first turn the provider answered with the
   * oversized block, dropped.
   */
  async function dropped(window: number): Promise<Setup> {
    const s = await session("anthropic", window, { native_compaction: true }, { keep_recent_turns: 0 });
    await script(s.model, [{ reply: { text: "Answered.", compaction: oversized } }]);
    expect((await send(s, { content: "first question" })).body.status).toBe("completed");
    return s;
  }

  /**
   * Sends ~24,000 tokens, then ~36,000: past a 56,000 threshold, with room under it for the newest message (one
   * over it on its own is sent as it is, compacted only past the most a request can carry).
   */
  async function sendOverThreshold(s: Setup): Promise<void> {
    await script(s.model, [{ reply: { text: "Read it." } }, { reply: { text: "Read it all." } }]);
    expect((await send(s, { content: "lorem ipsum ".repeat(8_000) })).body.status).toBe("completed");
    expect((await send(s, { content: "lorem ipsum ".repeat(12_000) })).body.status).toBe("completed");
  }

  /** The session's `context_compacted` events as [native, summary_requests], and the first one's native_unavailable. */
  async function compactions(s: Setup): Promise<{ done: unknown[][]; unavailable: string }> {
    const compacted = (await events(s)).filter((e) => e.type === "context_compacted");
    return {
      done: compacted.map((e) => [e.data.native, e.data.summary_requests]),
      unavailable: String(compacted[0]?.data.native_unavailable),
    };
  }

  /** Whether the last step request (summary requests aside) asked the provider to compact, after a next message. */
  async function nextAsksToCompact(s: Setup): Promise<boolean | undefined> {
    await script(s.model, [{ reply: { text: "Still here." } }]);
    expect((await send(s, { content: "next question" })).body.status).toBe("completed");
    return (await requests(s.model))
      .filter((r) => !isSummary(r))
      .map(asksToCompact)
      .at(-1);
  }

  it("the next step does not ask the provider to compact again", async () => {
    const s = await dropped(10_000_000);
    await nextAsksToCompact(s);
    expect((await requests(s.model)).map(asksToCompact)).toEqual([true, false]);
  });

  it("our own summary compacts at the threshold instead, saying why the provider's was not used", async () => {
    // 70,000-token window, threshold 0.8: past 56,000 estimated tokens ours compacts (the provider would too).
    const s = await dropped(70_000);
    await sendOverThreshold(s);
    const { done, unavailable } = await compactions(s);
    expect(done).toEqual([[false, 1]]);
    expect(unavailable).toContain("too large to store");
  });

  it("an object restarted after the drop does not ask the provider either: our own summary compacts", async () => {
    const s = await dropped(70_000);
    await abortAllDurableObjects();
    await sendOverThreshold(s);
    const { done, unavailable } = await compactions(s);
    expect(done).toEqual([[false, 1]]);
    expect(unavailable).toContain("too large to store");
  });

  it("once our own summary has compacted, an object restarted asks the provider to compact again", async () => {
    const s = await dropped(70_000);
    await sendOverThreshold(s);
    expect((await compactions(s)).done).toEqual([[false, 1]]);
    await abortAllDurableObjects();
    expect(await nextAsksToCompact(s)).toBe(true);
  });

  it("after POST /clear the provider is asked to compact again", async () => {
    const s = await dropped(10_000_000);
    expect((await apiJson(`/v1/sessions/${s.session}/clear`, { method: "POST", key: s.key })).status).toBe(200);
    expect(await nextAsksToCompact(s)).toBe(true);
  });

  it("a session deleted and created again under the same id asks the provider to compact", async () => {
    const s = await dropped(10_000_000);
    await recreate(s);
    expect(await nextAsksToCompact(s)).toBe(true);
  });
});

describe("native compaction declared on OpenAI (Chat Completions)", () => {
  it("falls back to our own summary: context_compacted native:false with the reason", async () => {
    const s = await session("openai", 8000, { native_compaction: true });
    for (let i = 1; i <= 8; i++) {
      expect((await send(s, { content: `oa-${i}: ${"lorem ipsum dolor sit ".repeat(150)}` })).body.status).toBe(
        "completed",
      );
    }
    const compacted = (await events(s)).filter((e) => e.type === "context_compacted");
    expect(compacted.length).toBeGreaterThan(0);
    expect(compacted[0]?.data.native).toBe(false);
    expect(String(compacted[0]?.data.native_unavailable)).toContain("Responses API");
    expect((await mockStats(s.model)).summaries).toBeGreaterThan(0);
  });
});

describe("the summary request reuses the triggering request's prefix", () => {
  it("threshold: its system and tools[] are byte-identical to the request before it", async () => {
    const s = await session("anthropic", 8000, { prompt_cache: true });
    for (let i = 1; i <= 8; i++) await send(s, { content: `pre-${i}: ${"lorem ipsum dolor sit ".repeat(150)}` });
    const reqs = await requests(s.model);
    const at = reqs.findIndex(isSummary);
    expect(at).toBeGreaterThan(0);
    const summary = reqs[at] as Recorded;
    const previous = reqs[at - 1] as Recorded;
    expect(summary.body.tools).toBeDefined();
    expect(JSON.stringify(summary.body.tools)).toBe(JSON.stringify(previous.body.tools));
    expect(JSON.stringify(summary.body.system)).toBe(JSON.stringify(previous.body.system));
    // Its only message is plain text (invariant P holds trivially), carrying our summariser instruction.
    expect(summary.body.messages).toHaveLength(1);
    expect(JSON.stringify(summary.body.messages)).not.toContain("tool_use");
    expect(JSON.stringify(summary.body.messages)).toContain("You write a summary");
  });

  it("threshold: its transcript, sent once, carries no cache breakpoint while the steps' last blocks do", async () => {
    const s = await session("anthropic", 8000, { prompt_cache: true });
    for (let i = 1; i <= 8; i++) await send(s, { content: `tb-${i}: ${"lorem ipsum dolor sit ".repeat(150)}` });
    const reqs = await requests(s.model);
    const at = reqs.findIndex(isSummary);
    expect(at).toBeGreaterThan(0);
    const marked = (r: Recorded) => JSON.stringify(r.body.messages).includes("cache_control");
    expect(marked(reqs[at] as Recorded)).toBe(false);
    expect(marked(reqs[at - 1] as Recorded)).toBe(true);
  });

  it("overflow: its system and tools[] are byte-identical to the request the provider refused", async () => {
    // The agent believes in the default window; the model really has 4,000 tokens: only the 400 tells.
    const s = await setup({ tools: COMPACTION_TOOLS }, "openai");
    await mockWindow(s.model, 4000);
    for (let i = 1; i <= 12; i++) await send(s, { content: `of-${i}: ${"lorem ipsum dolor sit ".repeat(150)}` });
    const reqs = await requests(s.model);
    const at = reqs.findIndex(isSummary);
    expect(at).toBeGreaterThan(0);
    const refused = reqs[at - 1] as Recorded;
    expect(refused.rejected).toBeNull();
    expect(refused.raw.length / 4).toBeGreaterThan(4000);
    const summary = reqs[at] as Recorded;
    expect(JSON.stringify(summary.body.tools)).toBe(JSON.stringify(refused.body.tools));
    const system = (r: Recorded) => JSON.stringify(r.body.messages.find((m) => m.role === "system"));
    expect(system(summary)).toBe(system(refused));
  });
});
