// A webhook run whose turn waits for a person's approval (README "Webhook-triggered runs"): another run queued in
// the same session waits behind it instead of superseding it, and when the paused turn ends some other way
// (cancelled, superseded by a client's message, cleared) the run fails at once with the reason, not at a later
// alarm, and not as "completed".
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { AgentCache } from "../../src/session/agent-cache";
import { apiJson, clientTool, patch, restorePatches, uid } from "./helpers";
import {
  deliveries,
  getRun,
  type Run,
  type RunSetup,
  runSetup,
  runStub,
  script,
  signedRun,
  waitRun,
} from "./runs-helpers";

/** A client-executed tool: a run cannot answer its calls. */
const ASK_USER = clientTool("ask_user");

type Paused = Run & { approvals?: Array<{ approval_id: string; tool_call_id: string }> };

/** A tenant's agent with an approval-gated http tool, charge_card. */
function gatedAgent(tag: string): Promise<RunSetup> {
  return runSetup(undefined, {
    tools: [
      {
        name: "charge_card",
        description: "Charges a card.",
        input_schema: { type: "object", properties: { amount: { type: "number" } } },
        execution: { type: "http", url: `${env.MOCK_URL}/_callback/${uid(tag)}` },
        requires_approval: true,
      },
    ],
  });
}

/** gatedAgent, and one signed run of it paused on that approval (`extra`: more of the run's body, a callback_url). */
async function pausedRun(tag: string, extra: Record<string, unknown> = {}): Promise<{ s: RunSetup; run: Paused }> {
  const s = await gatedAgent(tag);
  await script(s.model, [
    { reply: { tool_calls: [{ id: `call_${tag}`, name: "charge_card", input: { amount: 5 } }] } },
  ]);
  const started = await signedRun(s, { input: "charge 5", ...extra });
  expect(started.status).toBe(202);
  const { run_id } = (await started.json()) as { run_id: string };
  const run = (await waitRun(s, run_id, (r) => r.status === "awaiting_approval")) as Paused;
  return { s, run };
}

function sessionCall(s: RunSetup, run: Run, action: string, json?: unknown) {
  return apiJson<{ status?: string; error?: { code: string } }>(`/v1/sessions/${run.session_id}/${action}`, {
    method: "POST",
    key: s.key,
    headers: { accept: "application/json" },
    ...(json === undefined ? {} : { json }),
  });
}

describe("a run queued behind another run's approval", () => {
  it("waits, and runs once the approval is answered and the first run has completed", async () => {
    const { s, run } = await pausedRun("queued");
    await script(s.model, [{ reply: { text: "First run done." } }, { reply: { text: "Second run done." } }]);
    const queued = await signedRun(s, { input: "second", session_id: run.session_id });
    expect(queued.status).toBe(202);
    const second = ((await queued.json()) as { run_id: string }).run_id;
    // The session's alarm comes due now: the queued run must not start (it would decline the open approval).
    await runDurableObjectAlarm(runStub(s, run.session_id));
    expect((await getRun(s, second)).status).toBe("queued");
    expect((await getRun(s, run.run_id)).status).toBe("awaiting_approval");

    const approval = (await getRun(s, run.run_id)) as Paused;
    const approved = await apiJson(`/v1/runs/${run.run_id}/approvals`, {
      method: "POST",
      key: s.key,
      json: { approvals: [{ approval_id: approval.approvals?.[0]?.approval_id, approved: true }] },
    });
    expect(approved.status).toBe(200);
    const first = await waitRun(s, run.run_id, (r) => r.status === "completed" || r.status === "failed");
    expect([first.status, first.result?.output]).toEqual(["completed", "First run done."]);
    const next = await waitRun(s, second, (r) => r.status === "completed" || r.status === "failed");
    expect([next.status, next.result?.output]).toEqual(["completed", "Second run done."]);
  });
});

describe("a run whose paused turn ends without its approval", () => {
  it("fails as cancelled as soon as the session's turn is cancelled", async () => {
    const { s, run } = await pausedRun("cancel");
    expect((await sessionCall(s, run, "cancel")).status).toBe(200);
    const after = await getRun(s, run.run_id);
    expect([after.status, after.error?.code]).toEqual(["failed", "cancelled"]);
  });

  it("fails as superseded, not completed, when a client's message moves the session on", async () => {
    const { s, run } = await pausedRun("superseded");
    await script(s.model, [{ reply: { text: "Hello, client." } }]);
    const message = await sessionCall(s, run, "messages", { content: "never mind the charge" });
    expect(message.status).toBe(201);
    const after = await getRun(s, run.run_id);
    expect([after.status, after.error?.code]).toEqual(["failed", "superseded"]);
  });

  it("fails as turn_missing as soon as the session is cleared", async () => {
    const { s, run } = await pausedRun("cleared");
    expect((await sessionCall(s, run, "clear")).status).toBe(200);
    const after = await getRun(s, run.run_id);
    expect([after.status, after.error?.code]).toEqual(["failed", "turn_missing"]);
  });

  it("cleared, delivers its run.failed callback saying turn_missing", async () => {
    const hook = uid("hook");
    const { s, run } = await pausedRun("cleared_cb", { callback_url: `${env.MOCK_URL}/_callback/${hook}` });
    expect((await sessionCall(s, run, "clear")).status).toBe(200);
    await waitRun(s, run.run_id, (r) => r.callback?.status === "delivered");
    const results = (await deliveries(hook))
      .filter((d) => d.headers["webhook-id"] === run.run_id)
      .map((d) => JSON.parse(d.body) as { type: string; data: Run });
    expect(results.map((b) => [b.type, b.data.status, b.data.error?.code])).toEqual([
      ["run.failed", "failed", "turn_missing"],
    ]);
  });
});

describe("a run whose turn asked for client tools", () => {
  it("fails (a run cannot answer them), and the next run queued in its session still runs", async () => {
    const s = await runSetup(undefined, { tools: [ASK_USER] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_ask_run", name: "ask_user", input: { q: "?" } }] } },
      { reply: { text: "Second run done." } },
    ]);
    const first = (await (await signedRun(s, { input: "ask" })).json()) as { run_id: string; session_id: string };
    const failed = await waitRun(s, first.run_id, (r) => r.status === "failed" || r.status === "completed");
    expect([failed.status, failed.error?.code]).toEqual(["failed", "awaiting_tool_results"]);
    const queued = await signedRun(s, { input: "second", session_id: first.session_id });
    expect(queued.status).toBe(202);
    const second = ((await queued.json()) as { run_id: string }).run_id;
    const done = await waitRun(s, second, (r) => r.status === "failed" || r.status === "completed");
    expect([done.status, done.result?.output]).toEqual(["completed", "Second run done."]);
  });
});

describe("a run whose turn asked for client tools, past the runs retention", () => {
  it("does not hold back the next run of its session once the sweep job has run", async () => {
    const s = await runSetup(undefined, { tools: [ASK_USER] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_ask_swept", name: "ask_user", input: { q: "?" } }] } },
      { reply: { text: "Run after the sweep." } },
    ]);
    const first = (await (await signedRun(s, { input: "ask" })).json()) as { run_id: string; session_id: string };
    const failed = await waitRun(s, first.run_id, (r) => r.status === "failed" || r.status === "completed");
    expect(failed.error?.code).toBe("awaiting_tool_results");
    // Long ended, and the sweep job due: the runs retention (30 days by default) looks at it.
    const stub = runStub(s, first.session_id);
    await runInDurableObject(stub, (_i, state) => {
      state.storage.sql.exec("UPDATE runs SET ended_at = '2000-01-01T00:00:00.000Z' WHERE id = ?", first.run_id);
      state.storage.sql.exec(
        `INSERT INTO jobs (id, kind, ref, due_at, created_at) VALUES ('sweep:retention', 'sweep', 'retention', 0, ?)
         ON CONFLICT (id) DO UPDATE SET due_at = 0`,
        new Date().toISOString(),
      );
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const queued = await signedRun(s, { input: "second", session_id: first.session_id });
    expect(queued.status).toBe(202);
    const second = ((await queued.json()) as { run_id: string }).run_id;
    const done = await waitRun(s, second, (r) => r.status === "failed" || r.status === "completed");
    expect([done.status, done.result?.output]).toEqual(["completed", "Run after the sweep."]);
  });
});

describe("a run paused for an approval and a client call at once", () => {
  it("once the approval is answered, fails at once (it cannot answer the client call) and the queued run runs", async () => {
    const s = await runSetup(undefined, {
      tools: [
        ASK_USER,
        {
          name: "charge_card",
          description: "Charges a card.",
          input_schema: { type: "object", properties: { amount: { type: "number" } } },
          execution: { type: "http", url: `${env.MOCK_URL}/_callback/${uid("mixed")}` },
          requires_approval: true,
        },
      ],
    });
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_mixed_charge", name: "charge_card", input: { amount: 5 } },
            { id: "call_mixed_ask", name: "ask_user", input: { q: "?" } },
          ],
        },
      },
      { reply: { text: "Second run done." } },
    ]);
    const started = (await (await signedRun(s, { input: "charge and ask" })).json()) as {
      run_id: string;
      session_id: string;
    };
    const paused = (await waitRun(s, started.run_id, (r) => r.status === "awaiting_approval")) as Paused;
    const queued = await signedRun(s, { input: "second", session_id: started.session_id });
    const second = ((await queued.json()) as { run_id: string }).run_id;
    const approved = await apiJson(`/v1/runs/${started.run_id}/approvals`, {
      method: "POST",
      key: s.key,
      json: { approvals: [{ approval_id: paused.approvals?.[0]?.approval_id, approved: true }] },
    });
    expect(approved.status).toBe(200);
    // No alarm is run by hand: the answer itself concludes the run and lets the queued one start.
    const first = await getRun(s, started.run_id);
    expect([first.status, first.error?.code]).toEqual(["failed", "awaiting_tool_results"]);
    const next = await waitRun(s, second, (r) => r.status === "completed" || r.status === "failed");
    expect([next.status, next.result?.output]).toEqual(["completed", "Second run done."]);
  });
});

describe("a run's approval notices (run.awaiting_approval)", () => {
  const notices = async (hook: string) =>
    (await deliveries(hook)).filter((d) => (JSON.parse(d.body) as { type: string }).type === "run.awaiting_approval");
  const until = async <T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> => {
    for (let i = 0; i < 400; i++) {
      const v = await read();
      if (done(v)) return v;
      await new Promise((r) => setTimeout(r, 25));
    }
    return read();
  };

  /** The run paused for approval, its first notice delivered. */
  const pausedWithNotice = async (s: RunSetup, runId: string, hook: string): Promise<Paused> => {
    const paused = (await waitRun(s, runId, (r) => r.status === "awaiting_approval")) as Paused;
    expect(
      await until(
        () => notices(hook),
        (n) => n.length > 0,
      ),
    ).toHaveLength(1);
    return paused;
  };
  /** Approves the pause's first approval through the run's route. */
  const approveFirst = async (s: RunSetup, runId: string, paused: Paused): Promise<void> => {
    const answered = await apiJson(`/v1/runs/${runId}/approvals`, {
      method: "POST",
      key: s.key,
      json: { approvals: [{ approval_id: paused.approvals?.[0]?.approval_id, approved: true }] },
    });
    expect(answered.status).toBe(200);
  };

  it("sends one notice per pause: answering one of its two approvals does not make it a new pause", async () => {
    const s = await gatedAgent("two");
    const hook = uid("hook");
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_two_a", name: "charge_card", input: { amount: 1 } },
            { id: "call_two_b", name: "charge_card", input: { amount: 2 } },
          ],
        },
      },
    ]);
    const started = await signedRun(s, { input: "charge twice", callback_url: `${env.MOCK_URL}/_callback/${hook}` });
    const { run_id, session_id } = (await started.json()) as { run_id: string; session_id: string };
    const paused = await pausedWithNotice(s, run_id, hook);
    await approveFirst(s, run_id, paused);
    // The alarm's pass over the run (what an approval's expiry or any job would trigger), twice: nothing new to send.
    await runDurableObjectAlarm(runStub(s, session_id));
    await runDurableObjectAlarm(runStub(s, session_id));
    expect(await notices(hook)).toHaveLength(1);
  });

  it("a new pause while the previous pause's notice is in flight still gets its own notice", async () => {
    const s = await gatedAgent("again");
    const hook = uid("hook");
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_again_1", name: "charge_card", input: { amount: 1 } }] } },
      { reply: { tool_calls: [{ id: "call_again_2", name: "charge_card", input: { amount: 2 } }] } },
    ]);
    // A slow receiver: each notice is answered 1.5 s after it arrives.
    const started = await signedRun(s, {
      input: "charge, then charge again",
      callback_url: `${env.MOCK_URL}/_callback/${hook}?delay_ms=1500`,
    });
    const { run_id } = (await started.json()) as { run_id: string };
    const paused = await pausedWithNotice(s, run_id, hook);
    // Answered while the first notice is still in flight: the turn resumes and pauses again.
    await approveFirst(s, run_id, paused);
    const both = await until(
      () => notices(hook),
      (n) => n.length >= 2,
    );
    expect(both).toHaveLength(2);
    expect(new Set(both.map((d) => d.headers["webhook-id"])).size).toBe(2);
  });
});

describe("a run's approval notice whose approval is answered while the agent is read", () => {
  afterEach(restorePatches);

  it("is not sent: the only delivery is the run's result under its run id", async () => {
    const s = await gatedAgent("meanwhile");
    const hook = uid("hook");
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_meanwhile", name: "charge_card", input: { amount: 3 } }] } },
      { reply: { text: "Charged." } },
    ]);
    let runId = (_: string) => {};
    const known = new Promise<string>((resolve) => {
      runId = resolve;
    });
    // The notice's read of the agent (the first one not admitting a turn) is where the approval gets answered.
    const current = AgentCache.prototype.current;
    let answered = false;
    patch(AgentCache.prototype, "current", async function (this: AgentCache, name, admission) {
      if (!admission && !answered) {
        answered = true;
        const id = await known;
        const paused = (await waitRun(s, id, (r) => r.status === "awaiting_approval")) as Paused;
        const res = await apiJson(`/v1/runs/${id}/approvals`, {
          method: "POST",
          key: s.key,
          json: { approvals: [{ approval_id: paused.approvals?.[0]?.approval_id, approved: true }] },
        });
        expect(res.status).toBe(200);
      }
      return current.call(this, name, admission);
    });
    const started = await signedRun(s, { input: "charge 3", callback_url: `${env.MOCK_URL}/_callback/${hook}` });
    const { run_id } = (await started.json()) as { run_id: string };
    runId(run_id);
    const run = await waitRun(s, run_id, (r) => r.callback?.status === "delivered");
    expect([answered, run.status]).toEqual([true, "completed"]);
    const sent = (await deliveries(hook)).map((d) => [
      d.headers["webhook-id"],
      (JSON.parse(d.body) as { type: string }).type,
    ]);
    expect(sent).toEqual([[run_id, "run.completed"]]);
  });
});

describe("a paused turn that ends without resuming", () => {
  const paused = async (tag: string) => {
    const s = await runSetup(undefined, { tools: [ASK_USER] });
    const session = (
      await apiJson<{ id: string }>("/v1/sessions", { method: "POST", key: s.key, json: { agent: s.agent } })
    ).body.id;
    await script(s.model, [
      { reply: { tool_calls: [{ id: `call_${tag}`, name: "ask_user", input: { q: "?" } }] } },
      { reply: { text: "moved on" } },
    ]);
    const first = await apiJson<{ turn_id: string; status: string }>(`/v1/sessions/${session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "ask me" },
      headers: { accept: "application/json" },
    });
    expect(first.body.status).toBe("awaiting_tool_results");
    const events = async () =>
      (
        await apiJson<{ events: Array<{ type: string; turn_id: string | null; data: Record<string, unknown> }> }>(
          `/v1/sessions/${session}/events`,
          { key: s.key },
        )
      ).body.events;
    return { s, session, turn: first.body.turn_id, events };
  };

  it("superseded by a new message, it gets its one turn_finished", async () => {
    const { s, session, turn, events } = await paused("superseded_ev");
    const next = await apiJson(`/v1/sessions/${session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "never mind" },
      headers: { accept: "application/json" },
    });
    expect(next.status).toBe(201);
    const ends = (await events()).filter((e) => e.type === "turn_finished" && e.turn_id === turn);
    expect(ends.map((e) => e.data)).toEqual([{ status: "completed", finish_reason: "superseded" }]);
  });

  it("cleared, it gets its one turn_finished before session_cleared", async () => {
    const { s, session, turn, events } = await paused("cleared_ev");
    expect((await apiJson(`/v1/sessions/${session}/clear`, { method: "POST", key: s.key })).status).toBe(200);
    const all = await events();
    const ends = all.filter((e) => e.type === "turn_finished" && e.turn_id === turn);
    expect(ends.map((e) => e.data)).toEqual([{ status: "cancelled", finish_reason: "cleared" }]);
    expect(all.findIndex((e) => e.type === "turn_finished" && e.turn_id === turn)).toBeLessThan(
      all.findIndex((e) => e.type === "session_cleared"),
    );
  });
});
