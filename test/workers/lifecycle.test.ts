// A session's turn lifecycle: one turn at a time, clear, cancel, and a crash or eviction mid-turn repaired on
// wake-up.
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  api,
  apiJson,
  clientTool,
  events,
  expectOnlySweepLeft,
  history,
  mockRequests,
  pairingProblems,
  recordStream,
  type Setup,
  script,
  send,
  setup,
  sseFrames,
  uiChunks,
} from "./helpers";

const toolA = clientTool("slow_lookup");

/** Starts a turn whose model announces a tool_use and then stalls forever; returns once the call is persisted. */
async function stalledAfterToolUse(s: Setup): Promise<Response> {
  const body = await recordStream("anthropic", {
    text: "Working.",
    tool_calls: [{ id: "toolu_stall_1", name: "slow_lookup", input: { q: "z" } }],
  });
  const frames = body.split("\n\n");
  const toolStop = frames.findIndex(
    (f, i) => f.includes("content_block_stop") && frames.slice(0, i).some((g) => g.includes('"tool_use"')),
  );
  await script(s.model, [{ raw: body, faults: { stall_after_events: toolStop + 1 } }]);
  const res = await api(`/v1/sessions/${s.session}/messages`, { method: "POST", key: s.key, json: { content: "go" } });
  for (let i = 0; i < 100; i++) {
    const state = await apiJson<{ pending_tool_calls: unknown[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    if (state.body.pending_tool_calls.length > 0) return res;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("tool_use was never persisted");
}

function stub(s: Setup, tenantOf: (key: string) => string) {
  return env.SESSION.getByName(`${tenantOf(s.key)}:${s.session}`);
}

describe("one turn at a time", () => {
  it("refuses a second message while a turn runs with 409 turn_in_progress", async () => {
    const s = await setup({ tools: [toolA] });
    const running = await stalledAfterToolUse(s);
    const second = await send(s, { content: "me too" });
    expect(second.status).toBe(409);
    expect((second.body as unknown as { error: { code: string } }).error.code).toBe("turn_in_progress");
    await apiJson(`/v1/sessions/${s.session}/cancel`, { method: "POST", key: s.key });
    await running.body?.cancel();
  });
});

describe("clear", () => {
  it("is refused with 409 turn_in_progress while a turn runs, and changes nothing", async () => {
    const s = await setup({ tools: [toolA] });
    const running = await stalledAfterToolUse(s);
    const before = await history(s);
    const cleared = await apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/clear`, {
      method: "POST",
      key: s.key,
    });
    expect(cleared.status).toBe(409);
    expect(cleared.body.error.code).toBe("turn_in_progress");
    expect(await history(s)).toEqual(before);
    await apiJson(`/v1/sessions/${s.session}/cancel`, { method: "POST", key: s.key });
    await running.body?.cancel();
  });

  it("of a turn paused for a client result: ends it as cancelled and empties the history", async () => {
    const s = await setup({ tools: [toolA] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_clear_1", name: "slow_lookup", input: { q: "a" } }] } },
    ]);
    const paused = await send(s, { content: "look it up" });
    expect(paused.body.status).toBe("awaiting_tool_results");
    const cleared = await apiJson(`/v1/sessions/${s.session}/clear`, { method: "POST", key: s.key });
    expect(cleared.status).toBe(200);
    expect(await history(s)).toEqual([]);
    const state = await apiJson<{ pending_tool_calls: unknown[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.pending_tool_calls).toEqual([]);
    expect((await events(s)).map((e) => e.type)).toContain("session_cleared");
  });
});

describe("cancel", () => {
  it("stops a running step and answers its persisted calls synthetically", async () => {
    const s = await setup({ tools: [toolA] });
    const running = await stalledAfterToolUse(s);
    const cancel = await apiJson<{ status: string }>(`/v1/sessions/${s.session}/cancel`, {
      method: "POST",
      key: s.key,
    });
    expect(cancel.body.status).toBe("cancelled");
    await running.body?.cancel();
    const msgs = await history(s);
    expect(pairingProblems(msgs)).toEqual([]);
    expect(msgs[msgs.length - 1]?.parts[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: "toolu_stall_1",
      is_error: true,
    });
    await script(s.model, [{ reply: { text: "fresh start" } }]);
    const next = await send(s, { content: "new question" });
    expect(next.body.status).toBe("completed");
    expect((await mockRequests(s.model)).filter((r) => r.rejected)).toEqual([]);
  });

  it("of a turn paused for a client result: ends the turn's stream as cancelled, its call closed", async () => {
    const s = await setup({ tools: [toolA] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_cancel_paused", name: "slow_lookup", input: { q: "a" } }] } },
    ]);
    const paused = await sseFrames(
      await api(`/v1/sessions/${s.session}/messages`, { method: "POST", key: s.key, json: { content: "look" } }),
    );
    const seen = paused[paused.length - 1]?.id as number;
    expect((await apiJson(`/v1/sessions/${s.session}/cancel`, { method: "POST", key: s.key })).status).toBe(200);
    // A client that read the paused stream and resumes from there learns how the turn ended.
    const resumed = await api(`/v1/sessions/${s.session}/stream`, {
      key: s.key,
      headers: { "last-event-id": String(seen) },
    });
    expect(resumed.status).toBe(200);
    const chunks = await uiChunks<{ type: string; toolCallId?: string; data?: { status?: string } }>(resumed);
    expect(chunks.find((c) => c.type === "data-turn")?.data?.status).toBe("cancelled");
    expect(chunks.find((c) => c.type === "tool-output-error")?.toolCallId).toBe("toolu_cancel_paused");
    expect(chunks.slice(-2).map((c) => c.type)).toEqual(["abort", "finish"]);
  });

  it("answers 409 when nothing is running", async () => {
    const s = await setup();
    const res = await apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/cancel`, {
      method: "POST",
      key: s.key,
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("no_active_turn");
  });
});

describe("crash or eviction mid-turn", () => {
  it("marks the turn interrupted, repairs it on wake-up, and accepts the next turn", async () => {
    const s = await setup({ tools: [toolA] });
    const keyTenant = await tenantOfKey(s);
    const running = await stalledAfterToolUse(s);
    const object = stub(s, () => keyTenant);
    await running.body?.cancel().catch(() => {});
    // A crash: the instance is torn down mid-turn, storage survives. (Graceful
    // eviction waits for the turn's open stream, so it cannot interrupt it.)
    await abortAllDurableObjects();
    void object;

    const state = await apiJson<{ status: string; last_turn: { status: string }; pending_tool_calls: unknown[] }>(
      `/v1/sessions/${s.session}`,
      { key: s.key },
    );
    expect(state.body.last_turn.status).toBe("interrupted");
    expect(state.body.status).toBe("failed");
    expect(state.body.pending_tool_calls).toEqual([]);
    expect((await events(s)).map((e) => e.type)).toContain("turn_interrupted");

    await script(s.model, [{ reply: { text: "Recovered." } }]);
    const retry = await apiJson<{ status: string }>(`/v1/sessions/${s.session}/retry`, { method: "POST", key: s.key });
    expect(retry.body.status).toBe("completed");
    expect(pairingProblems(await history(s))).toEqual([]);
    expect((await mockRequests(s.model)).filter((r) => r.rejected)).toEqual([]);
  });

  it("a client reading the interrupted turn's stream gets its status part ahead of the error chunk", async () => {
    const s = await setup({ tools: [toolA] });
    const running = await stalledAfterToolUse(s);
    await running.body?.cancel().catch(() => {});
    await abortAllDurableObjects();
    const state = await apiJson<{ last_turn: { id: string; status: string } }>(`/v1/sessions/${s.session}`, {
      key: s.key,
    });
    expect(state.body.last_turn.status).toBe("interrupted");
    const frames = await uiChunks<{ type: string; data?: { status?: string; turn_id?: string } }>(
      await api(`/v1/sessions/${s.session}/stream?after=0`, { key: s.key }),
    );
    const tail = frames.slice(-3);
    expect(tail.map((c) => c.type)).toEqual(["data-turn", "error", "finish"]);
    expect(tail[0]?.data).toMatchObject({ turn_id: state.body.last_turn.id, status: "interrupted" });
  });

  it("the heartbeat alarm of a fresh instance finds nothing running and stops", async () => {
    const s = await setup({ tools: [toolA] });
    const keyTenant = await tenantOfKey(s);
    const object = stub(s, () => keyTenant);
    const running = await stalledAfterToolUse(s);
    const alarm = await runInDurableObject(object, (_i, state) => state.storage.getAlarm());
    expect(alarm).not.toBeNull();
    await running.body?.cancel().catch(() => {});
    await abortAllDurableObjects();
    expect(await runDurableObjectAlarm(stub(s, () => keyTenant))).toBe(true);
    await expectOnlySweepLeft(stub(s, () => keyTenant));
    const state = await apiJson<{ last_turn: { status: string } }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.last_turn.status).toBe("interrupted");
  });
});

async function tenantOfKey(s: Setup): Promise<string> {
  const row = await env.DB.prepare("SELECT tenant FROM sessions WHERE id = ?")
    .bind(s.session)
    .first<{ tenant: string }>();
  if (!row) throw new Error("session row missing");
  return row.tenant;
}
