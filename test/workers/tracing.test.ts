import { env, tracing } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { apiJson, events, history, mockRequests, pairingProblems, script, send, setup, uid } from "./helpers";

interface RecordedSpan {
  name: string;
  attributes: Record<string, unknown>;
}

/** Every span opened through Workers' tracing API from now on, with the attributes set on it. */
function recordSpans(): RecordedSpan[] {
  const spans: RecordedSpan[] = [];
  const real = tracing.enterSpan.bind(tracing);
  vi.spyOn(tracing, "enterSpan").mockImplementation(((name: string, fn: (span: Span) => unknown) =>
    real(name, (span: Span) => {
      const record: RecordedSpan = { name, attributes: {} };
      spans.push(record);
      const setAttributes = span.setAttributes.bind(span);
      span.setAttributes = (a) => {
        Object.assign(record.attributes, a);
        return setAttributes(a);
      };
      return fn(span);
    })) as typeof tracing.enterSpan);
  return spans;
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
    const names = spans.map((x) => x.name);
    expect(names.filter((n) => n === "switchboard.turn")).toHaveLength(1);
    expect(names.filter((n) => n === "switchboard.step")).toHaveLength(2);
    const invalid = spans.find((x) => x.name === "switchboard.tool_call_invalid");
    expect(invalid?.attributes["switchboard.tool_use_id"]).toBe("toolu_bad");
    expect(String(invalid?.attributes["switchboard.errors"])).toContain("city");
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
