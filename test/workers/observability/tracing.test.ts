// The spans a turn records (turn, step, provider request, tool call, invalid call) with their attributes, and the
// spans of compactions, summary requests and approvals.
import { env, tracing } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SessionTools } from "../../../src/session/session-tools";
import { TurnStore } from "../../../src/session/turn/turn-store";
import {
  ADMIN,
  apiJson,
  clientTool,
  events,
  history,
  mockRequests,
  pairingProblems,
  patch,
  restorePatches,
  script,
  send,
  setup,
  summaryScript,
  uid,
} from "../helpers";

interface Recorded {
  name: string;
  attributes: Record<string, unknown>;
  /** The span that was open when this one started (null at the top). */
  parent: string | null;
}

/** Records every span the code under test enters, with its attributes and the span it sits in. */
function recordSpans(): Recorded[] {
  const spans: Recorded[] = [];
  const open: Recorded[] = [];
  const real = tracing.enterSpan.bind(tracing);
  vi.spyOn(tracing, "enterSpan").mockImplementation(((name: string, fn: (span: Span) => unknown) =>
    real(name, (span: Span) => {
      const record: Recorded = { name, attributes: {}, parent: open.at(-1)?.name ?? null };
      spans.push(record);
      const setAttributes = span.setAttributes.bind(span);
      span.setAttributes = (a) => {
        Object.assign(record.attributes, a);
        return setAttributes(a);
      };
      // Synchronous nesting only: enough to see that an instant child span opens inside its parent.
      open.push(record);
      try {
        return fn(span);
      } finally {
        open.pop();
      }
    })) as typeof tracing.enterSpan);
  return spans;
}

const named = (spans: Recorded[], name: string) => spans.filter((x) => x.name === name);

/** A first message a short summary replaces with fewer tokens (POST /compact refuses a summary that is not smaller). */
const FIRST_QUESTION = `first question: ${"the details of the order, one by one. ".repeat(20)}`;

/** A session whose one turn a compaction may summarise whole (no recent turns kept). */
async function oneTurnToCompact() {
  const s = await setup();
  await apiJson(`/v1/agents/${s.agent}`, {
    method: "PUT",
    key: ADMIN,
    json: { model: { provider: "anthropic", name: s.model }, compaction: { keep_recent_turns: 0 } },
  });
  await script(s.model, [{ reply: { text: "First answer." } }]);
  expect((await send(s, { content: FIRST_QUESTION })).body.status).toBe("completed");
  return s;
}

/** A turn seen through Workers' tracing API: the spans the turn path opens and their attributes. */
describe("turn spans", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("a turn with an invalid tool call opens turn, step and invalid-call spans, the last with its errors", async () => {
    const spans = recordSpans();
    const s = await setup({
      tools: [
        {
          name: "get_weather",
          description: "Weather",
          input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          execution: { type: "client" },
        },
      ],
    });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_bad", name: "get_weather", input: { city: 42 } }] } },
      { reply: { text: "Sorry." } },
    ]);
    const res = await send(s, { content: "weather?" });
    expect(res.body.status).toBe("completed");
    expect(named(spans, "switchboard.turn")).toHaveLength(1);
    expect(named(spans, "switchboard.step")).toHaveLength(2);
    const invalid = named(spans, "switchboard.tool_call_invalid")[0];
    expect(invalid?.attributes["switchboard.tool_use_id"]).toBe("toolu_bad");
    expect(String(invalid?.attributes["switchboard.errors"])).toContain("city");
    expect(invalid?.parent).toBe("switchboard.tool_call");
    const call = named(spans, "switchboard.tool_call")[0];
    expect(call?.attributes).toMatchObject({
      "switchboard.tool": "get_weather",
      "switchboard.tool_use_id": "toolu_bad",
      "switchboard.kind": "client",
      "switchboard.invalid": true,
      "switchboard.is_error": true,
      "switchboard.outcome": "result",
    });
  });

  it("an invalid-call span carries a long error list cut, with its length, where the event keeps it whole", async () => {
    const spans = recordSpans();
    const s = await setup({
      tools: [
        {
          name: "lookup",
          description: "Looks things up",
          input_schema: { type: "object" },
          execution: { type: "http", url: `${env.MOCK_URL}/_tool` },
        },
      ],
    });
    // The reference's place in the arguments is named in the error: under a key as long as the model makes it.
    const key = "k".repeat(20_000);
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_span_long", name: "lookup", input: { [key]: { $tool: "toolu_none" } } }] } },
      { reply: { text: "No luck." } },
    ]);
    expect((await send(s, { content: "look" })).body.status).toBe("completed");
    const errors = String(named(spans, "switchboard.tool_call_invalid")[0]?.attributes["switchboard.errors"]);
    expect(errors.length).toBeLessThan(5_000);
    expect(errors).toMatch(/^\["reference to unknown tool call toolu_none \(at argument \/k+… \[\d+ characters\]$/);
    const event = (await events(s)).find((e) => e.type === "tool_call_invalid");
    expect(JSON.stringify(event?.data.errors)).toContain(key);
  });

  it("a tool call span carries a model-written tool name cut, with its length", async () => {
    const spans = recordSpans();
    const s = await setup();
    const name = `n${"a".repeat(20_000)}`;
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_span_long_name", name, input: {} }] } },
      { reply: { text: "No such tool." } },
    ]);
    expect((await send(s, { content: "call it" })).body.status).toBe("completed");
    const tool = String(named(spans, "switchboard.tool_call")[0]?.attributes["switchboard.tool"]);
    expect(tool.length).toBeLessThan(5_000);
    expect(tool).toMatch(/^na+… \[20001 characters\]$/);
  });

  it("the turn span carries turn_started's kind and max_steps and turn_finished's status and finish reason", async () => {
    const spans = recordSpans();
    const s = await setup();
    await script(s.model, [{ reply: { text: "Done." } }]);
    expect((await send(s, { content: "hi", max_steps: 3 })).body.status).toBe("completed");
    expect(named(spans, "switchboard.turn")[0]?.attributes).toMatchObject({
      "switchboard.kind": "message",
      "switchboard.max_steps": 3,
      "switchboard.status": "completed",
      "switchboard.finish_reason": "end_turn",
    });
  });

  it("a failed turn's span carries its error code", async () => {
    const spans = recordSpans();
    const s = await setup();
    await script(s.model, [{ error: { status: 400, message: "bad thing" } }]);
    expect((await send(s, { content: "hi" })).body.status).toBe("failed");
    expect(named(spans, "switchboard.turn")[0]?.attributes).toMatchObject({
      "switchboard.status": "failed",
      "switchboard.finish_reason": "error",
      "switchboard.error_code": "provider_http_error",
    });
  });

  it("a turn whose end row could not be written has a span saying failed, as the engine recorded it", async () => {
    const spans = recordSpans();
    const s = await setup();
    const finish = TurnStore.prototype.finish;
    let thrown = false;
    patch(TurnStore.prototype, "finish", function (this: TurnStore, id, status, reason, error) {
      if (!thrown && status === "completed") {
        thrown = true;
        throw new Error("turn write failed");
      }
      return finish.call(this, id, status, reason, error);
    });
    try {
      await script(s.model, [{ reply: { text: "Done, but not written." } }]);
      expect((await send(s, { content: "hi" })).body.status).toBe("failed");
    } finally {
      restorePatches();
    }
    expect(thrown).toBe(true);
    expect(named(spans, "switchboard.turn")[0]?.attributes).toMatchObject({
      "switchboard.status": "failed",
      "switchboard.finish_reason": "error",
      "switchboard.error_code": "internal_error",
    });
  });

  it("a tool call whose execution threw is a span marked crashed", async () => {
    const spans = recordSpans();
    const s = await setup({ tools: [{ ...clientTool("hidden_tool"), defer: true }] });
    patch(SessionTools.prototype, "index", () => {
      throw new Error("search index exploded");
    });
    try {
      await script(s.model, [
        { reply: { tool_calls: [{ id: "toolu_span_boom", name: "tool_search", input: { query: "hidden" } }] } },
        { reply: { text: "Search is broken, sorry." } },
      ]);
      expect((await send(s, { content: "find it" })).body.status).toBe("completed");
    } finally {
      restorePatches();
    }
    expect(named(spans, "switchboard.tool_call")[0]?.attributes).toMatchObject({
      "switchboard.tool_use_id": "toolu_span_boom",
      "switchboard.crashed": true,
      "switchboard.is_error": true,
    });
  });

  it("each provider request is a span with its model, status, tokens and retries", async () => {
    const spans = recordSpans();
    const s = await setup();
    await script(s.model, [{ error: { status: 529 } }, { reply: { text: "After one retry." } }]);
    expect((await send(s, { content: "hi" })).body.status).toBe("completed");
    const requests = named(spans, "switchboard.provider_request");
    expect(requests).toHaveLength(1);
    const attrs = requests[0]?.attributes ?? {};
    expect(attrs).toMatchObject({
      "switchboard.model": s.model,
      "switchboard.provider": "anthropic",
      "switchboard.step": 1,
      "switchboard.status": "ok",
      "switchboard.stop_reason": "end_turn",
      "switchboard.retries": 1,
    });
    expect(attrs["switchboard.input_tokens"]).toBeGreaterThan(0);
    expect(attrs["switchboard.output_tokens"]).toBeGreaterThan(0);
    const retry = named(spans, "switchboard.provider_retry")[0];
    expect(retry?.attributes).toMatchObject({ "switchboard.attempt": 1, "switchboard.status": 529 });
    expect(requests[0]?.parent).toBe("switchboard.step");
  });

  it("a failed provider request's span carries the error code", async () => {
    const spans = recordSpans();
    const s = await setup();
    await script(s.model, [{ error: { status: 400, message: "bad thing" } }]);
    expect((await send(s, { content: "hi" })).body.status).toBe("failed");
    const failed = named(spans, "switchboard.provider_request")[0];
    expect(failed?.attributes).toMatchObject({ "switchboard.status": "provider_http_error", "switchboard.retries": 0 });
    expect(String(failed?.attributes["switchboard.error"])).toContain("bad thing");
  });

  it("an executed HTTP tool call is a span with its kind, result and duration", async () => {
    const spans = recordSpans();
    const s = await setup({
      tools: [
        {
          name: "lookup",
          description: "http tool",
          input_schema: { type: "object", properties: { q: { type: "string" } } },
          execution: { type: "http", url: `${env.MOCK_URL}/_tool?delay_ms=20` },
        },
      ],
    });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_lookup", name: "lookup", input: { q: "x" } }] } },
      { reply: { text: "Found." } },
    ]);
    expect((await send(s, { content: "look it up" })).body.status).toBe("completed");
    const calls = named(spans, "switchboard.tool_call");
    expect(calls).toHaveLength(1);
    expect(calls[0]?.attributes).toMatchObject({
      "switchboard.tool": "lookup",
      "switchboard.tool_use_id": "toolu_lookup",
      "switchboard.kind": "http",
      "switchboard.is_error": false,
      "switchboard.outcome": "result",
      "switchboard.status": 200,
    });
    expect(calls[0]?.attributes["switchboard.duration_ms"]).toBeGreaterThanOrEqual(0);
    expect(calls[0]?.attributes["switchboard.ms"]).toBeGreaterThanOrEqual(0);
  });

  it("structured_output calls are tool_call spans: the refused one invalid with its errors inside, the accepted one not", async () => {
    const spans = recordSpans();
    const s = await setup();
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "toolu_span_so_bad", name: "structured_output", input: { town: "Oslo" } },
            { id: "toolu_span_so_good", name: "structured_output", input: { city: "Oslo" } },
          ],
        },
      },
    ]);
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    expect((await send(s, { content: "where?", json_schema: schema })).body.status).toBe("completed");
    const calls = named(spans, "switchboard.tool_call");
    expect(calls.map((c) => c.attributes)).toEqual([
      expect.objectContaining({
        "switchboard.tool": "structured_output",
        "switchboard.tool_use_id": "toolu_span_so_bad",
        "switchboard.kind": "builtin",
        "switchboard.invalid": true,
        "switchboard.is_error": true,
        "switchboard.outcome": "result",
      }),
      expect.objectContaining({
        "switchboard.tool_use_id": "toolu_span_so_good",
        "switchboard.kind": "builtin",
        "switchboard.is_error": false,
        "switchboard.outcome": "result",
      }),
    ]);
    expect(calls[1]?.attributes["switchboard.invalid"]).toBeUndefined();
    const invalid = named(spans, "switchboard.tool_call_invalid")[0];
    expect(invalid?.attributes["switchboard.tool_use_id"]).toBe("toolu_span_so_bad");
    expect(invalid?.parent).toBe("switchboard.tool_call");
  });

  it("a compaction is a span carrying context_compacted's figures, its summary request a provider span", async () => {
    const s = await oneTurnToCompact();
    await script(s.model, [{ reply: { text: "A short summary." } }]);
    const spans = recordSpans();
    const compacted = await apiJson(`/v1/sessions/${s.session}/compact`, { method: "POST", key: s.key });
    expect(compacted.status).toBe(200);
    const compaction = named(spans, "switchboard.compaction")[0];
    expect(compaction?.attributes).toMatchObject({
      "switchboard.compacted": true,
      "switchboard.boundary_seq": compacted.body.boundary_seq,
      "switchboard.tokens_after": compacted.body.tokens_after,
      "switchboard.summary_requests": 1,
    });
    const summary = named(spans, "switchboard.provider_request")[0];
    expect(summary?.attributes).toMatchObject({ "switchboard.purpose": "summary", "switchboard.status": "ok" });
    expect(summary?.parent).toBe("switchboard.compaction");
  });
});

describe("compaction spans", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("a compaction that could not use the provider's own says why on its span (native_unavailable)", async () => {
    const s = await setup();
    await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: {
        // Below the provider's 50,000-token minimum trigger: our own summary runs instead.
        model: {
          provider: "anthropic",
          name: s.model,
          context_window: 8000,
          capabilities: { native_compaction: true },
        },
        compaction: { keep_recent_turns: 0 },
      },
    });
    await script(s.model, [{ reply: { text: "First answer." } }]);
    expect((await send(s, { content: FIRST_QUESTION })).body.status).toBe("completed");
    await script(s.model, [{ reply: { text: "A short summary." } }]);
    const spans = recordSpans();
    expect((await apiJson(`/v1/sessions/${s.session}/compact`, { method: "POST", key: s.key })).status).toBe(200);
    const compaction = named(spans, "switchboard.compaction")[0];
    expect(compaction?.attributes["switchboard.native"]).toBe(false);
    expect(String(compaction?.attributes["switchboard.native_unavailable"])).toContain("minimum compaction trigger");
  });

  it("a failed compaction's span carries its reason cut, with its length, however long the provider's message", async () => {
    const s = await oneTurnToCompact();
    const message = `refused ${"x".repeat(20_000)}`;
    await summaryScript(s.model, [{ error: { status: 400, message } }]);
    const spans = recordSpans();
    expect((await apiJson(`/v1/sessions/${s.session}/compact`, { method: "POST", key: s.key })).status).toBe(409);
    const compaction = named(spans, "switchboard.compaction")[0];
    expect(compaction?.attributes["switchboard.compacted"]).toBe(false);
    const reason = String(compaction?.attributes["switchboard.reason"]);
    expect(reason.length).toBeLessThan(5_000);
    expect(reason).toMatch(/refused x+… \[\d+ characters\]$/);
  });
});

/** Summary requests: one provider_request span each, in the same words as a step's. */
describe("summary request spans", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("a compaction inside a turn names that turn on its summary request's span", async () => {
    const s = await setup();
    await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: {
        model: { provider: "anthropic", name: s.model, context_window: 8000 },
        compaction: { keep_recent_turns: 0 },
      },
    });
    const long = (i: number) => `turn-${i}: ${"lorem ipsum dolor sit amet ".repeat(300)}`;
    for (let i = 1; i <= 3; i++) {
      await script(s.model, [{ reply: { text: `Answer ${i}.` } }]);
      expect((await send(s, { content: long(i) })).body.status).toBe("completed");
    }
    const spans = recordSpans();
    await summaryScript(s.model, [{ reply: { text: "A short summary." } }]);
    await script(s.model, [{ reply: { text: "Answer 4." } }]);
    const res = await send(s, { content: long(4) });
    expect(res.body.status).toBe("completed");
    const summary = named(spans, "switchboard.provider_request").find(
      (x) => x.attributes["switchboard.purpose"] === "summary",
    );
    expect(summary?.attributes).toMatchObject({ "switchboard.turn_id": res.body.turn_id, "switchboard.status": "ok" });
  });

  it("a failed summary request's span carries the provider error's code, as a step's does", async () => {
    const s = await oneTurnToCompact();
    await summaryScript(s.model, [{ error: { status: 400, message: "summary refused" } }]);
    const spans = recordSpans();
    const compacted = await apiJson(`/v1/sessions/${s.session}/compact`, { method: "POST", key: s.key });
    expect(compacted.status).toBe(409);
    const summary = named(spans, "switchboard.provider_request")[0];
    expect(summary?.attributes).toMatchObject({
      "switchboard.purpose": "summary",
      "switchboard.status": "provider_http_error",
    });
    expect(String(summary?.attributes["switchboard.error"])).toContain("summary refused");
  });
});

/** Human approvals as spans: requested, granted and declined, each with what a trace reader needs. */
describe("approval spans", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const approvalTool = (name: string) => ({
    name,
    description: `http tool ${name}`,
    input_schema: { type: "object", properties: { amount: { type: "number" } } },
    execution: { type: "http", url: `${env.MOCK_URL}/_callback/${uid(name)}` },
    requires_approval: true,
  });

  it("open a span per request, grant and decline, carrying approval id, call id, tool, who and reason", async () => {
    const spans = recordSpans();
    const s = await setup({ tools: [approvalTool("charge_card"), approvalTool("refund_card")] });
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_span_charge", name: "charge_card", input: { amount: 5 } },
            { id: "call_span_refund", name: "refund_card", input: { amount: 7 } },
          ],
        },
      },
      { reply: { text: "Charged, not refunded." } },
    ]);
    const paused = await send(s, { content: "charge 5, refund 7" });
    expect(paused.body.status).toBe("awaiting_approval");
    const open = (paused.body as unknown as { pending_approvals: Array<{ approval_id: string; name: string }> })
      .pending_approvals;
    const charge = open.find((a) => a.name === "charge_card")?.approval_id as string;
    const refund = open.find((a) => a.name === "refund_card")?.approval_id as string;
    const res = await apiJson<{ status: string }>(`/v1/sessions/${s.session}/tool-approvals`, {
      method: "POST",
      key: s.key,
      json: {
        approvals: [
          { approval_id: charge, approved: true },
          { approval_id: refund, approved: false, reason: "refunds need a manager" },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("completed");

    const by = String((await events(s)).find((e) => e.type === "approval_granted")?.data.by);
    expect(by).toMatch(/^key:/);
    const requested = spans.filter((x) => x.name === "switchboard.approval_requested");
    expect(requested.map((x) => x.attributes["switchboard.tool_use_id"]).sort()).toEqual([
      "call_span_charge",
      "call_span_refund",
    ]);
    expect(requested.find((x) => x.attributes["switchboard.approval_id"] === charge)?.attributes).toMatchObject({
      "switchboard.tool": "charge_card",
      "switchboard.tool_use_id": "call_span_charge",
      "switchboard.reason": '"charge_card" requires approval before it runs',
    });
    const granted = spans.filter((x) => x.name === "switchboard.approval_granted");
    expect(granted.map((x) => x.attributes)).toEqual([
      expect.objectContaining({
        "switchboard.approval_id": charge,
        "switchboard.tool_use_id": "call_span_charge",
        "switchboard.tool": "charge_card",
        "switchboard.by": by,
      }),
    ]);
    const declined = spans.filter((x) => x.name === "switchboard.approval_declined");
    expect(declined.map((x) => x.attributes)).toEqual([
      expect.objectContaining({
        "switchboard.approval_id": refund,
        "switchboard.tool_use_id": "call_span_refund",
        "switchboard.tool": "refund_card",
        "switchboard.by": by,
        "switchboard.reason": "refunds need a manager",
      }),
    ]);
    expect(pairingProblems(await history(s))).toEqual([]);
    expect((await mockRequests(s.model)).filter((r) => r.rejected)).toEqual([]);
  });
});
