// Human approval of tool calls (README "Human approval of tool calls"): the pause, both ways of answering
// (/tool-approvals here; useChat's approval parts in test/e2e/approvals.test.ts), the exactly-once
// guarantee against a recording tool endpoint, refusals with no state change, and pairing on every path.
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalStore } from "../../src/session/approval-store";
import type { Session } from "../../src/session/session";
import {
  ADMIN,
  api,
  apiJson,
  approvedPart,
  clientTool,
  events,
  fillStreamPlaces,
  heldToolUrl,
  history,
  lastTurnAtRest,
  mockRequests,
  pairingProblems,
  patch,
  readRest,
  recordedTool,
  recreate,
  releaseTool,
  restorePatches,
  type Setup,
  script,
  send,
  setup,
  uiChunks,
  uid,
} from "./helpers";
import { deliveries, getRun, runSetup, signedRun, waitRun } from "./runs-helpers";

interface OpenApproval {
  approval_id: string;
  tool_call_id: string;
  name: string;
  input: Record<string, unknown>;
  reason: string;
  signature: string;
}

interface TurnView {
  turn_id: string;
  status: string;
  pending_approvals?: OpenApproval[];
  messages: Array<{ role: string; parts: Array<Record<string, unknown>> }>;
  error?: { code: string };
}

/** An http tool that answers after `ms` (the mock's tool endpoint). */
function slowTool(name: string, ms: number) {
  return {
    name,
    description: `a slow server-side ${name}`,
    input_schema: { type: "object", properties: { amount: { type: "number" } } },
    execution: { type: "http", url: `${env.MOCK_URL}/_tool?delay_ms=${ms}` },
  };
}

/** An http tool each call of which the mock holds until `releaseTool(hold)`. */
function heldTool(name: string, hold: string) {
  return { ...slowTool(name, 0), execution: { type: "http", url: heldToolUrl(hold) } };
}

/**
 * A session whose next step asks approval for charge_card (call_<tag>_charge) beside slow_check (`slow`: by default
 * one answering after 1.5 s).
 */
async function chargeBesideSlow(
  tag: string,
  slow: ReturnType<typeof slowTool> = slowTool("slow_check", 1500),
): Promise<{ s: Setup; charge: string }> {
  const charge = uid("charge");
  const s = await setup({ tools: [recordedTool("charge_card", charge), slow] });
  await script(s.model, [
    {
      reply: {
        tool_calls: [
          { id: `call_${tag}_charge`, name: "charge_card", input: { amount: 9 } },
          { id: `call_${tag}_slow`, name: "slow_check", input: { amount: 9 } },
        ],
      },
    },
  ]);
  return { s, charge };
}

async function sessionState(s: Setup) {
  return (
    await apiJson<{ status: string; pending_approvals: OpenApproval[]; last_turn: { status: string } }>(
      `/v1/sessions/${s.session}`,
      { key: s.key },
    )
  ).body;
}

/**
 * Releases the calls held on `hold` once approval `id` is no longer open (the session took its answer), then waits
 * for `answering`: the request that carried that answer.
 */
async function releasedOnceAnswered<T>(s: Setup, id: string, hold: string, answering: Promise<T>): Promise<T> {
  for (let i = 0; i < 200 && (await sessionState(s)).pending_approvals.some((a) => a.approval_id === id); i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  await releaseTool(hold);
  return answering;
}

function answer(s: Setup, approvals: unknown[], key = s.key) {
  return apiJson<TurnView & { error?: { code: string } }>(`/v1/sessions/${s.session}/tool-approvals`, {
    method: "POST",
    key,
    json: { approvals },
  });
}

/** Everything an answer must leave alone when it is refused. */
async function snapshot(s: Setup) {
  return { state: await sessionState(s), history: await history(s), events: (await events(s)).length };
}

async function noRejections(model: string): Promise<void> {
  const requests = await mockRequests(model);
  expect(requests.length).toBeGreaterThan(0);
  expect(requests.filter((r) => r.rejected)).toEqual([]);
}

for (const provider of ["anthropic", "openai"] as const) {
  describe(`approval over ${provider}`, () => {
    it("pauses as awaiting_approval; an approval sent twice runs the tool exactly once", async () => {
      const rec = uid("charge");
      const s = await setup({ tools: [recordedTool("charge_card", rec)] }, provider);
      await script(s.model, [
        {
          reply: {
            text: "Charging.",
            tool_calls: [{ id: "call_charge_1", name: "charge_card", input: { amount: 42 } }],
          },
        },
        { reply: { text: "Charged." } },
      ]);
      const paused = await send(s, { content: "charge 42" });
      expect(paused.body.status).toBe("awaiting_approval");
      const open = (paused.body as unknown as TurnView).pending_approvals ?? [];
      expect(open).toHaveLength(1);
      expect(open[0]).toMatchObject({ tool_call_id: "call_charge_1", name: "charge_card", input: { amount: 42 } });
      expect(await deliveries(rec)).toEqual([]);
      // The session lists the open approval, and the call is still pending in the ledger.
      const state = await sessionState(s);
      expect(state.status).toBe("awaiting_approval");
      expect(state.pending_approvals.map((a) => a.approval_id)).toEqual([open[0]?.approval_id]);

      const id = open[0]?.approval_id as string;
      const first = await answer(s, [{ approval_id: id, approved: true }]);
      expect(first.status).toBe(200);
      expect(first.body.status).toBe("completed");
      const again = await answer(s, [{ approval_id: id, approved: true }]);
      expect(again.status).toBe(409);
      expect(again.body.error?.code).toBe("approval_already_answered");

      const calls = await deliveries(rec);
      expect(calls).toHaveLength(1);
      expect(JSON.parse(calls[0]?.body ?? "{}")).toMatchObject({ tool_use_id: "call_charge_1", input: { amount: 42 } });
      const msgs = await history(s);
      expect(pairingProblems(msgs)).toEqual([]);
      expect(msgs[2]?.parts[0]).toMatchObject({ type: "tool_result", tool_use_id: "call_charge_1", is_error: false });
      expect((await sessionState(s)).pending_approvals).toEqual([]);
      await noRejections(s.model);
    });

    it("a denial becomes an is_error result the model sees, and the tool never runs", async () => {
      const rec = uid("charge");
      const s = await setup({ tools: [recordedTool("charge_card", rec)] }, provider);
      await script(s.model, [
        { reply: { tool_calls: [{ id: "call_charge_2", name: "charge_card", input: { amount: 900 } }] } },
        { reply: { text: "Understood, not charging." } },
      ]);
      const paused = (await send(s, { content: "charge 900" })).body as unknown as TurnView;
      const id = paused.pending_approvals?.[0]?.approval_id as string;
      const res = await answer(s, [{ approval_id: id, approved: false, reason: "too expensive" }]);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("completed");
      expect(await deliveries(rec)).toEqual([]);
      const msgs = await history(s);
      expect(pairingProblems(msgs)).toEqual([]);
      expect(msgs[2]?.parts[0]).toMatchObject({
        type: "tool_result",
        tool_use_id: "call_charge_2",
        is_error: true,
        content: "the user declined: too expensive",
      });
      const declined = (await events(s)).find((e) => e.type === "approval_declined");
      expect(declined?.data).toMatchObject({ approval_id: id, reason: "too expensive" });
      expect(String(declined?.data.by)).toMatch(/^key:/);
      await noRejections(s.model);
    });
  });
}

describe("the same approval sent twice at once", () => {
  it("one answer wins, the other is 409, and the tool runs once", async () => {
    const rec = uid("charge");
    const s = await setup({ tools: [recordedTool("charge_card", rec)] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_race", name: "charge_card", input: { amount: 11 } }] } },
      { reply: { text: "Charged." } },
    ]);
    const paused = (await send(s, { content: "charge 11" })).body as unknown as TurnView;
    const id = paused.pending_approvals?.[0]?.approval_id as string;
    const both = await Promise.all([
      answer(s, [{ approval_id: id, approved: true }]),
      answer(s, [{ approval_id: id, approved: true }]),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await lastTurnAtRest(s)).toBe("completed");
    expect(await deliveries(rec)).toHaveLength(1);
    expect((await events(s)).filter((e) => e.type === "approval_granted")).toHaveLength(1);
    expect(pairingProblems(await history(s))).toEqual([]);
    await noRejections(s.model);
  });
});

describe("two overlapping answers sent at once", () => {
  afterEach(restorePatches);

  it("the one that finds an approval already decided is 409 and writes none of its answers", async () => {
    const [a, b, c] = [uid("ov-a"), uid("ov-b"), uid("ov-c")];
    const s = await setup({
      tools: [recordedTool("tool_a", a), recordedTool("tool_b", b), recordedTool("tool_c", c)],
    });
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_ov_a", name: "tool_a", input: { amount: 1 } },
            { id: "call_ov_b", name: "tool_b", input: { amount: 2 } },
            { id: "call_ov_c", name: "tool_c", input: { amount: 3 } },
          ],
        },
      },
    ]);
    const paused = (await send(s, { content: "a, b and c" })).body as unknown as TurnView;
    const open = Object.fromEntries((paused.pending_approvals ?? []).map((x) => [x.name, x]));
    const signed = (name: string, approved: boolean) => ({
      approval_id: open[name]?.approval_id,
      approved,
      signature: open[name]?.signature,
    });
    // Both requests pass their checks before either writes: the signature check is slowed to widen that window.
    const verify = ApprovalStore.prototype.verify;
    patch(ApprovalStore.prototype, "verify", async function (this: ApprovalStore, ...args) {
      await new Promise((r) => setTimeout(r, 200));
      return verify.apply(this, args);
    });
    const [first, second] = await Promise.all([
      answer(s, [signed("tool_a", true), signed("tool_b", true)]),
      answer(s, [signed("tool_b", false), signed("tool_c", true)]),
    ]);
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    const lost = first.status === 409 ? first : second;
    expect(lost.body.error?.code).toBe("approval_already_answered");
    // The loser's approval that nobody else answered is still open: none of its answers was written.
    const stillOpen = first.status === 409 ? "tool_a" : "tool_c";
    expect((await sessionState(s)).pending_approvals.map((x) => x.name)).toEqual([stillOpen]);
  });
});

describe("approvals in a step with other calls", () => {
  it("runs the sibling that needs none at once and continues only when every approval is answered", async () => {
    const [a, b, free] = [uid("a"), uid("b"), uid("free")];
    const s = await setup({
      tools: [recordedTool("send_email", a), recordedTool("delete_repo", b), recordedTool("lookup", free, false)],
    });
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_mail", name: "send_email", input: { amount: 1 } },
            { id: "call_free", name: "lookup", input: { amount: 2 } },
            { id: "call_del", name: "delete_repo", input: { amount: 3 } },
          ],
        },
      },
      { reply: { text: "Done." } },
    ]);
    const paused = (await send(s, { content: "do all" })).body as unknown as TurnView;
    expect(paused.status).toBe("awaiting_approval");
    expect(await deliveries(free)).toHaveLength(1);
    const ids = Object.fromEntries((paused.pending_approvals ?? []).map((x) => [x.tool_call_id, x.approval_id]));
    expect(Object.keys(ids).sort()).toEqual(["call_del", "call_mail"]);

    const one = await answer(s, [{ approval_id: ids.call_mail, approved: true }]);
    expect(one.body.status).toBe("awaiting_approval");
    expect(await deliveries(a)).toEqual([]);
    const two = await answer(s, [{ approval_id: ids.call_del, approved: false }]);
    expect(two.body.status).toBe("completed");
    expect(await deliveries(a)).toHaveLength(1);
    expect(await deliveries(b)).toEqual([]);
    const msgs = await history(s);
    expect(pairingProblems(msgs)).toEqual([]);
    expect(msgs[2]?.parts.slice(0, 3).map((p) => [p.tool_use_id, p.is_error])).toEqual([
      ["call_mail", false],
      ["call_free", false],
      ["call_del", true],
    ]);
    expect(msgs[2]?.parts[2]?.content).toBe("the user declined: no reason given");
    await noRejections(s.model);
  });
});

/** A paused step: send_email and delete_repo need approval, lookup beside them runs at once. */
async function mailFreeDelete(
  tag: string,
): Promise<{ s: Setup; mail: string; del: string; ids: Record<string, string>; open: OpenApproval[] }> {
  const [mail, del] = [uid(`${tag}-mail`), uid(`${tag}-del`)];
  const s = await setup({
    tools: [
      recordedTool("send_email", mail),
      recordedTool("lookup", uid(`${tag}-free`), false),
      recordedTool("delete_repo", del),
    ],
  });
  await script(s.model, [
    {
      reply: {
        tool_calls: [
          { id: `call_${tag}_mail`, name: "send_email", input: { amount: 1 } },
          { id: `call_${tag}_free`, name: "lookup", input: { amount: 2 } },
          { id: `call_${tag}_del`, name: "delete_repo", input: { amount: 3 } },
        ],
      },
    },
    { reply: { text: "Done." } },
  ]);
  const paused = (await send(s, { content: "do all" })).body as unknown as TurnView;
  const open = paused.pending_approvals ?? [];
  const ids = Object.fromEntries(open.map((x) => [x.name, x.approval_id]));
  return { s, mail, del, ids, open };
}

describe("the state of a session paused for approval", () => {
  it("shows the pause: every approval with its answer, and the step's calls with the results the history lacks", async () => {
    const { s, ids } = await mailFreeDelete("pv");
    const declined = await answer(s, [{ approval_id: ids.delete_repo, approved: false, reason: "not today" }]);
    expect(declined.body.status).toBe("awaiting_approval");
    const state = await apiJson<{ pause: unknown; pending_approvals: OpenApproval[] }>(`/v1/sessions/${s.session}`, {
      key: s.key,
    });
    expect(state.body.pending_approvals.map((a) => a.approval_id)).toEqual([ids.send_email]);
    expect(state.body.pause).toMatchObject({
      turn_id: declined.body.turn_id,
      approvals: [
        { approval_id: ids.send_email, tool_call_id: "call_pv_mail", status: "pending", decided_reason: null },
        { approval_id: ids.delete_repo, tool_call_id: "call_pv_del", status: "declined", decided_reason: "not today" },
      ],
      calls: [
        { id: "call_pv_mail", name: "send_email", execution: "http", state: "pending" },
        { id: "call_pv_free", name: "lookup", execution: "http", state: "resolved", is_error: false },
        {
          id: "call_pv_del",
          name: "delete_repo",
          state: "resolved",
          result: "the user declined: not today",
          is_error: true,
        },
      ],
    });
    const pause = state.body.pause as { approvals: OpenApproval[]; calls: Array<Record<string, unknown>> };
    expect(pause.approvals[1]?.signature).toMatch(/\S/);
    expect(pause.calls[0]).not.toHaveProperty("result");
    expect(pause.calls[1]?.result).toEqual(expect.stringContaining("ok"));
  });

  it("has no pause once the turn has finished", async () => {
    const { s, ids } = await mailFreeDelete("pvdone");
    await answer(s, [
      { approval_id: ids.send_email, approved: true },
      { approval_id: ids.delete_repo, approved: false },
    ]);
    const state = await apiJson<{ pause: unknown; status: string }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.status).toBe("idle");
    expect(state.body.pause).toBeNull();
  });
});

describe("approving through POST /chat after another approval of the step was answered elsewhere", () => {
  it("skips the answered approval repeated with its signature (no 409) and resumes the turn", async () => {
    const { s, mail, del, ids, open } = await mailFreeDelete("elsewhere");
    expect((await answer(s, [{ approval_id: ids.send_email, approved: true }])).body.status).toBe("awaiting_approval");
    // What the web client sends after a reload: the approval answered elsewhere as its seed showed it, and its own.
    const part = (name: string, approved: boolean) => {
      const a = open.find((x) => x.name === name) as OpenApproval;
      return {
        type: "dynamic-tool",
        toolName: name,
        toolCallId: a.tool_call_id,
        state: "approval-responded",
        input: a.input,
        approval: { id: a.approval_id, approved, signature: a.signature },
      };
    };
    const res = await api(`/v1/sessions/${s.session}/chat`, {
      method: "POST",
      key: s.key,
      json: {
        id: s.session,
        trigger: "submit-message",
        messages: [
          { id: "msg_elsewhere", role: "assistant", parts: [part("send_email", true), part("delete_repo", false)] },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"type":"text-delta"');
    expect(await deliveries(mail)).toHaveLength(1);
    expect(await deliveries(del)).toEqual([]);
    expect((await sessionState(s)).last_turn.status).toBe("completed");
  });
});

describe("a new user message while approvals are open", () => {
  it("declines them ('the user moved on') in the admission transaction, and the tool never runs", async () => {
    const rec = uid("charge");
    const s = await setup({ tools: [recordedTool("charge_card", rec)] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_moved", name: "charge_card", input: { amount: 5 } }] } },
      { reply: { text: "OK, something else then." } },
    ]);
    const paused = (await send(s, { content: "charge 5" })).body as unknown as TurnView;
    const id = paused.pending_approvals?.[0]?.approval_id as string;
    const next = await send(s, { content: "never mind, tell me a joke" });
    expect(next.body.status).toBe("completed");
    const msgs = await history(s);
    expect(pairingProblems(msgs)).toEqual([]);
    expect(msgs[2]?.parts[0]).toMatchObject({
      tool_use_id: "call_moved",
      is_error: true,
      content: "the user declined: the user moved on",
    });
    expect(msgs[2]?.parts[1]).toEqual({ type: "text", text: "never mind, tell me a joke" });
    expect(await deliveries(rec)).toEqual([]);
    const late = await answer(s, [{ approval_id: id, approved: true }]);
    expect(late.status).toBe(409);
    expect(late.body.error?.code).toBe("approval_already_answered");
    expect(await deliveries(rec)).toEqual([]);
    await noRejections(s.model);
  });
});

describe("a crash after an approval was asked, before the step paused", () => {
  it("closes the approval with the call's synthetic result: nothing stays open, pairing holds", async () => {
    const rec = uid("charge");
    const s = await setup({ tools: [recordedTool("charge_card", rec), slowTool("slow_lookup", 5000)] });
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_cut", name: "charge_card", input: { amount: 4 } },
            { id: "call_slow", name: "slow_lookup", input: {} },
          ],
        },
      },
      { reply: { text: "After the restart." } },
    ]);
    // Streamed: the answer comes back at once while the turn runs on.
    const res = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "charge 4" },
    });
    expect(res.status).toBe(200);
    await res.body?.cancel();
    let state = await sessionState(s);
    for (let i = 0; i < 200 && state.pending_approvals.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
      state = await sessionState(s);
    }
    expect(state.last_turn.status).toBe("running");
    const id = state.pending_approvals[0]?.approval_id as string;
    await abortAllDurableObjects();

    const after = await sessionState(s);
    expect(after.last_turn.status).toBe("interrupted");
    expect(after.pending_approvals).toEqual([]);
    // Recorded too: the approval the restart closed is declined by "recovery".
    const closed = (await events(s)).filter((e) => e.type === "approval_declined");
    expect(closed.map((e) => [e.data.approval_id, e.data.by])).toEqual([[id, "recovery"]]);
    const late = await answer(s, [{ approval_id: id, approved: true }]);
    expect(late.body.error?.code).toBe("approval_already_answered");
    expect((await send(s, { content: "go on" })).body.status).toBe("completed");
    expect(pairingProblems(await history(s))).toEqual([]);
    expect(await deliveries(rec)).toEqual([]);
    await noRejections(s.model);
  });

  it("a client resuming the turn's stream is told the calls recovery closed: denied, or an error output", async () => {
    const s = await setup({
      tools: [recordedTool("charge_card", uid("charge")), slowTool("slow_lookup", 5000), clientTool("ask_user")],
    });
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_rc_charge", name: "charge_card", input: { amount: 4 } },
            { id: "call_rc_slow", name: "slow_lookup", input: {} },
            { id: "call_rc_ask", name: "ask_user", input: {} },
          ],
        },
      },
    ]);
    const res = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "go" },
    });
    await res.body?.cancel();
    for (let i = 0; i < 200 && (await sessionState(s)).pending_approvals.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    await abortAllDurableObjects();
    const chunks = await uiChunks<{ type: string; toolCallId?: string }>(
      await api(`/v1/sessions/${s.session}/stream?after=0`, { key: s.key }),
    );
    const closed = chunks.filter((c) => c.type.startsWith("tool-output"));
    expect(closed.map((c) => [c.type, c.toolCallId])).toEqual([
      ["tool-output-denied", "call_rc_charge"],
      ["tool-output-error", "call_rc_slow"],
      ["tool-output-error", "call_rc_ask"],
    ]);
    expect(chunks.slice(-3).map((c) => c.type)).toEqual(["data-turn", "error", "finish"]);
  });
});

describe("cancelling a turn that awaits approval", () => {
  it("declines the open approval, the tool never runs, and the next message pairs cleanly", async () => {
    const rec = uid("charge");
    const s = await setup({ tools: [recordedTool("charge_card", rec)] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_cancel", name: "charge_card", input: { amount: 6 } }] } },
      { reply: { text: "Fine." } },
    ]);
    const paused = (await send(s, { content: "charge 6" })).body as unknown as TurnView;
    const id = paused.pending_approvals?.[0]?.approval_id as string;
    const cancel = await apiJson<{ status: string }>(`/v1/sessions/${s.session}/cancel`, {
      method: "POST",
      key: s.key,
    });
    expect([cancel.status, cancel.body.status]).toEqual([200, "cancelled"]);
    expect((await sessionState(s)).pending_approvals).toEqual([]);
    const late = await answer(s, [{ approval_id: id, approved: true }]);
    expect(late.body.error?.code).toBe("approval_already_answered");
    expect((await send(s, { content: "something else" })).body.status).toBe("completed");
    const msgs = await history(s);
    expect(pairingProblems(msgs)).toEqual([]);
    expect(msgs[2]?.parts[0]).toMatchObject({ tool_use_id: "call_cancel", is_error: true });
    expect(await deliveries(rec)).toEqual([]);
    await noRejections(s.model);
  });
});

describe("clearing a session whose turn awaits approval", () => {
  it("declines the open approval (by clear) before the paused turn's turn_finished: none is left unresolved", async () => {
    const s = await setup({ tools: [recordedTool("charge_card", uid("charge"))] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_clear", name: "charge_card", input: { amount: 7 } }] } },
    ]);
    const paused = (await send(s, { content: "charge 7" })).body as unknown as TurnView;
    const id = paused.pending_approvals?.[0]?.approval_id as string;
    expect((await apiJson(`/v1/sessions/${s.session}/clear`, { method: "POST", key: s.key })).status).toBe(200);
    const all = await events(s);
    const declined = all.filter((e) => e.type === "approval_declined");
    expect(declined.map((e) => e.data)).toEqual([
      {
        approval_id: id,
        tool_use_id: "call_clear",
        tool: "charge_card",
        by: "clear",
        reason: "the session was cleared",
      },
    ]);
    expect(all.indexOf(declined[0] as (typeof all)[number])).toBeLessThan(
      all.findIndex((e) => e.type === "turn_finished" && e.data.finish_reason === "cleared"),
    );
  });
});

describe("refused answers change nothing", () => {
  async function pausedSession(): Promise<{ s: Setup; open: OpenApproval; rec: string }> {
    const rec = uid("charge");
    const s = await setup({ tools: [recordedTool("charge_card", rec)] });
    await script(s.model, [
      {
        reply: {
          tool_calls: [{ id: `call_${uid("x").replaceAll("-", "_")}`, name: "charge_card", input: { amount: 7 } }],
        },
      },
      { reply: { text: "Charged." } },
    ]);
    const paused = (await send(s, { content: "charge 7" })).body as unknown as TurnView;
    return { s, open: paused.pending_approvals?.[0] as OpenApproval, rec };
  }

  it("an unknown approval id is 404 unknown_approval", async () => {
    const { s } = await pausedSession();
    const before = await snapshot(s);
    const res = await answer(s, [{ approval_id: "apr_forged", approved: true }]);
    expect([res.status, res.body.error?.code]).toEqual([404, "unknown_approval"]);
    expect(await snapshot(s)).toEqual(before);
  });

  it("another session's approval id is 404 here, and that session's approval stays open", async () => {
    const { s: other, open } = await pausedSession();
    const { s } = await pausedSession();
    const res = await apiJson<{ error?: { code: string } }>(`/v1/sessions/${s.session}/tool-approvals`, {
      method: "POST",
      key: s.key,
      json: { approvals: [{ approval_id: open.approval_id, approved: true }] },
    });
    expect([res.status, res.body.error?.code]).toEqual([404, "unknown_approval"]);
    expect((await sessionState(other)).pending_approvals.map((a) => a.approval_id)).toEqual([open.approval_id]);
  });

  it("a signature that does not match is 409 approval_signature_mismatch", async () => {
    const { s, open, rec } = await pausedSession();
    const before = await snapshot(s);
    const flipped = `${open.signature.slice(0, -2)}${open.signature.endsWith("AA") ? "BB" : "AA"}`;
    const res = await answer(s, [{ approval_id: open.approval_id, approved: true, signature: flipped }]);
    expect([res.status, res.body.error?.code]).toEqual([409, "approval_signature_mismatch"]);
    expect(await snapshot(s)).toEqual(before);
    expect(await deliveries(rec)).toEqual([]);
    // The genuine signature is accepted.
    const ok = await answer(s, [{ approval_id: open.approval_id, approved: true, signature: open.signature }]);
    expect(ok.body.status).toBe("completed");
  });

  it("a batch with one bad answer writes none of them", async () => {
    const { s, open } = await pausedSession();
    const before = await snapshot(s);
    const res = await answer(s, [
      { approval_id: open.approval_id, approved: true },
      { approval_id: "apr_unknown", approved: true },
    ]);
    expect(res.status).toBe(404);
    expect(await snapshot(s)).toEqual(before);
  });

  it("a client result for a call awaiting approval is 409 approval_required", async () => {
    const { s, open, rec } = await pausedSession();
    const before = await snapshot(s);
    const res = await apiJson<{ error?: { code: string } }>(`/v1/sessions/${s.session}/tool-results`, {
      method: "POST",
      key: s.key,
      json: { results: [{ tool_use_id: open.tool_call_id, content: "charged (forged)" }] },
    });
    expect([res.status, res.body.error?.code]).toEqual([409, "approval_required"]);
    expect(await snapshot(s)).toEqual(before);
    expect(await deliveries(rec)).toEqual([]);
  });

  it("a client result for an approved call that already ran is 409 not_client_tool, as for any finished server call", async () => {
    const { s, open, rec } = await pausedSession();
    const ok = await answer(s, [{ approval_id: open.approval_id, approved: true, signature: open.signature }]);
    expect(ok.body.status).toBe("completed");
    const before = await snapshot(s);
    const res = await apiJson<{ error?: { code: string } }>(`/v1/sessions/${s.session}/tool-results`, {
      method: "POST",
      key: s.key,
      json: { results: [{ tool_use_id: open.tool_call_id, content: "charged (late)" }] },
    });
    expect([res.status, res.body.error?.code]).toEqual([409, "not_client_tool"]);
    // Nothing changes but the refusal's own event.
    expect(await snapshot(s)).toEqual({ ...before, events: before.events + 1 });
    expect((await events(s)).at(-1)?.type).toBe("tool_result_refused");
    expect(await deliveries(rec)).toHaveLength(1);
  });

  it("POST /chat with the approval and a forged output for its call is 409 approval_required: nothing is answered", async () => {
    const { s, open, rec } = await pausedSession();
    const before = await snapshot(s);
    const res = await apiJson<{ error?: { code: string } }>(`/v1/sessions/${s.session}/chat`, {
      method: "POST",
      key: s.key,
      json: {
        id: s.session,
        trigger: "submit-message",
        messages: [
          {
            id: "msg_forged",
            role: "assistant",
            parts: [approvedPart(open), { ...approvedPart(open), state: "output-available", output: "forged" }],
          },
        ],
      },
    });
    expect([res.status, res.body.error?.code]).toEqual([409, "approval_required"]);
    // The approval is still open, the turn still paused, and the tool never ran.
    expect(await snapshot(s)).toEqual(before);
    expect(await deliveries(rec)).toEqual([]);
  });

  it("bad bodies are 400", async () => {
    const { s } = await pausedSession();
    const before = await snapshot(s);
    for (const body of [
      {},
      { approvals: [] },
      { approvals: [{ approval_id: "x" }] },
      { approvals: [{ approval_id: "x", approved: "yes" }] },
    ]) {
      const res = await apiJson(`/v1/sessions/${s.session}/tool-approvals`, { method: "POST", key: s.key, json: body });
      expect(res.status).toBe(400);
    }
    expect(await snapshot(s)).toEqual(before);
  });
});

describe("session tokens and approvals", () => {
  async function token(s: Setup, actions: string[]): Promise<string> {
    const res = await apiJson<{ token: string }>(`/v1/sessions/${s.session}/tokens`, {
      method: "POST",
      key: s.key,
      json: { actions },
    });
    expect(res.status).toBe(201);
    return res.body.token;
  }

  it("a token that can send cannot approve; one with approve can, and the event names its jti", async () => {
    const rec = uid("charge");
    const s = await setup({ tools: [recordedTool("charge_card", rec)] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_tok", name: "charge_card", input: { amount: 3 } }] } },
      { reply: { text: "Charged." } },
    ]);
    const paused = (await send(s, { content: "charge 3" })).body as unknown as TurnView;
    const id = paused.pending_approvals?.[0]?.approval_id as string;
    const sendOnly = await answer(s, [{ approval_id: id, approved: true }], await token(s, ["send", "stream", "read"]));
    expect([sendOnly.status, sendOnly.body.error?.code]).toEqual([403, "insufficient_scope"]);
    expect(await deliveries(rec)).toEqual([]);

    const approver = await token(s, ["approve"]);
    const ok = await answer(s, [{ approval_id: id, approved: true }], approver);
    expect(ok.status).toBe(200);
    expect(await deliveries(rec)).toHaveLength(1);
    const jti = JSON.parse(atob((approver.slice(4).split(".")[0] as string).replaceAll("-", "+").replaceAll("_", "/")))
      .jti as string;
    const granted = (await events(s)).find((e) => e.type === "approval_granted");
    expect(granted?.data.by).toBe(`token:${jti}`);
  });
});

describe("a session deleted and created again under the same id", () => {
  it("signs its approvals with its own stored key: after a restart, /chat's signed approval is accepted", async () => {
    const rec = uid("charge");
    const s = await setup({ tools: [recordedTool("charge_card", rec)] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_old_life", name: "charge_card", input: { amount: 1 } }] } },
      { reply: { tool_calls: [{ id: "call_new_life", name: "charge_card", input: { amount: 2 } }] } },
      { reply: { text: "Charged." } },
    ]);
    expect((await send(s, { content: "charge 1" })).body.status).toBe("awaiting_approval");
    await recreate(s);
    const paused = (await send(s, { content: "charge 2" })).body as unknown as TurnView;
    const open = paused.pending_approvals?.[0] as OpenApproval;
    expect(open.tool_call_id).toBe("call_new_life");
    await abortAllDurableObjects();
    const res = await api(`/v1/sessions/${s.session}/chat`, {
      method: "POST",
      key: s.key,
      json: {
        id: s.session,
        trigger: "submit-message",
        messages: [{ id: "msg_nl", role: "assistant", parts: [approvedPart(open)] }],
      },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"type":"tool-output-available"');
    expect(await deliveries(rec)).toHaveLength(1);
  });
});

describe("approving through POST /chat with a session token", () => {
  it("needs approve as well as send; with both, the answer resumes the turn", async () => {
    const rec = uid("charge");
    const s = await setup({ tools: [recordedTool("charge_card", rec)] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_chat_tok", name: "charge_card", input: { amount: 9 } }] } },
      { reply: { text: "Charged." } },
    ]);
    const paused = (await send(s, { content: "charge 9" })).body as unknown as TurnView;
    const open = paused.pending_approvals?.[0] as OpenApproval;
    const mint = async (actions: string[]) =>
      (
        await apiJson<{ token: string }>(`/v1/sessions/${s.session}/tokens`, {
          method: "POST",
          key: s.key,
          json: { actions },
        })
      ).body.token;
    // The body useChat sends after addToolApprovalResponse (shape checked against the ai package in the e2e test).
    const body = {
      id: s.session,
      trigger: "submit-message",
      messages: [
        {
          id: "msg_a",
          role: "assistant",
          parts: [approvedPart(open)],
        },
      ],
    };
    const denied = await apiJson<{ error?: { code: string } }>(`/v1/sessions/${s.session}/chat`, {
      method: "POST",
      key: await mint(["send", "stream", "read"]),
      json: body,
    });
    expect([denied.status, denied.body.error?.code]).toEqual([403, "insufficient_scope"]);
    expect((await sessionState(s)).pending_approvals).toHaveLength(1);

    const ok = await api(`/v1/sessions/${s.session}/chat`, {
      method: "POST",
      key: await mint(["send", "approve"]),
      json: body,
    });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('"type":"tool-output-available"');
    expect(await deliveries(rec)).toHaveLength(1);
  });
});

describe("approving through POST /chat after a server tool of the same turn", () => {
  it("resumes the turn although the body repeats the server tool's output, which is no news", async () => {
    const lookup = uid("lookup");
    const charge = uid("charge");
    const s = await setup({ tools: [recordedTool("lookup", lookup, false), recordedTool("charge_card", charge)] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_mixed_lookup", name: "lookup", input: { amount: 1 } }] } },
      { reply: { tool_calls: [{ id: "call_mixed_charge", name: "charge_card", input: { amount: 9 } }] } },
      { reply: { text: "Charged." } },
    ]);
    const paused = (await send(s, { content: "look up, then charge 9" })).body as unknown as TurnView;
    const open = paused.pending_approvals?.[0] as OpenApproval;
    expect(open.tool_call_id).toBe("call_mixed_charge");
    // What useChat sends after addToolApprovalResponse: the turn's message, the server tool's output included.
    const res = await api(`/v1/sessions/${s.session}/chat`, {
      method: "POST",
      key: s.key,
      json: {
        id: s.session,
        trigger: "submit-message",
        messages: [
          {
            id: "msg_mixed",
            role: "assistant",
            parts: [
              {
                type: "dynamic-tool",
                toolName: "lookup",
                toolCallId: "call_mixed_lookup",
                state: "output-available",
                input: { amount: 1 },
                output: "ok",
              },
              approvedPart(open),
            ],
          },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"type":"text-delta"');
    expect(await deliveries(charge)).toHaveLength(1);
    expect(await deliveries(lookup)).toHaveLength(1);
    expect((await sessionState(s)).last_turn.status).toBe("completed");
  });
});

describe("approving through POST /chat beside a client call of the same step", () => {
  /** A turn paused on charge_card's approval (call_<tag>_charge) beside client tool ask_user (call_<tag>_ask). */
  async function chargeBesideAsk(tag: string) {
    const charge = uid("charge");
    const s = await setup({
      tools: [
        recordedTool("charge_card", charge),
        {
          name: "ask_user",
          description: "client tool",
          input_schema: { type: "object", properties: { q: { type: "string" } } },
          execution: { type: "client" },
        },
      ],
    });
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: `call_${tag}_charge`, name: "charge_card", input: { amount: 9 } },
            { id: `call_${tag}_ask`, name: "ask_user", input: { q: "which card?" } },
          ],
        },
      },
      { reply: { text: "Charged the card you picked." } },
    ]);
    const paused = (await send(s, { content: "charge 9 to a card I pick" })).body as unknown as TurnView;
    const open = paused.pending_approvals?.[0] as OpenApproval;
    /** useChat's part for the ask_user call. */
    const ask = (state: string, extra: Record<string, unknown> = {}) => ({
      type: "dynamic-tool",
      toolName: "ask_user",
      toolCallId: `call_${tag}_ask`,
      state,
      input: { q: "which card?" },
      ...extra,
    });
    const chat = (parts: unknown[], key = s.key) =>
      api(`/v1/sessions/${s.session}/chat`, {
        method: "POST",
        key,
        json: { id: s.session, trigger: "submit-message", messages: [{ id: `msg_${tag}`, role: "assistant", parts }] },
      });
    return { s, charge, open, ask, chat };
  }

  /** The body resumed the turn: its stream carries the answer, the charge ran once and the turn completed whole. */
  async function expectResumedOnce(s: Setup, charge: string, res: Response): Promise<void> {
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"type":"text-delta"');
    expect(await deliveries(charge)).toHaveLength(1);
    expect((await sessionState(s)).last_turn.status).toBe("completed");
    expect(pairingProblems(await history(s))).toEqual([]);
  }

  it("approved first, the client output sent later (repeating the approval) resumes the turn", async () => {
    const { s, charge, open, ask, chat } = await chargeBesideAsk("cc");
    // useChat sends the approval as soon as it is given, the client call still open: nothing to resume yet.
    const first = await chat([approvedPart(open), ask("input-available")]);
    expect(first.status).toBe(200);
    expect((await sessionState(s)).last_turn.status).toBe("awaiting_tool_results");
    // Then the client's output, in the same message, the answered approval repeated beside it.
    await expectResumedOnce(
      s,
      charge,
      await chat([approvedPart(open), ask("output-available", { output: "the visa" })]),
    );
  });

  it("a session token without approve delivers the client output beside an approval answered elsewhere", async () => {
    const { s, charge, open, ask, chat } = await chargeBesideAsk("tok");
    expect((await answer(s, [{ approval_id: open.approval_id, approved: true }])).status).toBe(200);
    const minted = await apiJson<{ token: string }>(`/v1/sessions/${s.session}/tokens`, {
      method: "POST",
      key: s.key,
      json: { actions: ["send", "stream", "read"] },
    });
    // useChat repeats the answered approval (with its signature) beside the output: only the output is news.
    await expectResumedOnce(
      s,
      charge,
      await chat([approvedPart(open), ask("output-available", { output: "the visa" })], minted.body.token),
    );
  });

  it("the approval and the client output in one body resume the turn", async () => {
    const { s, charge, open, ask, chat } = await chargeBesideAsk("one");
    await expectResumedOnce(
      s,
      charge,
      await chat([approvedPart(open), ask("output-available", { output: "the visa" })]),
    );
  });

  it("the approval beside two outputs for one client call is 400, and neither is written", async () => {
    const { s, charge, open, ask, chat } = await chargeBesideAsk("dup");
    const before = await snapshot(s);
    const res = await chat([
      approvedPart(open),
      ask("output-available", { output: "the visa" }),
      ask("output-available", { output: "the amex" }),
    ]);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_request");
    expect(await snapshot(s)).toEqual(before);
    expect(await deliveries(charge)).toEqual([]);
  });
});

describe("cancelling a turn while a sibling of an approval call runs", () => {
  it("declines the step's approval with the turn: nothing is left open to decide, and the call never runs", async () => {
    const { s, charge } = await chargeBesideSlow("cx");
    const turn = send(s, { content: "check, then charge 9" });
    let open: OpenApproval[] = [];
    for (let i = 0; i < 200 && open.length === 0; i++) {
      open = (await sessionState(s)).pending_approvals;
      if (open.length === 0) await new Promise((r) => setTimeout(r, 10));
    }
    expect(open.map((a) => a.tool_call_id)).toEqual(["call_cx_charge"]);
    expect((await apiJson(`/v1/sessions/${s.session}/cancel`, { method: "POST", key: s.key })).status).toBe(200);
    expect((await turn).body.status).toBe("cancelled");
    expect((await sessionState(s)).pending_approvals).toEqual([]);
    const declined = (await events(s)).filter((e) => e.type === "approval_declined");
    expect(declined.map((e) => e.data.tool_use_id)).toEqual(["call_cx_charge"]);
    const msgs = await history(s);
    expect(pairingProblems(msgs)).toEqual([]);
    expect(await deliveries(charge)).toHaveLength(0);
  });
});

describe("the stream of a turn cancelled while a sibling of an approval call runs", () => {
  it("closes every call it showed: the approval's call denied, the sibling's cut result an error", async () => {
    const { s } = await chargeBesideSlow("cs");
    const streaming = api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "check, then charge 9" },
    });
    for (let i = 0; i < 200 && (await sessionState(s)).pending_approvals.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect((await apiJson(`/v1/sessions/${s.session}/cancel`, { method: "POST", key: s.key })).status).toBe(200);
    const chunks = await uiChunks<{ type: string; toolCallId?: string; errorText?: string }>(await streaming);
    expect(chunks.find((c) => c.type === "tool-output-denied")?.toolCallId).toBe("call_cs_charge");
    const cut = chunks.find((c) => c.type === "tool-output-error" && c.toolCallId === "call_cs_slow");
    expect(cut?.errorText).toContain("the turn was cancelled");
  });
});

describe("the stream of a turn whose approval is declined while a sibling of its call runs", () => {
  it("tells the approval's answer and the denied call before the turn goes on", async () => {
    const hold = uid("slow");
    const { s } = await chargeBesideSlow("dm", heldTool("slow_check", hold));
    await script(s.model, [{ reply: { text: "Not charging." } }]);
    const streaming = api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "check, then charge 9" },
    });
    let open: OpenApproval[] = [];
    for (let i = 0; i < 200 && open.length === 0; i++) {
      open = (await sessionState(s)).pending_approvals;
      if (open.length === 0) await new Promise((r) => setTimeout(r, 10));
    }
    const id = open[0]?.approval_id as string;
    const declined = answer(s, [{ approval_id: id, approved: false, reason: "no" }]);
    expect((await releasedOnceAnswered(s, id, hold, declined)).status).toBe(200);
    const chunks = await uiChunks<{ type: string; toolCallId?: string; approvalId?: string; approved?: boolean }>(
      await streaming,
    );
    expect(chunks.find((c) => c.type === "tool-approval-response")).toMatchObject({ approvalId: id, approved: false });
    const denied = chunks.findIndex((c) => c.type === "tool-output-denied");
    expect(chunks[denied]?.toolCallId).toBe("call_dm_charge");
    expect(denied).toBeLessThan(chunks.findIndex((c) => c.type === "text-delta"));
  });
});

describe("the stream of a step that pauses after one of its approvals was declined while a sibling ran", () => {
  it("tells that approval's denied call before it ends at the pause", async () => {
    const hold = uid("slow");
    const s = await setup({
      tools: [
        recordedTool("charge_card", uid("charge")),
        recordedTool("refund", uid("refund")),
        heldTool("slow_check", hold),
      ],
    });
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_dp_charge", name: "charge_card", input: { amount: 9 } },
            { id: "call_dp_refund", name: "refund", input: { amount: 9 } },
            { id: "call_dp_slow", name: "slow_check", input: { amount: 9 } },
          ],
        },
      },
    ]);
    const streaming = api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "check, then charge and refund" },
    });
    let open: OpenApproval[] = [];
    for (let i = 0; i < 200 && open.length < 2; i++) {
      open = (await sessionState(s)).pending_approvals;
      if (open.length < 2) await new Promise((r) => setTimeout(r, 10));
    }
    const charge = open.find((a) => a.name === "charge_card") as OpenApproval;
    const declined = answer(s, [{ approval_id: charge.approval_id, approved: false }]);
    expect((await releasedOnceAnswered(s, charge.approval_id, hold, declined)).status).toBe(200);
    const chunks = await uiChunks<{ type: string; toolCallId?: string }>(await streaming);
    expect(chunks.filter((c) => c.type === "tool-output-denied").map((c) => c.toolCallId)).toEqual(["call_dp_charge"]);
    expect((await sessionState(s)).last_turn.status).toBe("awaiting_approval");
  });
});

describe("the stream of a turn resumed after one of its approvals was declined while a sibling ran", () => {
  it("tells only the answers given during the pause: the paused segment told the earlier one", async () => {
    const hold = uid("slow");
    const s = await setup({
      tools: [
        recordedTool("charge_card", uid("charge")),
        recordedTool("refund", uid("refund")),
        heldTool("slow_check", hold),
      ],
    });
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_ra_charge", name: "charge_card", input: { amount: 9 } },
            { id: "call_ra_refund", name: "refund", input: { amount: 9 } },
            { id: "call_ra_slow", name: "slow_check", input: { amount: 9 } },
          ],
        },
      },
      { reply: { text: "Refunded, not charged." } },
    ]);
    const first = api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "check, then charge and refund" },
    });
    let open: OpenApproval[] = [];
    for (let i = 0; i < 200 && open.length < 2; i++) {
      open = (await sessionState(s)).pending_approvals;
      if (open.length < 2) await new Promise((r) => setTimeout(r, 10));
    }
    const charge = open.find((a) => a.name === "charge_card") as OpenApproval;
    const refund = open.find((a) => a.name === "refund") as OpenApproval;
    const declined = answer(s, [{ approval_id: charge.approval_id, approved: false }]);
    expect((await releasedOnceAnswered(s, charge.approval_id, hold, declined)).status).toBe(200);
    await (await first).text();
    const resumed = await api(`/v1/sessions/${s.session}/tool-approvals`, {
      method: "POST",
      key: s.key,
      json: { approvals: [{ approval_id: refund.approval_id, approved: true }] },
    });
    const chunks = await uiChunks<{ type: string; approvalId?: string; toolCallId?: string }>(resumed);
    expect(chunks.filter((c) => c.type === "tool-approval-response").map((c) => c.approvalId)).toEqual([
      refund.approval_id,
    ]);
    expect(chunks.filter((c) => c.type === "tool-output-denied")).toEqual([]);
  });
});

describe("approval config", () => {
  it("refuses requires_approval on a client tool and a malformed MCP require_approval", async () => {
    const base = { model: { provider: "anthropic", name: "m" } };
    const client = await apiJson(`/v1/agents/${uid("agent")}`, {
      method: "PUT",
      key: ADMIN,
      json: {
        ...base,
        tools: [
          { name: "c", input_schema: { type: "object" }, execution: { type: "client" }, requires_approval: true },
        ],
      },
    });
    expect(client.status).toBe(400);
    const mcp = await apiJson(`/v1/agents/${uid("agent")}`, {
      method: "PUT",
      key: ADMIN,
      json: {
        ...base,
        mcp_servers: [{ name: "s", url: "https://mcp.example.com/mcp", require_approval: "sometimes" }],
      },
    });
    expect(mcp.status).toBe(400);
    const ok = await apiJson<{ mcp_servers: unknown[] }>(`/v1/agents/${uid("agent")}`, {
      method: "PUT",
      key: ADMIN,
      json: {
        ...base,
        approval_ttl_s: 3600,
        mcp_servers: [{ name: "s", url: "https://mcp.example.com/mcp", require_approval: { tools: ["delete_repo"] } }],
      },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.mcp_servers[0]).toMatchObject({ require_approval: { tools: ["delete_repo"] } });
  });
});

describe("approval_ttl_s", () => {
  it("an expired approval is declined by the alarm with that reason, and the turn continues", async () => {
    const rec = uid("charge");
    const s = await setup({ tools: [recordedTool("charge_card", rec)], approval_ttl_s: 60 });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_ttl", name: "charge_card", input: { amount: 8 } }] } },
      { reply: { text: "The approval expired." } },
    ]);
    const paused = (await send(s, { content: "charge 8" })).body as unknown as TurnView;
    expect(paused.status).toBe("awaiting_approval");
    const tenant = await tenantOf(s);
    const stub = env.SESSION.getByName(`${tenant}:${s.session}`);
    // The clock, fast-forwarded: the expiry job is due now.
    const alarm = await runInDurableObject(stub, (_i, state) => {
      state.storage.sql.exec("UPDATE jobs SET due_at = 0 WHERE kind = 'approval'");
      return state.storage.getAlarm();
    });
    expect(alarm).not.toBeNull();
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await lastTurnAtRest(s)).toBe("completed");
    const msgs = await history(s);
    expect(pairingProblems(msgs)).toEqual([]);
    expect(msgs[2]?.parts[0]).toMatchObject({ is_error: true, content: "the user declined: the approval expired" });
    expect(await deliveries(rec)).toEqual([]);
    expect((await events(s)).find((e) => e.type === "approval_declined")?.data.by).toBe("ttl");
    await noRejections(s.model);
  });
});

describe("an approval's expiry and the session's streams", () => {
  it("takes none of the MAX_SUBSCRIBERS stream places: the oldest of a client's open streams is not dropped", async () => {
    const rec = uid("charge");
    const s = await setup({ tools: [recordedTool("charge_card", rec)], approval_ttl_s: 60 });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_ttl_streams", name: "charge_card", input: { amount: 8 } }] } },
      { reply: { text: "The approval expired." } },
    ]);
    expect(((await send(s, { content: "charge 8" })).body as unknown as TurnView).status).toBe("awaiting_approval");
    const stub = env.SESSION.getByName(`${await tenantOf(s)}:${s.session}`);
    const oldest = await runInDurableObject(stub, async (instance: Session, state) => {
      // A client's streams, every place taken: replays of the paused turn, not read yet.
      const readers = await fillStreamPlaces(instance);
      state.storage.sql.exec("UPDATE jobs SET due_at = 0 WHERE kind = 'approval'");
      await instance.alarm();
      const [first] = readers as [ReadableStreamDefaultReader<Uint8Array>];
      return readRest(first);
    });
    expect(oldest).toContain("[DONE]");
    expect(await lastTurnAtRest(s)).toBe("completed");
  });
});

async function tenantOf(s: Setup): Promise<string> {
  const row = await env.DB.prepare("SELECT tenant FROM sessions WHERE id = ?")
    .bind(s.session)
    .first<{ tenant: string }>();
  return row?.tenant as string;
}

describe("a webhook run that reaches an approval", () => {
  it("becomes awaiting_approval, sends a signed run.awaiting_approval callback, and completes once approved", async () => {
    const rec = uid("charge");
    const hook = uid("hook");
    const s = await runSetup(undefined, { tools: [recordedTool("charge_card", rec)] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_run", name: "charge_card", input: { amount: 99 } }] } },
      { reply: { text: "Charged 99." } },
    ]);
    const res = await signedRun(s, { input: "charge 99", callback_url: `${env.MOCK_URL}/_callback/${hook}` });
    expect(res.status).toBe(202);
    const { run_id, session_id } = (await res.json()) as { run_id: string; session_id: string };
    const waiting = await waitRun(s, run_id, (r) => r.status === "awaiting_approval");
    const approvals = (waiting as unknown as { approvals: OpenApproval[] }).approvals;
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toMatchObject({ tool_call_id: "call_run", name: "charge_card", input: { amount: 99 } });

    // The notice: signed with the agent's secret, one per pause, carrying what a person must answer.
    let notices = await deliveries(hook);
    for (let i = 0; i < 200 && notices.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
      notices = await deliveries(hook);
    }
    expect(notices).toHaveLength(1);
    const notice = notices[0] as (typeof notices)[number];
    const { Webhook } = await import("standardwebhooks");
    const payload = new Webhook(s.secrets[0] as string).verify(notice.body, notice.headers) as {
      type: string;
      data: { run_id: string; status: string; approvals: OpenApproval[] };
    };
    expect(payload.type).toBe("run.awaiting_approval");
    expect(payload.data).toMatchObject({ run_id, status: "awaiting_approval" });
    expect(payload.data.approvals.map((a) => [a.approval_id, a.name, a.input])).toEqual([
      [approvals[0]?.approval_id, "charge_card", { amount: 99 }],
    ]);
    expect(await deliveries(rec)).toEqual([]);

    const ok = await apiJson<TurnView>(`/v1/sessions/${session_id}/tool-approvals`, {
      method: "POST",
      key: s.key,
      json: { approvals: [{ approval_id: approvals[0]?.approval_id, approved: true }] },
    });
    expect(ok.status).toBe(200);
    const done = await waitRun(s, run_id, (r) => r.status === "completed" || r.status === "failed");
    expect(done.status).toBe("completed");
    expect(done.result?.output).toBe("Charged 99.");
    expect(await deliveries(rec)).toHaveLength(1);
    let all = await deliveries(hook);
    for (let i = 0; i < 200 && all.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 25));
      all = await deliveries(hook);
    }
    const types = all.map((d) => (JSON.parse(d.body) as { type: string }).type);
    expect(types).toEqual(["run.awaiting_approval", "run.completed"]);
    expect(all[0]?.headers["webhook-id"]).not.toBe(all[1]?.headers["webhook-id"]);
    expect((await getRun(s, run_id)).status).toBe("completed");
    await noRejections(s.model);
  });
});

describe("an approval of a call with $tool references", () => {
  it("shows the person the resolved arguments beside the references as written", async () => {
    const charge = uid("charge-ref");
    const s = await setup({ tools: [slowTool("quote_price", 0), recordedTool("charge_card", charge)] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_ref_quote", name: "quote_price", input: { amount: 42 } }] } },
      {
        reply: {
          tool_calls: [
            {
              id: "call_ref_charge",
              name: "charge_card",
              input: { amount: { $tool: "call_ref_quote", $path: "echo.input.amount" } },
            },
          ],
        },
      },
      { reply: { text: "Charged." } },
    ]);
    const paused = await send(s, { content: "quote, then charge that" });
    expect(paused.body.status).toBe("awaiting_approval");
    const state = await apiJson<{ pending_approvals: Array<OpenApproval & { resolved_input?: unknown }> }>(
      `/v1/sessions/${s.session}`,
      { key: s.key },
    );
    expect(state.body.pending_approvals).toHaveLength(1);
    expect(state.body.pending_approvals[0]).toMatchObject({
      tool_call_id: "call_ref_charge",
      input: { amount: { $tool: "call_ref_quote", $path: "echo.input.amount" } },
      resolved_input: { amount: 42 },
    });
  });
});

describe("the stream's approval request of a call with $tool references", () => {
  it("carries the arguments the call runs with, so the prompt shows the values and not the references", async () => {
    const charge = uid("charge-ref-stream");
    const s = await setup({ tools: [slowTool("quote_price", 0), recordedTool("charge_card", charge)] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_refs_quote", name: "quote_price", input: { amount: 4200 } }] } },
      {
        reply: {
          tool_calls: [
            {
              id: "call_refs_charge",
              name: "charge_card",
              input: { amount: { $tool: "call_refs_quote", $path: "echo.input.amount" } },
            },
          ],
        },
      },
    ]);
    expect((await send(s, { content: "quote, then charge that" })).body.status).toBe("awaiting_approval");
    const chunks = await uiChunks<{ type: string; toolCallId?: string; approvalDescriptor?: unknown }>(
      await api(`/v1/sessions/${s.session}/stream?after=0`, { key: s.key }),
    );
    const asked = chunks.find((c) => c.type === "tool-approval-request");
    expect(asked).toMatchObject({
      toolCallId: "call_refs_charge",
      approvalDescriptor: { tool_name: "charge_card", resolved_input: { amount: 4200 } },
    });
  });
});

describe("an approval's resolved_input of a large referenced result", () => {
  it("is kept within 64 KiB (cut, with a marker): 20 calls citing a 240 KB result store no 20 copies of it", async () => {
    const charge = uid("charge-big");
    const big = {
      name: "fetch_big",
      description: "answers 240 KB",
      input_schema: { type: "object", properties: { amount: { type: "number" } } },
      execution: { type: "http", url: `${env.MOCK_URL}/_tool?bytes=240000` },
    };
    const note = {
      ...recordedTool("note_card", charge),
      input_schema: { type: "object", properties: { note: { type: "string" } } },
    };
    const s = await setup({ tools: [big, note] });
    const calls = Array.from({ length: 20 }, (_, i) => ({
      id: `call_big_note_${i}`,
      name: "note_card",
      input: { note: { $tool: "call_big_fetch" } },
    }));
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_big_fetch", name: "fetch_big", input: { amount: 1 } }] } },
      { reply: { tool_calls: calls } },
    ]);
    expect((await send(s, { content: "fetch, then charge" })).body.status).toBe("awaiting_approval");
    const state = await apiJson<{ pending_approvals: Array<{ resolved_input?: unknown }> }>(
      `/v1/sessions/${s.session}`,
      { key: s.key },
    );
    expect(state.body.pending_approvals).toHaveLength(20);
    for (const a of state.body.pending_approvals) {
      const size = JSON.stringify(a.resolved_input).length;
      expect(size).toBeLessThanOrEqual(64 * 1024);
      expect(JSON.stringify(a.resolved_input)).toContain("truncated");
    }
  });
});
