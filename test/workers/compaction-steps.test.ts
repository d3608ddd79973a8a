// One long turn compacts its own finished steps (README "Long sessions"): a turn of many tool steps in a small
// window completes, on every protocol and as a webhook run, with the user's request verbatim in every request.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { agentBody, city, echoSteps, longTurnSession, requestText, WINDOW } from "./compaction-helpers";
import {
  ADMIN,
  apiJson,
  COMPACTION_TOOLS,
  clientTool,
  events,
  history,
  mockRequests,
  mockStats,
  mockWindow,
  pairingProblems,
  recordedTool,
  type Setup,
  script,
  send,
  sessionStub,
  type TurnJson,
  uid,
} from "./helpers";
import { deliveries, ended, runSetup, signedRun, waitRun } from "./runs-helpers";

const STEPS = 25;

/** Steps that load lookup_order, echo `STEPS` cities, call lookup_order and answer: the turn's whole script. */
const loadEchoCall = () => [
  { reply: { tool_calls: [{ id: "call_load", name: "tool_search", input: { query: "select:lookup_order" } }] } },
  ...echoSteps(1, STEPS),
  { reply: { tool_calls: [{ id: "call_lookup", name: "lookup_order", input: { city: "Oslo" } }] } },
  { reply: { text: "All cities echoed." } },
];

/** Whether a request lets the model call `name` as it is: declared in full, or (Anthropic) named by a tool_reference. */
function usable(body: Record<string, unknown>, name: string): boolean {
  const tools = (body.tools ?? []) as Array<Record<string, unknown>>;
  const named = (t: Record<string, unknown>) =>
    (t.name ?? (t.function as { name?: string } | undefined)?.name) === name;
  if (tools.some((t) => named(t) && t.defer_loading !== true)) return true;
  return JSON.stringify(body.messages ?? []).includes(`{"type":"tool_reference","tool_name":"${name}"}`);
}

/** After the turn of `loadEchoCall`: lookup_order stayed loaded and callable in every request after its load. */
async function expectLoadedThroughout(s: Setup): Promise<void> {
  const sent = (await mockRequests(s.model)).filter((r) => r.served === "reply");
  expect(usable(sent[0]?.body ?? {}, "lookup_order")).toBe(false);
  expect(sent.slice(1).filter((r) => !usable(r.body, "lookup_order"))).toEqual([]);
  const state = await apiJson<{ loaded_tools: string[] }>(`/v1/sessions/${s.session}`, { key: s.key });
  expect(state.body.loaded_tools).toContain("lookup_order");
}

/** The session compacted, no request broke pairing, and every step request carried `request` verbatim. */
async function expectCompactedWithRequest(s: Setup, request: string, steps: number): Promise<void> {
  const evs = await events(s);
  expect(evs.filter((e) => e.type === "context_compacted").length).toBeGreaterThan(0);
  const stats = await mockStats(s.model);
  expect([stats.rejected_p, stats.rejected]).toEqual([0, 0]);
  const sent = (await mockRequests(s.model)).filter((r) => r.served === "reply");
  expect(sent).toHaveLength(steps);
  for (const r of sent) expect(JSON.stringify(r.body)).toContain(request);
  expect(pairingProblems(await history(s))).toEqual([]);
}

describe.each(["anthropic", "openai", "openai-responses"] as const)("one turn of many tool steps (%s)", (provider) => {
  it(`${STEPS} steps of ~1,000 tokens in an 8,000-token window complete: the request verbatim and the loaded tool declared after each compaction`, async () => {
    const s = await longTurnSession(provider);
    const request = requestText(STEPS);
    await script(s.model, loadEchoCall());
    const res = await send(s, { content: request });
    expect([res.body.status, res.body.error]).toEqual(["completed", undefined]);
    await expectCompactedWithRequest(s, request, STEPS + 3);
    await expectLoadedThroughout(s);
  });
});

describe("a long turn with a thinking budget", () => {
  it("completes when compactions inside it summarise the only step that thought (the first, as Claude 4.5 and earlier think in a tool loop)", async () => {
    const s = await longTurnSession("anthropic", COMPACTION_TOOLS, {
      max_tokens: 1500,
      capabilities: { thinking: true },
    });
    const [first, ...rest] = echoSteps(1, 14);
    const thinks = { reply: { ...first?.reply, thinking: "Fourteen cities, one echo_core call each." } };
    await script(s.model, [thinks, ...rest, { reply: { text: "All cities echoed." } }]);
    const res = await send(s, { content: requestText(STEPS) });
    expect([res.body.status, res.body.error]).toEqual(["completed", undefined]);
    const stats = await mockStats(s.model);
    expect([stats.rejected_p, stats.rejected]).toEqual([0, 0]);
    expect((await events(s)).filter((e) => e.type === "context_compacted").length).toBeGreaterThan(0);
  });
});

describe("a webhook run of one long turn", () => {
  it(`${STEPS} tool steps in an 8,000-token window complete as one run, compacting inside its turn`, async () => {
    const r = await runSetup();
    const put = await apiJson(`/v1/agents/${r.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: { ...agentBody("anthropic", r.model), webhook_secrets: r.secrets, webhook_tenant: r.tenant },
    });
    expect(put.status).toBe(200);
    await mockWindow(r.model, WINDOW);
    const request = requestText(STEPS);
    await script(r.model, loadEchoCall());
    const accepted = (await (await signedRun(r, { input: request })).json()) as { run_id: string };
    const run = await waitRun(r, accepted.run_id, ended, 60_000);
    expect([run.status, run.error]).toEqual(["completed", undefined]);
    expect(run.result?.output).toBe("All cities echoed.");
    const s = { ...r, session: run.session_id };
    await expectCompactedWithRequest(s, request, STEPS + 3);
    await expectLoadedThroughout(s);
  });
});

describe("a long turn paused for an approval", () => {
  it("is never cut inside the paused step: resumed, it compacts at step boundaries and completes", async () => {
    const rec = uid("charge");
    const s = await longTurnSession("anthropic", [...COMPACTION_TOOLS, recordedTool("charge_card", rec)]);
    const request = requestText(STEPS);
    // Step 9 echoes a long city beside the charge and pauses; the steps after the approval overflow without compacting.
    const paused = {
      reply: {
        tool_calls: [
          { id: "call_echo_9", name: "echo_core", input: { city: city(9, 200) } },
          { id: "call_charge", name: "charge_card", input: { amount: 9 } },
        ],
      },
    };
    await script(s.model, [
      ...echoSteps(1, 8),
      paused,
      ...echoSteps(10, 20),
      { reply: { text: "Charged and echoed." } },
    ]);
    const first = await send(s, { content: request });
    expect([first.body.status, first.body.error]).toEqual(["awaiting_approval", undefined]);
    const open = (first.body as TurnJson & { pending_approvals: Array<{ approval_id: string }> }).pending_approvals;
    const answered = await apiJson<TurnJson>(`/v1/sessions/${s.session}/tool-approvals`, {
      method: "POST",
      key: s.key,
      json: { approvals: [{ approval_id: open[0]?.approval_id, approved: true }] },
    });
    expect([answered.body.status, answered.body.error]).toEqual(["completed", undefined]);
    expect(await deliveries(rec)).toHaveLength(1);
    await expectCompactedWithRequest(s, request, 21);
    // The paused step (its calls, then their results) is on one side of every cut.
    const stored = await history(s);
    const calls = stored.find((m) => m.parts.some((p) => p.type === "tool_use" && p.id === "call_charge"));
    const results = stored.find((m) =>
      m.parts.some((p) => p.type === "tool_result" && p.tool_use_id === "call_charge"),
    );
    const cuts = (await events(s)).flatMap((e) =>
      e.type === "context_compacted" ? [Number(e.data.boundary_seq)] : [],
    );
    expect(cuts.some((b) => b > (results?.seq ?? 0))).toBe(true);
    expect(cuts.filter((b) => b > (calls?.seq ?? 0) && b <= (results?.seq ?? 0))).toEqual([]);
  });
});

describe("a long turn paused on a client call after a cut inside it", () => {
  /** How the pause goes on in a new turn that stores the results alone. */
  const continuations = {
    "a message of tool_results alone": (s: Setup) =>
      send(s, { content: "", tool_results: [{ tool_use_id: "call_ask", content: "yes, go on" }] }),
    "/retry of the pause": (s: Setup) =>
      apiJson<TurnJson>(`/v1/sessions/${s.session}/retry`, { method: "POST", key: s.key }),
  };

  it.each(Object.keys(continuations) as Array<keyof typeof continuations>)(
    "goes on with %s: the request stays verbatim in every request, carried by every cut",
    async (how) => {
      const s = await longTurnSession("anthropic", [...COMPACTION_TOOLS, clientTool("ask_user")]);
      const request = requestText(STEPS);
      // 12 steps compact inside the first turn; it pauses on ask_user; the new turn takes 12 more steps.
      await script(s.model, [
        ...echoSteps(1, 12),
        { reply: { tool_calls: [{ id: "call_ask", name: "ask_user", input: { q: "go on?" } }] } },
        ...echoSteps(13, 24),
        { reply: { text: "All cities echoed." } },
      ]);
      const first = await send(s, { content: request });
      expect([first.body.status, first.body.error]).toEqual(["awaiting_tool_results", undefined]);
      const paused = (await mockRequests(s.model)).filter((r) => r.served === "reply").length;
      const second = await continuations[how](s);
      expect([second.body.status, second.body.error]).toEqual(["completed", undefined]);
      const sent = (await mockRequests(s.model)).filter((r) => r.served === "reply").slice(paused);
      expect(sent).toHaveLength(13);
      for (const r of sent) expect(JSON.stringify(r.body)).toContain(request);
      const rows = await runInDurableObject(await sessionStub(s), (_i, state: DurableObjectState) =>
        state.storage.sql
          .exec<{ carried_seq: number | null }>(
            "SELECT carried_seq FROM compactions WHERE turn_id = ?",
            second.body.turn_id,
          )
          .toArray(),
      );
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.filter((r) => r.carried_seq === null)).toEqual([]);
      expect(pairingProblems(await history(s))).toEqual([]);
    },
  );
});
