// Answers to approvals whose approval_ttl_s ran out (src/session/approval-answers.ts, its checkAnswers):
// the alarm that expires them may run late, so an answer that comes after expires_at but before the alarm expires
// the approval itself, as the alarm would have (declined by `ttl`, the turn resumed), and is refused with 409
// approval_expired on every route that answers approvals; an answer after the alarm is refused with the same code.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  api,
  apiJson,
  approvedPart,
  clientTool,
  events,
  history,
  lastTurnAtRest,
  pairingProblems,
  recordedTool,
  type Setup,
  script,
  send,
  sessionStub,
  setup,
  uid,
} from "../helpers";
import { deliveries, runSetup, runStub, signedRun, waitRun } from "../runs-helpers";

interface OpenApproval {
  approval_id: string;
  tool_call_id: string;
  input: Record<string, unknown>;
  signature: string;
}

const EXPIRED_RESULT = "the user declined: the approval expired";

/**
 * A session with approval_ttl_s 60 paused on charge_card's approval (call `call_<tag>`), beside client tool
 * ask_user's call `call_<tag>_ask` when `ask`; the model's next answer is scripted.
 */
async function pausedWithTtl(tag: string, ask = false): Promise<{ s: Setup; rec: string; open: OpenApproval }> {
  const rec = uid("charge");
  const tools = [recordedTool("charge_card", rec), ...(ask ? [clientTool("ask_user")] : [])];
  const s = await setup({ tools, approval_ttl_s: 60 });
  const asked = ask ? [{ id: `call_${tag}_ask`, name: "ask_user", input: { q: "which card?" } }] : [];
  await script(s.model, [
    { reply: { tool_calls: [{ id: `call_${tag}`, name: "charge_card", input: { amount: 8 } }, ...asked] } },
    { reply: { text: "The approval expired." } },
  ]);
  const paused = await send(s, { content: "charge 8" });
  expect(paused.body.status).toBe("awaiting_approval");
  const open = (paused.body as unknown as { pending_approvals: OpenApproval[] }).pending_approvals[0] as OpenApproval;
  return { s, rec, open };
}

/** The clock past the approvals' expires_at, without running the alarm whose job would expire them. */
function lapse(stub: DurableObjectStub): Promise<void> {
  return runInDurableObject(stub, (_i, state) => {
    state.storage.sql.exec("UPDATE approvals SET expires_at = ? WHERE status = 'pending'", Date.now() - 1000);
  });
}

/** The expiry, as the alarm makes it: declined by ttl, the tool never run, the turn gone on with the decline. */
async function expectExpiredAndResumed(s: Setup, rec: string): Promise<void> {
  expect(await lastTurnAtRest(s)).toBe("completed");
  expect(await deliveries(rec)).toEqual([]);
  const declined = (await events(s)).filter((e) => e.type === "approval_declined");
  expect(declined.map((e) => e.data.by)).toEqual(["ttl"]);
  const msgs = await history(s);
  expect(pairingProblems(msgs)).toEqual([]);
  expect(msgs[2]?.parts[0]).toMatchObject({ is_error: true, content: EXPIRED_RESULT });
  expect(msgs[3]?.parts[0]).toMatchObject({ type: "text", text: "The approval expired." });
}

function approve(s: Setup, approvalId: string) {
  return apiJson<{ error?: { code: string } }>(`/v1/sessions/${s.session}/tool-approvals`, {
    method: "POST",
    key: s.key,
    json: { approvals: [{ approval_id: approvalId, approved: true }] },
  });
}

/** A useChat body of the assistant message's `parts`. */
function chat(s: Setup, parts: unknown[]): Promise<Response> {
  return api(`/v1/sessions/${s.session}/chat`, {
    method: "POST",
    key: s.key,
    json: { id: s.session, trigger: "submit-message", messages: [{ id: uid("msg"), role: "assistant", parts }] },
  });
}

describe("POST /tool-approvals for an approval past its expires_at, its alarm not run yet", () => {
  it("is 409 approval_expired: the approval is declined by ttl, the tool never runs, and the turn goes on", async () => {
    const { s, rec, open } = await pausedWithTtl("lapsed_api");
    await lapse(await sessionStub(s));
    const res = await approve(s, open.approval_id);
    expect(res.status).toBe(409);
    expect(res.body.error?.code).toBe("approval_expired");
    await expectExpiredAndResumed(s, rec);
  });
});

describe("POST /tool-approvals for an approval the alarm already expired", () => {
  it("is 409 approval_expired, not approval_already_answered", async () => {
    const { s, open } = await pausedWithTtl("expired_api");
    const stub = await sessionStub(s);
    await runInDurableObject(stub, (_i, state) => {
      state.storage.sql.exec("UPDATE jobs SET due_at = 0 WHERE kind = 'approval'");
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await lastTurnAtRest(s)).toBe("completed");
    const res = await approve(s, open.approval_id);
    expect(res.status).toBe(409);
    expect(res.body.error?.code).toBe("approval_expired");
  });
});

describe("POST /chat approving an approval past its expires_at, its alarm not run yet", () => {
  it("is 409 approval_expired: the approval is declined by ttl, the tool never runs, and the turn goes on", async () => {
    const { s, rec, open } = await pausedWithTtl("lapsed_chat");
    await lapse(await sessionStub(s));
    const res = await chat(s, [approvedPart(open)]);
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("approval_expired");
    await expectExpiredAndResumed(s, rec);
  });

  it("beside the output of a client call of the step, takes the output: the turn goes on, the tool never runs", async () => {
    const { s, rec, open } = await pausedWithTtl("lapsed_ask", true);
    await lapse(await sessionStub(s));
    const res = await chat(s, [
      approvedPart(open),
      {
        type: "dynamic-tool",
        toolName: "ask_user",
        toolCallId: "call_lapsed_ask_ask",
        state: "output-available",
        input: { q: "which card?" },
        output: "the visa",
      },
    ]);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"type":"text-delta"');
    expect(await lastTurnAtRest(s)).toBe("completed");
    expect(await deliveries(rec)).toEqual([]);
    const results = (await history(s))[2]?.parts;
    expect(results).toMatchObject([
      { is_error: true, content: EXPIRED_RESULT },
      { tool_use_id: "call_lapsed_ask_ask", content: "the visa" },
    ]);
  });
});

describe("POST /chat approving an expired approval beside outputs of an earlier step", () => {
  it("is 409 approval_expired, not late_result: the approval is declined by ttl, the tool never runs, and the turn goes on", async () => {
    const rec = uid("charge");
    const s = await setup({ tools: [recordedTool("charge_card", rec), clientTool("ask_user")], approval_ttl_s: 60 });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_repeat_ask", name: "ask_user", input: { q: "which card?" } }] } },
      { reply: { tool_calls: [{ id: "call_repeat_charge", name: "charge_card", input: { amount: 8 } }] } },
      { reply: { text: "The approval expired." } },
    ]);
    expect((await send(s, { content: "charge 8" })).body.status).toBe("awaiting_tool_results");
    const askPart = {
      type: "dynamic-tool",
      toolName: "ask_user",
      toolCallId: "call_repeat_ask",
      state: "output-available",
      input: { q: "which card?" },
      output: "the visa",
    };
    const answered = await chat(s, [askPart]);
    expect(answered.status).toBe(200);
    await answered.text();
    const state = await apiJson<{ pending_approvals: OpenApproval[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    const open = state.body.pending_approvals[0] as OpenApproval;
    expect(open.tool_call_id).toBe("call_repeat_charge");
    await lapse(await sessionStub(s));
    // useChat's body repeats the earlier step's output, already answered, before the approval.
    const res = await chat(s, [askPart, { type: "step-start" }, approvedPart(open)]);
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("approval_expired");
    expect(await lastTurnAtRest(s)).toBe("completed");
    expect(await deliveries(rec)).toEqual([]);
    const declined = (await events(s)).filter((e) => e.type === "approval_declined");
    expect(declined.map((e) => e.data.by)).toEqual(["ttl"]);
  });
});

describe("POST /v1/runs/{id}/approvals for an approval past its expires_at, its alarm not run yet", () => {
  it("is 409 approval_expired: the approval is declined, the tool never runs, and the run completes", async () => {
    const rec = uid("charge");
    const s = await runSetup(undefined, { tools: [recordedTool("charge_card", rec)], approval_ttl_s: 60 });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_lapsed_run", name: "charge_card", input: { amount: 8 } }] } },
      { reply: { text: "The approval expired." } },
    ]);
    const started = await signedRun(s, { input: "charge 8" });
    expect(started.status).toBe(202);
    const { run_id, session_id } = (await started.json()) as { run_id: string; session_id: string };
    const waiting = await waitRun(s, run_id, (r) => r.status === "awaiting_approval");
    const approvalId = (waiting as unknown as { approvals: OpenApproval[] }).approvals[0]?.approval_id;
    await lapse(runStub(s, session_id));
    const res = await apiJson<{ error?: { code: string } }>(`/v1/runs/${run_id}/approvals`, {
      method: "POST",
      key: s.key,
      json: { approvals: [{ approval_id: approvalId, approved: true }] },
    });
    expect(res.status).toBe(409);
    expect(res.body.error?.code).toBe("approval_expired");
    const done = await waitRun(s, run_id, (r) => r.status !== "awaiting_approval" && r.status !== "running");
    expect(done.status).toBe("completed");
    expect(done.result?.output).toBe("The approval expired.");
    expect(await deliveries(rec)).toEqual([]);
  });
});
