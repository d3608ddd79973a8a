// Who may answer the approvals of a webhook run (README "Human approval of tool calls", docs/API.md
// POST /v1/runs/{id}/approvals). A run started by a signed webhook of an agent without `webhook_tenant`
// belongs to the tenant `webhook:<agent>`, which no API key reaches: the admin key, or a request signed with
// the agent's own secret (the sender that started the run and got its signed callback), answers instead.
// Anyone else gets 404 and changes nothing.
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { ADMIN, api, apiJson, type Msg, mockRequests, pairingProblems, script, tenantKey, uid } from "./helpers";
import { type Delivery, deliveries, newSecret, type Run, runSetup, signedPost, signedRun } from "./runs-helpers";

interface OpenApproval {
  approval_id: string;
  tool_call_id: string;
  name: string;
  input: Record<string, unknown>;
}

type RunWithApprovals = Run & { approvals?: OpenApproval[] };

/** An agent whose signed runs belong to `webhook:<agent>` (no webhook_tenant), with an approval-gated http tool. */
async function webhookAgent(recorder: string) {
  const agent = uid("agent");
  const model = uid("mock-anthropic");
  const secret = newSecret();
  const put = await apiJson(`/v1/agents/${agent}`, {
    method: "PUT",
    key: ADMIN,
    json: {
      model: { provider: "anthropic", name: model },
      system: "You are a run agent.",
      webhook_secrets: [secret],
      tools: [
        {
          name: "charge_card",
          description: "Charges a card.",
          input_schema: { type: "object", properties: { amount: { type: "number" } } },
          execution: { type: "http", url: `${env.MOCK_URL}/_callback/${recorder}` },
          requires_approval: true,
        },
      ],
    },
  });
  if (put.status !== 201) throw new Error(`agent: ${put.status} ${JSON.stringify(put.body)}`);
  return { agent, model, secret, tenant: `webhook:${agent}` };
}

async function runView(id: string): Promise<RunWithApprovals> {
  const res = await apiJson<RunWithApprovals>(`/v1/runs/${id}`, { key: ADMIN });
  if (res.status !== 200) throw new Error(`GET run: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function waitFor<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    const v = await read();
    if (done(v) || i >= 400) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The run's session as its Durable Object holds it (no API key reaches a `webhook:<agent>` tenant). */
async function sessionOf(tenant: string, session: string) {
  const stub = env.SESSION.getByName(`${tenant}:${session}`) as unknown as {
    messages(after: number, limit: number): Promise<{ messages: Msg[] }>;
    events(after: number, limit: number): Promise<{ events: Array<{ type: string; data: Record<string, unknown> }> }>;
  };
  return { messages: (await stub.messages(0, 1000)).messages, events: (await stub.events(0, 1000)).events };
}

/** A signed run that pauses for approval, with its signed run.awaiting_approval notice delivered. */
async function pausedRun(amount: number) {
  const rec = uid("charge");
  const hook = uid("hook");
  const a = await webhookAgent(rec);
  await script(a.model, [
    { reply: { tool_calls: [{ id: `call_pay_${amount}`, name: "charge_card", input: { amount } }] } },
    { reply: { text: "Done." } },
  ]);
  const started = await signedRun(
    { tenant: a.tenant, key: "", agent: a.agent, model: a.model, secrets: [a.secret] },
    { input: `charge ${amount}`, callback_url: `${env.MOCK_URL}/_callback/${hook}` },
  );
  expect(started.status).toBe(202);
  const { run_id, session_id } = (await started.json()) as { run_id: string; session_id: string };
  const waiting = await waitFor(
    () => runView(run_id),
    (r) => r.status === "awaiting_approval",
  );
  expect(waiting.status).toBe("awaiting_approval");
  const notices = await waitFor(
    () => deliveries(hook),
    (d) => d.length > 0,
  );
  expect(notices).toHaveLength(1);
  const notice = new Webhook(a.secret).verify(notices[0]?.body as string, notices[0]?.headers ?? {}) as {
    type: string;
    data: { run_id: string; approvals: OpenApproval[] };
  };
  expect(notice.type).toBe("run.awaiting_approval");
  expect(notice.data.run_id).toBe(run_id);
  const approval = notice.data.approvals[0] as OpenApproval;
  expect(approval).toMatchObject({ tool_call_id: `call_pay_${amount}`, name: "charge_card", input: { amount } });
  return { ...a, rec, hook, run_id, session_id, approval, notice: notices[0] as Delivery };
}

describe("approving a run of the webhook:<agent> tenant", () => {
  it("another tenant's key gets 404 on both routes and nothing changes; a request signed with the agent's secret approves, and the run completes", async () => {
    const r = await pausedRun(120);
    const before = await sessionOf(r.tenant, r.session_id);

    const stranger = await tenantKey();
    const answer = { approvals: [{ approval_id: r.approval.approval_id, approved: true }] };
    const viaRun = await apiJson<{ error: { code: string } }>(`/v1/runs/${r.run_id}/approvals`, {
      method: "POST",
      key: stranger,
      json: answer,
    });
    expect(viaRun.status).toBe(404);
    expect(viaRun.body.error.code).toBe("not_found");
    const viaSession = await apiJson<{ error: { code: string } }>(`/v1/sessions/${r.session_id}/tool-approvals`, {
      method: "POST",
      key: stranger,
      json: answer,
    });
    expect(viaSession.status).toBe(404);
    // A request signed with another secret is 401; unsigned, 401; the agent's signature on a body that is not an
    // answer (the run's own notice reflected back) is 400.
    const forged = await signedPost(`/v1/runs/${r.run_id}/approvals`, newSecret(), answer);
    expect(forged.status).toBe(401);
    const unsigned = await apiJson(`/v1/runs/${r.run_id}/approvals`, { method: "POST", json: answer });
    expect(unsigned.status).toBe(401);
    // Switchboard's own signed notice, sent back verbatim (same secret, valid signature): not an answer.
    const reflected = await api(`/v1/runs/${r.run_id}/approvals`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": r.notice.headers["webhook-id"] as string,
        "webhook-timestamp": r.notice.headers["webhook-timestamp"] as string,
        "webhook-signature": r.notice.headers["webhook-signature"] as string,
      },
      body: r.notice.body,
    });
    expect(reflected.status).toBe(400);
    expect(await sessionOf(r.tenant, r.session_id)).toEqual(before);
    expect((await runView(r.run_id)).approvals?.map((x) => x.approval_id)).toEqual([r.approval.approval_id]);
    expect(await deliveries(r.rec)).toEqual([]);

    const webhookId = uid("approve");
    const ok = await signedPost(`/v1/runs/${r.run_id}/approvals`, r.secret, answer, { id: webhookId });
    expect(ok.status).toBe(200);
    const done = await waitFor(
      () => runView(r.run_id),
      (x) => x.status === "completed" || x.status === "failed",
    );
    expect(done.status).toBe("completed");
    expect(done.result?.output).toBe("Done.");
    const calls = await deliveries(r.rec);
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0]?.body ?? "{}")).toMatchObject({ tool_use_id: "call_pay_120", input: { amount: 120 } });
    const after = await sessionOf(r.tenant, r.session_id);
    expect(after.events.find((e) => e.type === "approval_granted")?.data).toMatchObject({
      approval_id: r.approval.approval_id,
      by: `webhook:${webhookId}`,
    });
    expect(pairingProblems(after.messages)).toEqual([]);
    // The same signed answer again: the approval is spent.
    const again = await signedPost(`/v1/runs/${r.run_id}/approvals`, r.secret, answer);
    expect(again.status).toBe(409);
    expect(await deliveries(r.rec)).toHaveLength(1);
    const notices = await waitFor(
      () => deliveries(r.hook),
      (d) => d.length >= 2,
    );
    expect(notices.map((d) => (JSON.parse(d.body) as { type: string }).type)).toEqual([
      "run.awaiting_approval",
      "run.completed",
    ]);
    expect((await mockRequests(r.model)).filter((x) => x.rejected)).toEqual([]);
  });

  it("the admin key declines: the model is told, the tool never runs, the event says admin", async () => {
    const r = await pausedRun(990);
    const res = await apiJson<{ status: string }>(`/v1/runs/${r.run_id}/approvals`, {
      method: "POST",
      key: ADMIN,
      json: { approvals: [{ approval_id: r.approval.approval_id, approved: false, reason: "over the limit" }] },
    });
    expect(res.status).toBe(200);
    const done = await waitFor(
      () => runView(r.run_id),
      (x) => x.status === "completed" || x.status === "failed",
    );
    expect(done.status).toBe("completed");
    expect(await deliveries(r.rec)).toEqual([]);
    const after = await sessionOf(r.tenant, r.session_id);
    expect(after.events.find((e) => e.type === "approval_declined")?.data).toMatchObject({
      by: "admin",
      reason: "over the limit",
    });
    const requests = await mockRequests(r.model);
    expect(requests.filter((x) => x.rejected)).toEqual([]);
    expect(JSON.stringify(requests.at(-1)?.body)).toContain("the user declined: over the limit");
  });
});

describe("approving a run through its run id with a tenant key", () => {
  it("a key of the run's tenant approves; the agent's signature cannot answer a run a key started (404)", async () => {
    const rec = uid("charge");
    const s = await runSetup(undefined, {
      tools: [
        {
          name: "charge_card",
          description: "Charges a card.",
          input_schema: { type: "object", properties: { amount: { type: "number" } } },
          execution: { type: "http", url: `${env.MOCK_URL}/_callback/${rec}` },
          requires_approval: true,
        },
      ],
    });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_keyed", name: "charge_card", input: { amount: 3 } }] } },
      { reply: { text: "Charged 3." } },
    ]);
    const started = await apiJson<{ run_id: string }>(`/v1/agents/${s.agent}/runs`, {
      method: "POST",
      key: s.key,
      json: { input: "charge 3" },
    });
    expect(started.status).toBe(202);
    const id = started.body.run_id;
    const waiting = await waitFor(
      () => runView(id),
      (r) => r.status === "awaiting_approval",
    );
    const approval = waiting.approvals?.[0] as OpenApproval;
    const answer = { approvals: [{ approval_id: approval.approval_id, approved: true }] };
    const signed = await signedPost(`/v1/runs/${id}/approvals`, s.secrets[0] as string, answer);
    expect(signed.status).toBe(404);
    expect((await runView(id)).status).toBe("awaiting_approval");
    const ok = await apiJson(`/v1/runs/${id}/approvals`, { method: "POST", key: s.key, json: answer });
    expect(ok.status).toBe(200);
    const done = await waitFor(
      () => runView(id),
      (r) => r.status === "completed" || r.status === "failed",
    );
    expect(done.result?.output).toBe("Charged 3.");
    expect(await deliveries(rec)).toHaveLength(1);
    expect((await mockRequests(s.model)).filter((x) => x.rejected)).toEqual([]);
  });
});

describe("a run's approvals are its own", () => {
  it("a signature for an ended run cannot answer an approval a key user's turn asked for in the same session", async () => {
    const rec = uid("charge");
    const tool = {
      name: "charge_card",
      description: "Charges a card.",
      input_schema: { type: "object", properties: { amount: { type: "number" } } },
      execution: { type: "http", url: `${env.MOCK_URL}/_callback/${rec}` },
      requires_approval: true,
    };
    const s = await runSetup([newSecret()], { tools: [tool] });
    const session = uid("shared");
    await script(s.model, [{ reply: { text: "Nothing to charge." } }]);
    const started = await signedRun(s, { input: "hello", session_id: session });
    expect(started.status).toBe(202);
    const runId = ((await started.json()) as { run_id: string }).run_id;
    await waitFor(
      () => runView(runId),
      (r) => r.status === "completed",
    );
    // The tenant's own user, in the same session, is asked to approve a charge.
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_users_charge", name: "charge_card", input: { amount: 9 } }] } },
      { reply: { text: "Charged 9." } },
    ]);
    const paused = await apiJson<{ status: string; pending_approvals: OpenApproval[] }>(
      `/v1/sessions/${session}/messages`,
      { method: "POST", key: s.key, json: { content: "charge 9" } },
    );
    expect(paused.body.status).toBe("awaiting_approval");
    const approvalId = paused.body.pending_approvals[0]?.approval_id as string;
    const answer = { approvals: [{ approval_id: approvalId, approved: true }] };
    const signed = await signedPost(`/v1/runs/${runId}/approvals`, s.secrets[0] as string, answer);
    expect(signed.status).toBe(404);
    expect(((await signed.json()) as { error: { code: string } }).error.code).toBe("unknown_approval");
    expect(await deliveries(rec)).toHaveLength(0);
    const state = await apiJson<{ pending_approvals: OpenApproval[] }>(`/v1/sessions/${session}`, { key: s.key });
    expect(state.body.pending_approvals.map((a) => a.approval_id)).toEqual([approvalId]);
  });
});

describe("a signature that matches no secret", () => {
  it("is 401 alike for a run that exists and one that does not: the answer tells no run ids", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "Done." } }]);
    const started = await signedRun(s, { input: "hello" });
    const runId = ((await started.json()) as { run_id: string }).run_id;
    const forged = (id: string) => signedPost(`/v1/runs/${id}/approvals`, newSecret(), { approvals: [] });
    const real = await forged(runId);
    const none = await forged("run_0123456789abcdef0123456789abcdef");
    expect([real.status, none.status]).toEqual([401, 401]);
    expect(await none.json()).toEqual(await real.json());
  });
});

describe("a run whose session object has no tables", () => {
  it("answers approvals with 404 not_found (not 500) and creates no session", async () => {
    const s = await runSetup();
    // A half-admitted run: recorded in D1, never handed to its new session, so no object was ever created.
    const id = uid("run_half");
    const session_id = uid("ses");
    await env.DB.prepare(
      "INSERT INTO runs (id, tenant, agent, session_id, body_hash, auth, request, created_at, accepted_at) VALUES (?, ?, ?, ?, 'h', 'key', ?, ?, NULL)",
    )
      .bind(id, s.tenant, s.agent, session_id, '{"input":[{"type":"text","text":"x"}]}', new Date().toISOString())
      .run();
    const res = await apiJson<{ error: { code: string } }>(`/v1/runs/${id}/approvals`, {
      method: "POST",
      key: s.key,
      json: { approvals: [{ approval_id: "apr_none", approved: true }] },
    });
    expect([res.status, res.body.error?.code]).toEqual([404, "not_found"]);
    expect((await apiJson(`/v1/sessions/${session_id}`, { key: s.key })).status).toBe(404);
  });
});
