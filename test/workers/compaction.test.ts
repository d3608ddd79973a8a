// Long sessions: compaction keeps every request inside the model's window, both protocols (README "Long sessions").
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { latestCompaction } from "../../src/session/compaction/records";
import { HistoryStore } from "../../src/session/history/history-store";
import { SUMMARY_BUDGET_BYTES } from "../../src/storage/limits";
import { one } from "../../src/storage/sql";
import { allMessages, longSession, PROTOCOLS, refusedCompaction, turns, userText, WINDOW } from "./compaction-helpers";
import {
  ADMIN,
  api,
  apiJson,
  COMPACTION_TOOLS,
  clientTool,
  events,
  history,
  mockRequests,
  mockStats,
  mockWindow,
  pairingProblems,
  recordStream,
  recreate,
  type Setup,
  script,
  selectCalls,
  send,
  sessionStub,
  setup,
  summaryScript,
  type TurnJson,
  wideTools,
} from "./helpers";

describe.each(PROTOCOLS)("a 60-turn session about 4x the window (%s)", (provider) => {
  it("completes every turn with zero pairing rejections, keeps every user message readable, and the late deferred call works", async () => {
    const s = await longSession(provider);
    const statuses: string[] = [];
    let lateResult: Record<string, unknown> | undefined;
    for (let i = 1; i <= 60; i++) {
      let extra = "";
      if (i === 1) {
        await script(s.model, [
          {
            reply: { tool_calls: [{ id: `call_s${i}`, name: "tool_search", input: { query: "select:lookup_order" } }] },
          },
          { reply: { tool_calls: [{ id: `call_l${i}`, name: "lookup_order", input: { city: "Paris" } }] } },
          { reply: { text: "Order found." } },
        ]);
      } else if (i === 55) {
        await script(s.model, [
          { reply: { tool_calls: [{ id: "call_late", name: "lookup_order", input: { city: "Rome" } }] } },
          { reply: { text: "Late order found." } },
        ]);
      } else if (i % 10 === 5) extra = "please use echo_core now. ";
      const res = await send(s, { content: userText(i, extra) });
      statuses.push(res.body.status);
      if (i === 55) {
        for (const m of res.body.messages)
          for (const p of m.parts) if (p.type === "tool_result" && p.tool_use_id === "call_late") lateResult = p;
      }
    }
    expect(statuses.filter((x) => x !== "completed")).toEqual([]);
    const stats = await mockStats(s.model);
    expect(stats.rejected_p).toBe(0);
    expect(stats.rejected).toBe(0);
    expect(lateResult?.is_error).toBe(false);
    const { messages, markers } = await allMessages(s);
    const texts = messages.flatMap((m) => m.parts.filter((p) => p.type === "text").map((p) => String(p.text)));
    for (let i = 1; i <= 60; i++) expect(texts.some((t) => t.startsWith(`msg-${i}:`))).toBe(true);
    expect(markers.length).toBeGreaterThan(0);
    // The stored history is several windows long (4 bytes per token, as the mock counts).
    const bytes = messages.reduce((n, m) => n + JSON.stringify(m.parts).length, 0);
    expect(bytes / 4).toBeGreaterThan(3.5 * WINDOW);
    expect(pairingProblems(await history(s))).toEqual([]);
    const compacted = (await events(s)).filter((e) => e.type === "context_compacted");
    expect(compacted.length).toBeGreaterThan(0);
  });
});

/**
 * How a turn after the first supersedes the previous turn's pause: a message with text answering the call with
 * `tool_results` (the results and the text are one stored message), a message of `tool_results` alone, or
 * `POST /retry` (the call gets a synthetic result).
 */
type Supersede = "text" | "results" | "retry";

/**
 * Runs turns `from..to` of a session whose model ends every turn with an `ask_user` client call, each turn after
 * the first superseding the previous one's pause as `how` says. Returns their statuses.
 */
async function askingTurns(s: Setup, from: number, to: number, how: Supersede = "text"): Promise<string[]> {
  const statuses: string[] = [];
  for (let i = from; i <= to; i++) {
    // Without the user's text, the model's answers are what makes the session grow.
    const text = how === "text" ? `Answer ${i}.` : `Answer ${i}: ${userText(i)}`;
    await script(s.model, [
      { reply: { text, tool_calls: [{ id: `call_ask_${i}`, name: "ask_user", input: { q: `q${i}` } }] } },
    ]);
    const results = [{ tool_use_id: `call_ask_${i - 1}`, content: `answer ${i - 1}` }];
    let res: { body: TurnJson };
    if (i === 1) res = await send(s, { content: userText(i) });
    else if (how === "retry") {
      res = await apiJson<TurnJson>(`/v1/sessions/${s.session}/retry`, { method: "POST", key: s.key });
    } else res = await send(s, { content: how === "text" ? userText(i) : "", tool_results: results });
    statuses.push(res.body.status);
  }
  return statuses;
}

/** Each way a turn supersedes the previous turn's pause, with the words the test names it by. */
const SUPERSEDING: Array<{ how: Supersede; next: string }> = [
  { how: "text", next: "a message with text" },
  { how: "results", next: "tool_results alone" },
  { how: "retry", next: "POST /retry" },
];

describe.each(PROTOCOLS)("a session whose every turn pauses on a client call (%s)", (provider) => {
  // A session (agent, mock model) of its own per case: longSession names each one afresh.
  it.each(SUPERSEDING)(
    "superseded by $next: compacts before the paused call, so every turn fits and no request breaks pairing",
    async ({ how }) => {
      const s = await longSession(provider, { tools: [...COMPACTION_TOOLS, clientTool("ask_user")] });
      const statuses = await askingTurns(s, 1, 26, how);
      expect(statuses.filter((x) => x !== "awaiting_tool_results")).toEqual([]);
      const evs = await events(s);
      expect(evs.filter((e) => e.type === "compaction_failed")).toEqual([]);
      expect(evs.filter((e) => e.type === "context_compacted").length).toBeGreaterThan(0);
      const stats = await mockStats(s.model);
      expect([stats.rejected_p, stats.rejected]).toEqual([0, 0]);
      expect(pairingProblems(await history(s))).toEqual([]);
    },
  );
});

describe("POST /compact after turns that paused on a client call", () => {
  it("compacts, and the next message answering the call completes", async () => {
    const s = await longSession("anthropic", { tools: [...COMPACTION_TOOLS, clientTool("ask_user")] });
    expect(await askingTurns(s, 1, 3)).toEqual(Array(3).fill("awaiting_tool_results"));
    const compacted = await apiJson(`/v1/sessions/${s.session}/compact`, { method: "POST", key: s.key });
    expect(compacted.status).toBe(200);
    await script(s.model, [{ reply: { text: "All done." } }]);
    const next = await send(s, { content: userText(4), tool_results: [{ tool_use_id: "call_ask_3", content: "ok" }] });
    expect(next.body.status).toBe("completed");
    expect((await mockStats(s.model)).rejected).toBe(0);
  });
});

describe("overflow is never terminal", () => {
  // The agent believes in its default window (200k, 128k); the model really has 4,000: only the provider's 400 tells.
  it.each([
    ["a provider 400 'prompt is too long' under a too-large configured window", "anthropic"],
    ["the Responses API's 400 context_length_exceeded", "openai-responses"],
  ] as const)("%s compacts and retries the step once (%s)", async (_what, provider) => {
    const s = await setup({}, provider);
    await mockWindow(s.model, 4000);
    const statuses = await turns(s, 1, 14);
    expect(statuses.filter((x) => x !== "completed")).toEqual([]);
    const stats = await mockStats(s.model);
    expect(stats.overflow).toBeGreaterThan(0);
    expect(stats.rejected_p).toBe(0);
    expect((await events(s)).some((e) => e.type === "context_compacted")).toBe(true);
  });

  // Answered 200, then an error event: Anthropic's names the overflow in its message (as in its 400), vLLM/sglang's Chat
  // Completions chunk names no code; the Responses API's nests one.
  it.each([
    ["anthropic", { type: "invalid_request_error", message: "prompt is too long: 5000 tokens > 4096 maximum" }],
    ["openai", { message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens." }],
    [
      "openai-responses",
      { type: "invalid_request_error", code: "context_length_exceeded", message: "Your input is too long." },
    ],
  ] as const)(
    "an in-stream overflow error compacts and retries the step; the turn completes (%s)",
    async (provider, error) => {
      const s = await setup({}, provider);
      await turns(s, 1, 4);
      await script(s.model, [{ stream_error: { after_events: 1, ...error } }]);
      const turn = await send(s, { content: userText(5) });
      expect(turn.body.status).toBe("completed");
      expect((await events(s)).some((e) => e.type === "context_compacted")).toBe(true);
    },
  );

  it("a turn that cannot fit fails with a retryable context_overflow, and the next turn recovers", async () => {
    const s = await longSession("openai");
    await turns(s, 1, 2);
    // One user message larger than the window, inside the running turn: nothing before it can make it fit.
    const huge = await send(s, { content: `huge: ${"x ".repeat(WINDOW * 3)}` });
    expect(huge.body.status).toBe("failed");
    expect(huge.body.error).toMatchObject({ code: "context_overflow", retryable: true });
    const next = await send(s, { content: userText(99) });
    expect(next.body.status).toBe("completed");
    expect((await mockStats(s.model)).rejected_p).toBe(0);
  });
});

describe("a forced compaction of a history in CJK and emoji", () => {
  // ~820 tokens as the mock counts them (a CJK character one, an emoji two), ~200 at 4 characters per token.
  const cjkText = (i: number) => `msg-${i}: ${"会話の要約を作成してください😀".repeat(48)}`;

  it("sizes what it keeps and summarises by tokens, so one provider overflow is all it takes", async () => {
    // The agent believes in the default window; the model really has 4,000 tokens: only the 400 tells.
    const s = await setup({}, "anthropic");
    await mockWindow(s.model, 4000);
    const statuses: string[] = [];
    for (let i = 1; i <= 10; i++) statuses.push((await send(s, { content: cjkText(i) })).body.status);
    expect(statuses.filter((x) => x !== "completed")).toEqual([]);
    expect((await mockStats(s.model)).overflow).toBe(1);
  });
});

describe.each(PROTOCOLS)("a cut summary stream (%s)", (provider) => {
  it("at every tenth byte offset leaves the session exactly as it was, and the next turn completes", async () => {
    const s = await longSession(provider);
    await turns(s, 1, 4);
    const before = await allMessages(s);
    const stateBefore = (await apiJson(`/v1/sessions/${s.session}`, { key: s.key })).body;
    const full = await recordStream(provider, { text: "Summary: the user sent four long messages." });
    let cutOk = 0;
    for (let at = 0; at < full.length; at += 10) {
      // Enough cut answers for every attempt the adapter makes (a cut before any event is retried).
      const cut = { raw: full, faults: { cut_after_bytes: at, cut_grace_ms: 2 } };
      await summaryScript(s.model, [cut, cut, cut, cut], true);
      const res = await apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/compact`, {
        method: "POST",
        key: s.key,
      });
      // A cut after the stop event delivers a whole summary; anything earlier must change nothing.
      if (res.status === 200) break;
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe("not_compacted");
      cutOk++;
    }
    expect(cutOk).toBeGreaterThan(full.length / 10 - 5);
    const after = await allMessages(s);
    expect(after.messages).toEqual(before.messages);
    const compactedNow = (await events(s)).filter((e) => e.type === "context_compacted").length;
    if (compactedNow === 0) {
      expect(after.markers).toEqual([]);
      const stateAfter = (await apiJson(`/v1/sessions/${s.session}`, { key: s.key })).body;
      expect(stateAfter).toEqual(stateBefore);
    }
    expect((await send(s, { content: userText(50) })).body.status).toBe("completed");
    expect(pairingProblems(await history(s))).toEqual([]);
  });
});

describe("a summary cut at the model's output limit (max_tokens)", () => {
  it("is kept, saying it was cut, and the next request carries it", async () => {
    const s = await longSession("anthropic");
    await turns(s, 1, 4);
    await summaryScript(s.model, [{ reply: { text: "Summary: the user sent four", stop_reason: "max_tokens" } }], true);
    const res = await apiJson(`/v1/sessions/${s.session}/compact`, { method: "POST", key: s.key });
    expect(res.status).toBe(200);
    await script(s.model, [{ reply: { text: "Carrying on." } }]);
    expect((await send(s, { content: userText(5) })).body.status).toBe("completed");
    const sent = (await mockRequests(s.model)).at(-1);
    expect(JSON.stringify(sent?.body)).toContain(
      "Summary: the user sent four\\n\\n[This summary was cut at the model's output limit",
    );
  });
});

describe("what the summariser reads", () => {
  const request = "MY REQUEST: translate clause 7 into German.";
  const summaryRequests = async (s: Setup) =>
    (await mockRequests(s.model)).filter((r) => JSON.stringify(r.body).includes("<transcript>"));

  it("a message longer than a piece of transcript reaches it whole: its end (the user's request) is sent", async () => {
    const s = await longSession("anthropic");
    const long = `${"Clause text of the contract, read carefully. ".repeat(440)}${request}`;
    await script(s.model, [{ reply: { text: "Read it." } }]);
    expect((await send(s, { content: long })).body.status).toBe("completed");
    // Over the threshold with the first turn: it is summarised.
    await script(s.model, [{ reply: { text: "Working on it." } }]);
    expect((await send(s, { content: userText(2, "y ".repeat(2000)) })).body.status).toBe("completed");
    const compacted = (await events(s)).filter((e) => e.type === "context_compacted");
    expect(compacted).toHaveLength(1);
    const summaries = await summaryRequests(s);
    expect(summaries.length).toBe(compacted[0]?.data.summary_requests);
    expect(summaries.some((r) => JSON.stringify(r.body).includes(request))).toBe(true);
  });

  it("a client tool's answer (the user's words) reaches it whole, longer than a tool result is rendered", async () => {
    const s = await longSession("anthropic", {
      tools: [...COMPACTION_TOOLS, clientTool("ask_user")],
      compaction: { keep_recent_turns: 0 },
    });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_ask_clause", name: "ask_user", input: { q: "Which clause?" } }] } },
    ]);
    expect((await send(s, { content: userText(1) })).body.status).toBe("awaiting_tool_results");
    const answer = `${"The clause about delivery dates and penalties. ".repeat(70)}${request}`;
    await script(s.model, [{ reply: { text: "Noted." } }]);
    const answered = await send(s, {
      content: "There you go.",
      tool_results: [{ tool_use_id: "call_ask_clause", content: answer }],
    });
    expect(answered.body.status).toBe("completed");
    expect((await apiJson(`/v1/sessions/${s.session}/compact`, { method: "POST", key: s.key })).status).toBe(200);
    const summaries = await summaryRequests(s);
    expect(
      summaries.some((r) => JSON.stringify(r.body).includes(`Result of ask_user [id call_ask_clause]: ${answer}`)),
    ).toBe(true);
  });
});

describe("POST /compact while a turn is admitted during its summary", () => {
  it("keeps the tool that turn loaded: tool decisions see the turn's messages, not the view before it", async () => {
    const s = await longSession("anthropic", { compaction: { tool_budget_tokens: 0, keep_recent_turns: 1 } });
    await turns(s, 1, 3);
    await summaryScript(s.model, [
      { reply: { text: "Summary: three long messages." }, faults: { stall_before_ms: 800 } },
    ]);
    const compacting = apiJson<{ tools_dropped: string[] }>(`/v1/sessions/${s.session}/compact`, {
      method: "POST",
      key: s.key,
    });
    for (let i = 0; i < 200 && (await mockStats(s.model)).summaries === 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_mid_s", name: "tool_search", input: { query: "select:lookup_order" } }] } },
      { reply: { tool_calls: [{ id: "call_mid_l", name: "lookup_order", input: { city: "Oslo" } }] } },
      { reply: { text: "Found it." } },
    ]);
    expect((await send(s, { content: "look up the Oslo order" })).body.status).toBe("completed");
    const compacted = await compacting;
    expect(compacted.status).toBe(200);
    expect(compacted.body.tools_dropped).not.toContain("lookup_order");
    const state = await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.loaded_tools).toContain("lookup_order");
  });
});

describe("deferred tools bigger than the window (anthropic)", () => {
  it("are not counted as context: a short conversation never compacts, and the requests fit the model", async () => {
    // 80 deferred tools of ~700 bytes: ~56 KB on the wire, ~14k tokens, against a window of 8,000.
    const catalog = Array.from({ length: 80 }, (_, i) => ({
      name: `catalog_${i}`,
      description: `Catalog tool ${i}: ${"works on catalog records ".repeat(4)}`,
      input_schema: {
        type: "object",
        properties: Object.fromEntries(
          Array.from({ length: 8 }, (_, j) => [`field_${j}`, { type: "string", description: `field ${j}, free text` }]),
        ),
      },
      defer: true,
      execution: { type: "client" },
    }));
    const s = await longSession("anthropic", { tools: [...COMPACTION_TOOLS, ...catalog] });
    for (let i = 1; i <= 3; i++) {
      await script(s.model, [{ reply: { text: `Answer ${i}.` } }]);
      expect((await send(s, { content: `short question ${i}` })).body.status).toBe("completed");
    }
    expect((await events(s)).filter((e) => e.type === "context_compacted" || e.type === "compaction_failed")).toEqual(
      [],
    );
    const stats = await mockStats(s.model);
    expect([stats.requests, stats.summaries, stats.rejected]).toEqual([3, 0, 0]);
  });
});

describe("a crash mid-compaction", () => {
  it("leaves no compaction behind; the interrupted turn is retryable and the next turn completes", async () => {
    const s = await longSession("anthropic");
    await turns(s, 1, 4);
    const before = await allMessages(s);
    const compactedBefore = (await events(s)).filter((e) => e.type === "context_compacted").length;
    const summariesBefore = (await mockStats(s.model)).summaries ?? 0;
    // The next turn needs a compaction; its summary request hangs until the object is torn down.
    await summaryScript(s.model, [{ reply: { text: "never" }, faults: { stall_before_ms: 30_000 } }]);
    const running = api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      // ~4,000 tokens on top of ~2,600: over the threshold, so this turn compacts before its first request.
      json: { content: userText(5, "y ".repeat(8000)) },
      headers: { accept: "text/event-stream" },
    });
    for (let i = 0; i < 200 && (await mockStats(s.model)).summaries === summariesBefore; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    expect((await mockStats(s.model)).summaries).toBe(summariesBefore + 1);
    await abortAllDurableObjects();
    await (await running).body?.cancel().catch(() => {});
    const after = await allMessages(s);
    expect(after.markers).toEqual(before.markers);
    expect(after.messages.slice(0, before.messages.length)).toEqual(before.messages);
    expect((await events(s)).filter((e) => e.type === "context_compacted").length).toBe(compactedBefore);
    const state = await apiJson<{ last_turn: { status: string } }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.last_turn.status).toBe("interrupted");
    const retry = await apiJson<{ status: string }>(`/v1/sessions/${s.session}/retry`, { method: "POST", key: s.key });
    expect(retry.body.status).toBe("completed");
    expect((await send(s, { content: userText(6) })).body.status).toBe("completed");
    expect((await allMessages(s)).markers.length).toBeGreaterThan(before.markers.length);
  });
});

type Projection = "anthropic" | "message_level" | "plain";
const MODEL_OF: Record<Projection, (name: string) => Record<string, unknown>> = {
  anthropic: (name) => ({ provider: "anthropic", name, context_window: WINDOW }),
  message_level: (name) => ({
    provider: "openai",
    name,
    context_window: WINDOW,
    capabilities: { message_level_tools: true },
  }),
  plain: (name) => ({ provider: "openai", name, context_window: WINDOW }),
};

/** A session that loaded lookup_order at turn 1 and was then compacted on demand. */
async function loadedThenCompacted(projection: Projection, budget?: number) {
  const s = await setup({}, projection === "anthropic" ? "anthropic" : "openai");
  await apiJson(`/v1/agents/${s.agent}`, {
    method: "PUT",
    key: ADMIN,
    json: {
      model: MODEL_OF[projection](s.model),
      tools: COMPACTION_TOOLS,
      compaction: { keep_recent_turns: 0, ...(budget === undefined ? {} : { tool_budget_tokens: budget }) },
    },
  });
  await script(s.model, [
    { reply: { tool_calls: [{ id: "call_s1", name: "tool_search", input: { query: "select:lookup_order" } }] } },
    { reply: { tool_calls: [{ id: "call_l1", name: "lookup_order", input: { city: "Paris" } }] } },
    { reply: { text: "Order found." } },
  ]);
  expect((await send(s, { content: userText(1) })).body.status).toBe("completed");
  const compacted = await apiJson<Record<string, unknown>>(`/v1/sessions/${s.session}/compact`, {
    method: "POST",
    key: s.key,
  });
  expect(compacted.status).toBe(200);
  return { s, compacted: compacted.body };
}

async function nextRequest(s: Setup): Promise<Record<string, unknown> & { messages: Array<Record<string, unknown>> }> {
  await script(s.model, [{ reply: { text: "ok" } }]);
  expect((await send(s, { content: userText(2) })).body.status).toBe("completed");
  const reqs = (await fetch(`${env.MOCK_URL}/_mock/requests?model=${s.model}`).then((r) => r.json())) as {
    requests: Array<{
      body: Record<string, unknown> & { messages: Array<Record<string, unknown>> };
      rejected: unknown;
    }>;
  };
  expect(reqs.requests.filter((r) => r.rejected)).toEqual([]);
  return reqs.requests[reqs.requests.length - 1]?.body as never;
}

const toolNames = (body: Record<string, unknown>) =>
  ((body.tools ?? []) as Array<Record<string, unknown>>).map((t) =>
    String(t.name ?? (t.function as Record<string, unknown>)?.name),
  );

describe.each(["anthropic", "message_level", "plain"] as const)("tools across a compaction (%s)", (projection) => {
  it("a loaded tool within the budget stays usable: declared after the summary in this projection's way", async () => {
    const { s, compacted } = await loadedThenCompacted(projection);
    expect(compacted.tools_kept).toEqual(["lookup_order"]);
    const body = await nextRequest(s);
    const text = JSON.stringify(body.messages);
    expect(text).toContain("<conversation_summary>");
    if (projection === "anthropic") {
      const decl = (body.tools as Array<Record<string, unknown>>).find((t) => t.name === "lookup_order");
      expect(decl?.defer_loading).toBeUndefined();
      expect(text).not.toContain("tool_reference");
    } else if (projection === "message_level") {
      const sys = body.messages.find((m) => m.role === "system" && Array.isArray(m.tools));
      expect(JSON.stringify(sys)).toContain("lookup_order");
      expect(toolNames(body)).not.toContain("lookup_order");
    } else {
      expect(toolNames(body)).toContain("lookup_order");
    }
  });

  it("a tool over the budget is unloaded, announced once as still searchable, and a valid call reloads it", async () => {
    const { s, compacted } = await loadedThenCompacted(projection, 0);
    expect(compacted.tools_dropped).toEqual(["lookup_order"]);
    const state = await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.loaded_tools).not.toContain("lookup_order");
    const body = await nextRequest(s);
    const text = JSON.stringify(body.messages);
    expect(text).toContain("<tools_removed>lookup_order</tools_removed>");
    expect(text).toContain("still searchable");
    if (projection === "anthropic") {
      const decl = (body.tools as Array<Record<string, unknown>>).find((t) => t.name === "lookup_order");
      expect(decl?.defer_loading).toBe(true);
    } else expect(toolNames(body)).not.toContain("lookup_order");
    // Still in the tool_search corpus, and a direct valid call runs and loads it again.
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_l2", name: "lookup_order", input: { city: "Rome" } }] } },
      { reply: { text: "Found again." } },
    ]);
    const again = await send(s, { content: userText(3) });
    expect(again.body.status).toBe("completed");
    const result = again.body.messages.flatMap((m) => m.parts).find((p) => p.tool_use_id === "call_l2");
    expect(result?.is_error).toBe(false);
    const after = await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(after.body.loaded_tools).toContain("lookup_order");
  });
});

describe.each(["openai", "anthropic"] as const)("POST /compact while a turn is paused (%s)", (provider) => {
  it("keeps the tool the paused step just loaded: after the client's results the next request can call it", async () => {
    const s = await setup({}, provider);
    await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: {
        model: { provider, name: s.model },
        tools: [...COMPACTION_TOOLS, clientTool("ask_user")],
        compaction: { keep_recent_turns: 0, tool_budget_tokens: 0 },
      },
    });
    await script(s.model, [{ reply: { text: "Hello." } }]);
    expect((await send(s, { content: userText(1) })).body.status).toBe("completed");
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_paused_s", name: "tool_search", input: { query: "select:lookup_order" } },
            { id: "call_paused_ask", name: "ask_user", input: { q: "which order?" } },
          ],
        },
      },
      { reply: { text: "Thanks." } },
    ]);
    expect((await send(s, { content: userText(2) })).body.status).toBe("awaiting_tool_results");
    const compacted = await apiJson<{ tools_kept: string[]; tools_dropped: string[] }>(
      `/v1/sessions/${s.session}/compact`,
      { method: "POST", key: s.key },
    );
    expect(compacted.status).toBe(200);
    expect(compacted.body.tools_dropped).not.toContain("lookup_order");
    const answered = await apiJson<{ status: string }>(`/v1/sessions/${s.session}/tool-results`, {
      method: "POST",
      key: s.key,
      json: { results: [{ tool_use_id: "call_paused_ask", content: "the Oslo one" }] },
      headers: { accept: "application/json" },
    });
    expect(answered.body.status).toBe("completed");
    const reqs = (await fetch(`${env.MOCK_URL}/_mock/requests?model=${s.model}`).then((r) => r.json())) as {
      requests: Array<{ body: Record<string, unknown>; rejected: unknown }>;
    };
    expect(reqs.requests.filter((r) => r.rejected)).toEqual([]);
    const last = reqs.requests[reqs.requests.length - 1]?.body ?? {};
    expect(JSON.stringify(last.messages)).not.toContain("<tools_removed>");
    if (provider === "anthropic") {
      const decl = (last.tools as Array<Record<string, unknown>>).find((t) => t.name === "lookup_order");
      expect(decl?.defer_loading).toBeUndefined();
    } else expect(toolNames(last)).toContain("lookup_order");
  });
});

describe("visibility", () => {
  it("GET /v1/sessions/{id} shows the estimated context use against the agent's window", async () => {
    const s = await longSession("anthropic");
    await turns(s, 1, 2);
    const state = await apiJson<{ context: Record<string, number> }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.context.context_window).toBe(WINDOW);
    expect(state.body.context.estimated_tokens).toBeGreaterThan(1000);
    expect(state.body.context.used).toBeCloseTo((state.body.context.estimated_tokens ?? 0) / WINDOW, 2);
    expect(state.body.context.compactions).toBe(0);
  });

  it("a compacting turn streams a data-compaction part", async () => {
    const s = await longSession("anthropic");
    await turns(s, 1, 4);
    const res = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: userText(5, "y ".repeat(8000)) },
      headers: { accept: "text/event-stream" },
    });
    const text = await res.text();
    expect(text).toContain('"type":"data-compaction"');
    expect(text).toContain('"tokens_before"');
  });

  it("names the turn that compacted on its GET /messages marker, so a client resuming its stream shows it once", async () => {
    const s = await longSession("anthropic");
    await turns(s, 1, 4);
    const big = await send(s, { content: userText(5, "y ".repeat(8000)) });
    expect(big.body.status).toBe("completed");
    const { markers } = await allMessages(s);
    expect(markers.map((m) => m.turn_id)).toEqual([big.body.turn_id]);
  });

  it("POST /compact after a failed turn keeps its user message in the view, so /retry re-runs it", async () => {
    const s = await longSession("anthropic");
    await turns(s, 1, 2);
    await script(s.model, [{ error: { status: 400, message: "scripted refusal" } }]);
    expect((await send(s, { content: userText(3, "the failed request. ") })).body.status).toBe("failed");
    const compacted = await apiJson(`/v1/sessions/${s.session}/compact`, { method: "POST", key: s.key });
    expect(compacted.status).toBe(200);
    await script(s.model, [{ reply: { text: "Done now." } }]);
    const retry = await apiJson<{ status: string }>(`/v1/sessions/${s.session}/retry`, { method: "POST", key: s.key });
    expect(retry.body.status).toBe("completed");
    const reqs = (await fetch(`${env.MOCK_URL}/_mock/requests?model=${s.model}`).then((r) => r.json())) as {
      requests: Array<{ raw: string }>;
    };
    expect(reqs.requests[reqs.requests.length - 1]?.raw).toContain("the failed request.");
  });

  it("a JSON /retry after POST /compact answers with the retry's messages, reading none stored before it", async () => {
    const s = await longSession("anthropic");
    await turns(s, 1, 2);
    await script(s.model, [{ error: { status: 400, message: "scripted refusal" } }]);
    expect((await send(s, { content: userText(3, "the failed request. ") })).body.status).toBe("failed");
    expect((await apiJson(`/v1/sessions/${s.session}/compact`, { method: "POST", key: s.key })).status).toBe(200);
    const newest = (await allMessages(s)).messages.at(-1)?.seq ?? 0;
    await script(s.model, [{ reply: { text: "Done now." } }]);
    // The object runs in this isolate: its stores are this module's HistoryStore.
    const since = vi.spyOn(HistoryStore.prototype, "since");
    try {
      const retry = await apiJson<TurnJson>(`/v1/sessions/${s.session}/retry`, { method: "POST", key: s.key });
      expect(retry.body.status).toBe("completed");
      expect(retry.body.messages.map((m) => m.parts)).toEqual([[{ type: "text", text: "Done now." }]]);
      expect(since.mock.calls.length).toBeGreaterThan(0);
      expect(since.mock.calls.filter(([seq]) => seq <= newest)).toEqual([]);
    } finally {
      since.mockRestore();
    }
  });

  it("POST /compact on a session with nothing to summarise is a 409 and changes nothing", async () => {
    const s = await longSession("openai");
    const res = await apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/compact`, {
      method: "POST",
      key: s.key,
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("not_compacted");
  });

  it("POST /compact on a session of fewer turns than keep_recent_turns keeps them: a 409 that stores nothing", async () => {
    const s = await longSession("anthropic");
    expect((await send(s, { content: userText(1) })).body.status).toBe("completed");
    expect(await refusedCompaction(s)).toContain("keep_recent_turns keeps the 2 most recent");
  });

  it("POST /compact whose summary would not be smaller than what it replaces is a 409 that stores nothing", async () => {
    const s = await longSession("anthropic", { compaction: { keep_recent_turns: 0 } });
    await script(s.model, [{ reply: { text: "Hi." } }]);
    expect((await send(s, { content: "hello" })).body.status).toBe("completed");
    // A summary longer than the turn it would replace.
    const summary = "The user said hello, and the assistant greeted them back in a short answer. ".repeat(12);
    await summaryScript(s.model, [{ reply: { text: summary } }]);
    expect(await refusedCompaction(s)).toContain("would not make the context smaller");
  });

  it("POST /compact right after /clear says there is no history, not that a turn is running", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "Before the clear." } }]);
    expect((await send(s, { content: "hi" })).body.status).toBe("completed");
    expect((await apiJson(`/v1/sessions/${s.session}/clear`, { method: "POST", key: s.key })).status).toBe(200);
    const res = await apiJson<{ error: { code: string; message: string } }>(`/v1/sessions/${s.session}/compact`, {
      method: "POST",
      key: s.key,
    });
    expect([res.status, res.body.error.code]).toEqual([409, "not_compacted"]);
    expect(res.body.error.message).toContain("no history to compact");
    expect(res.body.error.message).not.toContain("running turn");
  });
});

describe("an on-demand compaction racing the end of its conversation", () => {
  it("stores nothing when the session is cleared while its summary streams, and the next turn carries no summary", async () => {
    const s = await longSession("anthropic");
    await turns(s, 1, 3);
    await summaryScript(s.model, [{ reply: { text: "SUMMARY-OF-CLEARED-CHAT" }, faults: { stall_before_ms: 800 } }]);
    const compacting = apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/compact`, {
      method: "POST",
      key: s.key,
    });
    await new Promise((r) => setTimeout(r, 200));
    expect((await apiJson(`/v1/sessions/${s.session}/clear`, { method: "POST", key: s.key })).status).toBe(200);
    const compacted = await compacting;
    expect(compacted.status).toBe(409);
    expect(compacted.body.error.code).toBe("not_compacted");
    expect((await allMessages(s)).markers).toEqual([]);
    await script(s.model, [{ reply: { text: "Fresh start." } }]);
    expect((await send(s, { content: "a brand new conversation" })).body.status).toBe("completed");
    const last = (await mockRequests(s.model)).at(-1);
    expect(JSON.stringify(last)).not.toContain("SUMMARY-OF-CLEARED-CHAT");
  });
});

describe("an on-demand compaction racing a delete", () => {
  it("answers 404 and leaves the session created again under the same id without the old summary", async () => {
    const s = await longSession("anthropic");
    await turns(s, 1, 3);
    await summaryScript(s.model, [{ reply: { text: "SUMMARY-OF-DELETED-CHAT" }, faults: { stall_before_ms: 800 } }]);
    const compacting = apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/compact`, {
      method: "POST",
      key: s.key,
    });
    await new Promise((r) => setTimeout(r, 200));
    await recreate(s);
    expect((await compacting).status).toBe(404);
    expect((await allMessages(s)).markers).toEqual([]);
    await script(s.model, [{ reply: { text: "Fresh start." } }]);
    expect((await send(s, { content: "a brand new conversation" })).body.status).toBe("completed");
    expect(JSON.stringify((await mockRequests(s.model)).at(-1))).not.toContain("SUMMARY-OF-DELETED-CHAT");
  });
});

describe("a turn that needs compaction while POST /compact runs", () => {
  it("stops the on-demand compaction (which stores nothing) and compacts for itself; the turn completes", async () => {
    const s = await longSession("anthropic");
    await turns(s, 1, 4);
    // The on-demand summary stalls; the turn's own summary answers at once.
    await summaryScript(s.model, [
      { reply: { text: "ON-DEMAND SUMMARY" }, faults: { stall_before_ms: 5000 } },
      { reply: { text: "The turn's own summary." } },
    ]);
    const compacting = apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/compact`, {
      method: "POST",
      key: s.key,
    });
    await new Promise((r) => setTimeout(r, 200));
    const state = await apiJson<{ context: { estimated_tokens: number } }>(`/v1/sessions/${s.session}`, { key: s.key });
    // A message that takes the session past its threshold (0.8 of the window), within the window.
    const room = Math.floor(WINDOW * 0.9) - state.body.context.estimated_tokens;
    await script(s.model, [{ reply: { text: "Answered after compacting." } }]);
    const turn = await send(s, { content: `big: ${"lorem ipsum ".repeat(Math.floor((room * 4) / 12))}` });
    expect(turn.body.status).toBe("completed");
    const compacted = await compacting;
    expect(compacted.status).toBe(409);
    expect(compacted.body.error.code).toBe("not_compacted");
    const records = (await events(s)).filter((e) => e.type === "context_compacted");
    expect(records).toHaveLength(1);
    expect(JSON.stringify((await mockRequests(s.model)).at(-1))).not.toContain("ON-DEMAND SUMMARY");
  });
});

describe("kept tool declarations larger than a compaction row", () => {
  it("are fitted: the least recently used leave the loaded set as dropped, and later turns keep completing", async () => {
    const s = await setup({}, "anthropic");
    const put = await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: {
        // Room for what every request carries (the deferred listing and the built-ins, ~1,100 tokens), none for a
        // loaded tool (~5,000 tokens): every step compacts.
        model: { provider: "anthropic", name: s.model, context_window: 2000 },
        tools: wideTools("wide", 120),
        compaction: { keep_recent_turns: 0, tool_budget_tokens: 1_000_000 },
      },
    });
    expect(put.status).toBe(200);
    const names = Array.from({ length: 120 }, (_, i) => `wide_${i}`);
    const statuses: string[] = [];
    for (let t = 0; t < 3; t++) {
      await script(s.model, [
        { reply: { tool_calls: selectCalls(`call_sel${t}`, names.slice(t * 40, t * 40 + 40)) } },
        { reply: { text: `Loaded batch ${t}.` } },
      ]);
      statuses.push((await send(s, { content: `load batch ${t}` })).body.status);
    }
    for (let t = 3; t < 5; t++) {
      await script(s.model, [{ reply: { text: `Answer ${t}.` } }]);
      statuses.push((await send(s, { content: `question ${t}` })).body.status);
    }
    expect(statuses).toEqual(["completed", "completed", "completed", "completed", "completed"]);
    const dropped = (await events(s)).flatMap((e) =>
      e.type === "context_compacted" ? (e.data.tools_dropped as string[]) : [],
    );
    expect(dropped.length).toBeGreaterThan(0);
    // Every tool still loaded is declared by the latest record, and nothing else is.
    const declared = await runInDurableObject(await sessionStub(s), (_i, state) =>
      latestCompaction(state.storage.sql)?.tools.declarations.map((d) => d.name),
    );
    const state = await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect([...state.body.loaded_tools].sort()).toEqual([...(declared ?? [])].sort());
    expect(state.body.loaded_tools.length).toBeGreaterThan(0);
  });
});

describe("a summary larger than a compaction row (a multi-million-token window)", () => {
  it("is cut to fit its row, and later turns keep completing", async () => {
    const s = await setup({}, "anthropic");
    const put = await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: {
        model: { provider: "anthropic", name: s.model, context_window: 10_000_000 },
        compaction: { keep_recent_turns: 0 },
      },
    });
    expect(put.status).toBe(200);
    await script(s.model, [{ reply: { text: "First answer." } }]);
    expect((await send(s, { content: "first question" })).body.status).toBe("completed");
    // Under the quarter-window cap of the summary loop (7.5 M characters), over the 2 MB row.
    await summaryScript(s.model, [{ reply: { text: `summary ${"x".repeat(2_500_000)}` } }]);
    // The provider says the next request is too long, so its turn compacts (POST /compact would refuse a summary
    // larger than the turn it replaces) and retries.
    await script(s.model, [
      { error: { status: 400, message: "prompt is too long: 10000100 tokens > 10000000 maximum" } },
      { reply: { text: "Second answer." } },
    ]);
    expect((await send(s, { content: "second question" })).body.status).toBe("completed");
    const summary = await runInDurableObject(await sessionStub(s), (_i, state) =>
      one<{ n: number }>(state.storage.sql, "SELECT length(summary) AS n FROM compactions ORDER BY id DESC LIMIT 1"),
    );
    expect(summary?.n).toBeLessThanOrEqual(SUMMARY_BUDGET_BYTES);
    expect(summary?.n).toBeGreaterThan(SUMMARY_BUDGET_BYTES / 2);
    await script(s.model, [{ reply: { text: "Still here." } }]);
    expect((await send(s, { content: "next question" })).body.status).toBe("completed");
  });
});

/** Sets the agent's model window and compaction config (its tools: COMPACTION_TOOLS), and the mock's window to match. */
async function reconfigure(s: Setup, window: number, compaction: Record<string, unknown> = {}): Promise<void> {
  const put = await apiJson(`/v1/agents/${s.agent}`, {
    method: "PUT",
    key: ADMIN,
    json: {
      model: { provider: "anthropic", name: s.model, context_window: window },
      tools: COMPACTION_TOOLS,
      compaction,
    },
  });
  if (put.status >= 300) throw new Error(`agent: ${put.status} ${JSON.stringify(put.body)}`);
  await mockWindow(s.model, window);
}

/** A summary of `lines` numbered facts (`fact-1`, …), ~100 tokens each, as the summary model might write one. */
const factSummary = (lines: number) =>
  Array.from(
    { length: lines },
    (_, i) => `- user: fact-${i + 1}: ${"the user said something to keep ".repeat(12)}`,
  ).join("\n");

/** The text of every summary request the mock received for `model`. */
async function summaryRequests(model: string): Promise<string> {
  const requests = await mockRequests(model);
  return requests
    .map((r) => JSON.stringify(r.body))
    .filter((body) => body.includes("Summarise the conversation transcript above"))
    .join("\n");
}

/**
 * Compacts `s` on demand (after 4 turns, each with `extra` text) with `summary` as its summary, then reconfigures
 * its agent (`reconfigure`) and sends 14 more messages: each completes, with no provider overflow and every
 * compaction since succeeding. The turns summarised must be larger than the summary as stored: POST /compact
 * refuses a summary that would not make the context smaller.
 */
async function expectCompactsAfterReconfiguring(
  s: Setup,
  summary: string,
  window: number,
  compaction: Record<string, unknown>,
  extra = "",
): Promise<void> {
  for (let i = 1; i <= 4; i++) expect((await send(s, { content: userText(i, extra) })).body.status).toBe("completed");
  await summaryScript(s.model, [{ reply: { text: summary } }], true);
  expect((await apiJson(`/v1/sessions/${s.session}/compact`, { method: "POST", key: s.key })).status).toBe(200);
  const before = (await events(s)).length;
  await reconfigure(s, window, compaction);
  const statuses = await turns(s, 5, 14);
  expect(statuses.filter((x) => x !== "completed")).toEqual([]);
  const later = (await events(s)).slice(before);
  expect(later.filter((e) => e.type === "compaction_failed")).toEqual([]);
  expect(later.some((e) => e.type === "context_compacted")).toBe(true);
  expect((await mockStats(s.model)).overflow).toBe(0);
}

describe("a previous summary too large for the budget in force", () => {
  it("after the window shrinks, is summarised again: every later message completes and compacts", async () => {
    const s = await setup({}, "anthropic");
    await reconfigure(s, 64_000, { keep_recent_turns: 0 });
    // ~10,000 tokens: within the cap of a summary written under a 64,000-token window; the turns ~4 times that.
    const summary = factSummary(100);
    await expectCompactsAfterReconfiguring(s, summary, 16_000, {}, "y ".repeat(summary.length / 2));
    // Summarised, not dropped: every fact of the previous summary reached a summary request.
    const read = await summaryRequests(s.model);
    for (let i = 1; i <= 100; i++) expect(read).toContain(`fact-${i}:`);
  });

  it("after the threshold is lowered (0.8 to 0.2), is summarised again: every later message completes and compacts", async () => {
    const s = await setup({}, "anthropic");
    await reconfigure(s, WINDOW, { threshold: 0.8 });
    // Longer than a summary may be (3/16 of the window: 1,500 tokens): kept at that cap, which the first two
    // turns, summarised, exceed.
    await expectCompactsAfterReconfiguring(s, factSummary(20), WINDOW, { threshold: 0.2 }, "y ".repeat(1000));
  });
});

describe("a model whose window holds max_tokens as well as the input (anthropic, default max_tokens 8,192)", () => {
  it("compacts before input + max_tokens passes the window: no request is refused as too long", async () => {
    const s = await setup({}, "anthropic");
    await reconfigure(s, 16_000);
    await mockWindow(s.model, 16_000, true);
    const statuses = await turns(s, 1, 20);
    expect(statuses.filter((x) => x !== "completed")).toEqual([]);
    expect((await events(s)).some((e) => e.type === "context_compacted")).toBe(true);
    expect((await mockStats(s.model)).overflow).toBe(0);
  });
});

describe("a summary longer than a summary may be (3/16 of the window, and half a summary request's room)", () => {
  it("is kept cut to that size, saying it was cut", async () => {
    // All four turns summarised: more than the summary as stored, so POST /compact keeps it.
    const s = await longSession("anthropic", { compaction: { keep_recent_turns: 0 } });
    await turns(s, 1, 4);
    // ~2,000 tokens, over the 1,500 an 8,000-token window allows.
    await summaryScript(s.model, [{ reply: { text: factSummary(20) } }], true);
    expect((await apiJson(`/v1/sessions/${s.session}/compact`, { method: "POST", key: s.key })).status).toBe(200);
    const { markers } = await allMessages(s);
    const summary = String((markers.at(-1) as { summary?: string } | undefined)?.summary);
    expect(summary).toContain("fact-1:");
    expect(summary).not.toContain("fact-20:");
    expect(
      summary.endsWith("[This summary was cut to fit the context budget: details after this point are missing.]"),
    ).toBe(true);
  });
});
