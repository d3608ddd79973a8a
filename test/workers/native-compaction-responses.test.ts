// Native (server-side) compaction on the OpenAI Responses API (provider `openai-responses`,
// `context_management` `compact_threshold`) against the mock's emulation (README "Long sessions").
import { env, tracing } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import {
  ADMIN,
  api,
  apiJson,
  COMPACTION_TOOLS,
  events,
  expectNativeCompacted,
  history,
  mockStats,
  type Setup,
  script,
  send,
  setup,
  type TurnJson,
} from "./helpers";

interface Item {
  type?: string;
  role?: string;
  content?: unknown;
  encrypted_content?: string;
}
interface Recorded {
  body: Record<string, unknown> & { input: Item[] };
  raw: string;
  rejected: unknown;
}

async function requests(model: string): Promise<Recorded[]> {
  const res = await fetch(`${env.MOCK_URL}/_mock/requests?model=${model}`);
  return ((await res.json()) as { requests: Recorded[] }).requests;
}

/** A Responses-protocol session whose agent (and the mock) have a 20,000-token window: threshold 16,000. */
async function responsesSession(compaction: Record<string, unknown> = {}): Promise<Setup> {
  const s = await setup({}, "openai-responses");
  const put = await apiJson(`/v1/agents/${s.agent}`, {
    method: "PUT",
    key: ADMIN,
    json: {
      model: {
        provider: "openai-responses",
        name: s.model,
        context_window: 20_000,
        capabilities: { native_compaction: true },
      },
      system: "You are a test agent.",
      tools: COMPACTION_TOOLS,
      compaction,
    },
  });
  if (put.status >= 300) throw new Error(`agent: ${put.status} ${JSON.stringify(put.body)}`);
  const res = await fetch(`${env.MOCK_URL}/_mock/context_window`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: s.model, tokens: 20_000 }),
  });
  if (!res.ok) throw new Error(`mock window: ${res.status}`);
  return s;
}

/** Turn 1 loads the deferred tool (tool_search select:) and calls it. */
const LOAD_AND_CALL = [
  { reply: { tool_calls: [{ id: "call_s1", name: "tool_search", input: { query: "select:lookup_order" } }] } },
  { reply: { tool_calls: [{ id: "call_l1", name: "lookup_order", input: { city: "Paris" } }] } },
  { reply: { text: "Order found." } },
];
/** ~1,500 tokens per message; with the echoed answer a turn adds ~3,000: the mock compacts around turn 6. */
const long = (tag: string, i: number) => `${tag}-${i}: ${"lorem ipsum dolor sit ".repeat(280)}`;

/** Twelve long turns, streamed (the provider compacts along the way); returns the streams' text. */
async function longTurns(s: Setup, tag: string): Promise<string> {
  let streamed = "";
  for (let i = 1; i <= 12; i++) {
    const res = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: long(tag, i) },
      headers: { accept: "text/event-stream" },
    });
    streamed += await res.text();
  }
  return streamed;
}

describe("native compaction on the OpenAI Responses API (compact_threshold)", () => {
  it("the provider compacts past the threshold: item stored and sent back verbatim, tools kept, nothing lost", async () => {
    const s = await responsesSession();
    await script(s.model, LOAD_AND_CALL);
    const streamed = await longTurns(s, "resp");
    const finished = (await events(s)).filter((e) => e.type === "turn_finished").map((e) => e.data.status);
    expect(finished).toEqual(Array(12).fill("completed"));
    // Stored: the assistant message at the boundary opens with the provider's opaque compaction item.
    const { boundary, block } = await expectNativeCompacted(s, streamed, "openai");
    const encrypted = block.encrypted;

    // The request after it: the item sent back verbatim right after a short lead, the threshold asked
    // for, the loaded deferred tool still declared in tools[], and far fewer bytes.
    const reqs = await requests(s.model);
    const firstAfter = reqs.findIndex((r) => r.raw.includes(encrypted));
    expect(firstAfter).toBeGreaterThan(0);
    const after = reqs[firstAfter] as Recorded;
    const before = reqs[firstAfter - 1] as Recorded;
    expect(after.body.context_management).toEqual([{ type: "compaction", compact_threshold: 16_000 }]);
    expect(after.body.store).toBe(false);
    expect(after.body.input[0]).toMatchObject({ type: "message", role: "user" });
    expect(after.body.input[1]).toEqual({ type: "compaction", encrypted_content: encrypted });
    const names = (after.body.tools as Array<{ name: string }>).map((t) => t.name);
    expect(names).toContain("lookup_order");
    expect(after.raw.length).toBeLessThan(before.raw.length / 2);

    // Every user message stays readable, with a marker where the provider compacted.
    const page = await apiJson<{ messages: unknown[]; compactions: Array<{ before_seq: number }> }>(
      `/v1/sessions/${s.session}/messages?limit=1000`,
      { key: s.key },
    );
    const text = JSON.stringify(page.body.messages);
    for (let i = 1; i <= 12; i++) expect(text).toContain(`resp-${i}:`);
    expect(page.body.compactions.map((c) => c.before_seq)).toContain(boundary);

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

  it("a provider's compaction is a switchboard.compaction span too, with context_compacted's figures", async () => {
    const spans: Array<{ name: string; attributes: Record<string, unknown> }> = [];
    const real = tracing.enterSpan.bind(tracing);
    vi.spyOn(tracing, "enterSpan").mockImplementation(((name: string, fn: (span: Span) => unknown) =>
      real(name, (span: Span) => {
        const record = { name, attributes: {} as Record<string, unknown> };
        spans.push(record);
        const set = span.setAttributes.bind(span);
        span.setAttributes = (a) => {
          Object.assign(record.attributes, a);
          return set(a);
        };
        return fn(span);
      })) as typeof tracing.enterSpan);
    try {
      const s = await responsesSession();
      await script(s.model, LOAD_AND_CALL);
      const streamed = await longTurns(s, "spanned");
      const { boundary } = await expectNativeCompacted(s, streamed, "openai");
      // One span per provider compaction (context_compacted event), each with its figures.
      const compactions = spans.filter((x) => x.name === "switchboard.compaction").map((x) => x.attributes);
      const recorded = (await events(s)).filter((e) => e.type === "context_compacted");
      expect(compactions).toHaveLength(recorded.length);
      for (const span of compactions) {
        expect(span).toMatchObject({
          "switchboard.compacted": true,
          "switchboard.native": true,
          "switchboard.summary_requests": 0,
        });
      }
      expect(compactions.at(-1)?.["switchboard.boundary_seq"]).toBe(boundary);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it("our own summary after the provider's compaction reads its item first, so what it held is not lost", async () => {
    // No recent turn kept: the view after the provider's last compaction holds no more turns than the default keeps.
    const s = await responsesSession({ keep_recent_turns: 0 });
    await script(s.model, LOAD_AND_CALL);
    const streamed = await longTurns(s, "opaque");
    const { block } = await expectNativeCompacted(s, streamed, "openai");
    const before = (await requests(s.model)).length;

    const compacted = await apiJson<{ native: boolean; summary_requests: number }>(
      `/v1/sessions/${s.session}/compact`,
      { method: "POST", key: s.key },
    );
    expect(compacted.status).toBe(200);
    expect(compacted.body).toMatchObject({ native: false, summary_requests: 1 });
    const summary = (await requests(s.model))[before] as Recorded;
    expect(summary.body.input[0]).toEqual({ type: "compaction", encrypted_content: block.encrypted });
    expect(summary.body.input[1]).toMatchObject({ type: "message", role: "user" });
    expect(JSON.stringify(summary.body.input[1])).toContain("compacted context this request opens with");
    expect(summary.rejected).toBeNull();
  });

  it("a compaction cut after its item is carried back: the retry and the next message are answered", async () => {
    const s = await responsesSession();
    for (let i = 1; i <= 12 && (await mockStats(s.model)).compactions === 0; i++) {
      expect((await send(s, { content: long("cut", i) })).body.status).toBe("completed");
    }
    expect((await mockStats(s.model)).compactions).toBe(1);
    // Every later turn opens with a call whose answer (8 frames) is whole, but which, when the mock compacts
    // it (2 frames more: the compaction item), is cut after the call and just before response.completed.
    const call = (i: number) => ({
      reply: { tool_calls: [{ id: `call_cut${i}`, name: "echo_core", input: { city: "Paris" } }] },
      faults: { cut_after_events: 9 },
    });
    let cut: TurnJson | undefined;
    for (let i = 13; i <= 40 && cut === undefined; i++) {
      await script(s.model, [call(i)], true);
      const turn = await send(s, { content: long("cut", i) });
      if ((await mockStats(s.model)).compactions === 2) cut = turn.body;
      else expect(turn.body.status).toBe("completed");
    }
    expect(cut).toMatchObject({ status: "failed", error: { code: "provider_stream_cut" } });
    // The session kept the second compaction with the call (the mock's answer handed both over whole).
    const stored = (await history(s)).flatMap((m) => m.parts).filter((p) => p.type === "compaction");
    expect(stored).toHaveLength(2);
    await script(s.model, [], true);
    const retried = await apiJson<TurnJson>(`/v1/sessions/${s.session}/retry`, { method: "POST", key: s.key });
    expect(retried.body.status).toBe("completed");
    expect((await send(s, { content: "after the cut" })).body.status).toBe("completed");
    expect((await mockStats(s.model)).rejected).toBe(0);
    // What was carried back is the second item, not the first one the mock also handed out.
    const last = (await requests(s.model)).at(-1) as Recorded;
    expect(last.body.input).toContainEqual({ type: "compaction", encrypted_content: stored[1]?.encrypted });
  });

  it("a loaded tool over the budget is dropped: announced after the compaction item, still callable", async () => {
    const s = await responsesSession({ tool_budget_tokens: 0 });
    await script(s.model, LOAD_AND_CALL);
    for (let i = 1; i <= 12 && (await mockStats(s.model)).compactions === 0; i++) {
      expect((await send(s, { content: long("drop", i) })).body.status).toBe("completed");
    }
    const compacted = (await events(s)).filter((e) => e.type === "context_compacted");
    expect(compacted[0]?.data).toMatchObject({ native: true, tools_kept: [], tools_dropped: ["lookup_order"] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_l2", name: "lookup_order", input: { city: "Rome" } }] } },
      { reply: { text: "Found again." } },
    ]);
    const again = await send(s, { content: "again: look up the Rome order" });
    expect(again.body.status).toBe("completed");
    const reqs = await requests(s.model);
    const announced = reqs.find((r) => r.raw.includes("<tools_removed>lookup_order</tools_removed>")) as Recorded;
    const note = announced.body.input.findIndex((m) => JSON.stringify(m.content ?? "").includes("<tools_removed>"));
    const item = announced.body.input.findIndex((m) => m.type === "compaction");
    expect(item).toBe(1);
    expect(note).toBeGreaterThan(item);
    // Dropped: no longer in tools[] (plain projection), yet a valid direct call still runs and reloads it.
    expect((announced.body.tools as Array<{ name: string }>).map((t) => t.name)).not.toContain("lookup_order");
    const result = again.body.messages.flatMap((m) => m.parts).find((p) => p.tool_use_id === "call_l2");
    expect(result?.is_error).toBe(false);
    const state = await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.loaded_tools).toContain("lookup_order");
    expect((await mockStats(s.model)).rejected).toBe(0);
  });
});
