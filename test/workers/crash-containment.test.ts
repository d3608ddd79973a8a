// One exception must stay where it happened: a throw inside a tool's execution is that call's is_error
// result, and a throw while a turn writes its own end still tells the session the turn stopped, so the
// next request is not refused as turn_in_progress. Faults are injected by patching a prototype the
// session object shares with this test (same isolate), and restored after each test.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { EventLog } from "../../src/observability/event-log";
import { HistoryStore } from "../../src/session/history/history-store";
import { RunStore } from "../../src/session/runs/run-store";
import { SessionTools } from "../../src/session/session-tools";
import { TurnStore } from "../../src/session/turn/turn-store";
import {
  api,
  apiJson,
  clientTool,
  history,
  pairingProblems,
  patch,
  restorePatches,
  type Setup,
  script,
  send,
  setup,
  uiChunks,
  uid,
} from "./helpers";

afterEach(restorePatches);

/** The first event of `type` fails to write (once); `thrown` says whether it did. */
function failFirstEvent(type: string): { thrown: boolean } {
  const record = EventLog.prototype.record;
  const failed = { thrown: false };
  patch(EventLog.prototype, "record", function (this: EventLog, ...args: Parameters<EventLog["record"]>) {
    if (args[0] === type && !failed.thrown) {
      failed.thrown = true;
      throw new Error("event write failed");
    }
    return record.apply(this, args);
  } as EventLog["record"]);
  return failed;
}

/** Every write of the result of call `id` fails. */
function failResultWrite(id: string): void {
  const storeResult = HistoryStore.prototype.storeResult;
  patch(HistoryStore.prototype, "storeResult", function (this: HistoryStore, callId, state, content, isError) {
    if (callId === id) throw new Error("result write failed");
    return storeResult.call(this, callId, state, content, isError);
  });
}

/** The next completed turn's end row fails to write (once); `thrown` says whether it did. */
function failFirstCompletedEnd(): { thrown: boolean } {
  const failed = { thrown: false };
  const finish = TurnStore.prototype.finish;
  patch(TurnStore.prototype, "finish", function (this: TurnStore, id, status, reason, error) {
    if (!failed.thrown && status === "completed") {
      failed.thrown = true;
      throw new Error("turn write failed");
    }
    return finish.call(this, id, status, reason, error);
  });
  return failed;
}

async function waitEnded(s: Setup): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const state = await apiJson<{ last_turn: { status: string } | null }>(`/v1/sessions/${s.session}`, { key: s.key });
    const status = state.body.last_turn?.status;
    if (status && status !== "running") return status;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("the turn never ended");
}

describe("a throw inside a tool's execution", () => {
  it("becomes that call's is_error result and the turn goes on", async () => {
    const s = await setup({ tools: [{ ...clientTool("hidden_tool"), defer: true }] });
    patch(SessionTools.prototype, "index", () => {
      throw new Error("search index exploded");
    });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_boom", name: "tool_search", input: { query: "hidden" } }] } },
      { reply: { text: "Search is broken, sorry." } },
    ]);
    const res = await send(s, { content: "find it" });
    expect(res.body.status).toBe("completed");
    const msgs = await history(s);
    const result = msgs.flatMap((m) => m.parts).find((p) => p.type === "tool_result");
    expect(result).toMatchObject({ tool_use_id: "toolu_boom", is_error: true });
    expect(String(result?.content)).toContain("internal error");
    expect(pairingProblems(msgs)).toEqual([]);
  });
});

describe("a throw after a tool's result was stored", () => {
  it("streams that call's output once, the real one, not a second internal-error output", async () => {
    const s = await setup({
      tools: [
        {
          name: "lookup_once",
          description: "deferred http tool",
          input_schema: { type: "object", properties: { q: { type: "string" } } },
          defer: true,
          execution: { type: "http", url: `${env.MOCK_URL}/_tool` },
        },
      ],
    });
    const failed = failFirstEvent("tools_loaded");
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_once", name: "lookup_once", input: { q: "x" } }] } },
      { reply: { text: "Found." } },
    ]);
    const res = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "go" },
    });
    const outputs = (await uiChunks<{ type: string; toolCallId?: string; output?: unknown }>(res)).filter(
      (c) => c.type.startsWith("tool-output") && c.toolCallId === "toolu_once",
    );
    expect(failed.thrown).toBe(true);
    expect(outputs).toHaveLength(1);
    expect(JSON.stringify(outputs[0]?.output)).not.toContain("internal error");
    expect(pairingProblems(await history(s))).toEqual([]);
  });
});

describe("a failed read while a turn's end arms the alarm", () => {
  it("still answers the turn as JSON, and the next message is taken", async () => {
    const s = await setup();
    let failed = 0;
    // Read only once no runner is active: at the turn's end, when the scheduler asks whether runs need a re-check.
    patch(RunStore.prototype, "unsettled", () => {
      failed++;
      throw new Error("storage read failed");
    });
    await script(s.model, [{ reply: { text: "First." } }, { reply: { text: "Second." } }]);
    const first = await send(s, { content: "one" });
    expect(failed).toBeGreaterThan(0);
    expect(first.body.status).toBe("completed");
    const second = await send(s, { content: "two" });
    expect(second.body.status).toBe("completed");
  });
});

describe("a throw while a turn writes its end", () => {
  it("still releases the session: clear and the next message are not turn_in_progress", async () => {
    const s = await setup();
    let target: string | null = null;
    const record = EventLog.prototype.record;
    patch(EventLog.prototype, "record", function (this: EventLog, type, turnId, data) {
      if (type === "turn_finished" && (target === null || target === turnId)) {
        target = turnId;
        throw new Error("event write failed");
      }
      return record.call(this, type, turnId, data);
    });
    await script(s.model, [{ reply: { text: "First." } }, { reply: { text: "Second." } }]);
    const first = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "one" },
    });
    expect(first.status).toBe(200);
    // The stream of the crashed turn still ends.
    await first.text();
    expect(await waitEnded(s)).not.toBe("running");
    const second = await send(s, { content: "two" });
    expect(second.status).toBe(201);
    expect(second.body.status).toBe("completed");
    const clear = await apiJson(`/v1/sessions/${s.session}/clear`, { method: "POST", key: s.key });
    expect(clear.status).toBe(200);
  });
});

describe("a throw while a completed turn writes its turn_finished event", () => {
  it("still ends the turn's stream with its status part and finish", async () => {
    const s = await setup();
    const failed = failFirstEvent("turn_finished");
    await script(s.model, [{ reply: { text: "Done." } }]);
    const res = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "go" },
    });
    const chunks = await uiChunks<{ type: string; data?: { status?: string } }>(res);
    expect(failed.thrown).toBe(true);
    expect(chunks.slice(-2).map((c) => c.type)).toEqual(["data-turn", "finish"]);
    expect(chunks.at(-2)?.data?.status).toBe("completed");
  });
});

describe("a throw while a turn's admission writes its events", () => {
  it("still starts the admitted turn, which completes; nothing waits on it", async () => {
    const s = await setup();
    const failed = failFirstEvent("turn_started");
    await script(s.model, [{ reply: { text: "First." } }, { reply: { text: "Second." } }]);
    const first = await send(s, { content: "one" });
    expect(failed.thrown).toBe(true);
    expect([first.status, first.body.status]).toEqual([201, "completed"]);
    expect((await send(s, { content: "two" })).body.status).toBe("completed");
  });
});

describe("a turn left running with no runner (its start failed after the admission committed)", () => {
  it("is ended by the next message, which runs instead of being refused as turn_in_progress", async () => {
    const s = await setup();
    const hold = EventLog.prototype.hold;
    let thrown = false;
    patch(EventLog.prototype, "hold", function (this: EventLog) {
      if (!thrown) {
        thrown = true;
        throw new Error("start failed");
      }
      return hold.call(this);
    });
    await script(s.model, [{ reply: { text: "Only this one runs." } }]);
    const first = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "one" },
      headers: { accept: "application/json" },
    });
    expect(first.status).toBe(500);
    await first.text();
    const orphan = await apiJson<{ last_turn: { status: string } }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(orphan.body.last_turn.status).toBe("running");
    const second = await send(s, { content: "two" });
    expect([second.status, second.body.status]).toEqual([201, "completed"]);
    const msgs = await history(s);
    expect(msgs.filter((m) => m.role === "user")).toHaveLength(2);
    expect(pairingProblems(msgs)).toEqual([]);
    const turns = (
      await apiJson<{ events: Array<{ type: string; data: Record<string, unknown> }> }>(
        `/v1/sessions/${s.session}/events`,
        { key: s.key },
      )
    ).body.events.filter((e) => e.type === "turn_finished");
    expect(turns.map((e) => e.data.status)).toEqual(["failed", "completed"]);
  });
});

describe("a throw while a turn writes its own end row", () => {
  it("reports one end, the true one: a single turn_finished (failed), not a completed one first", async () => {
    const s = await setup();
    const failed = failFirstCompletedEnd();
    await script(s.model, [{ reply: { text: "Done, but not written." } }]);
    const res = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "go" },
    });
    const streamed = await res.text();
    expect(failed.thrown).toBe(true);
    expect(await waitEnded(s)).toBe("failed");
    const events = await apiJson<{ events: Array<{ type: string; data: Record<string, unknown> }> }>(
      `/v1/sessions/${s.session}/events`,
      { key: s.key },
    );
    const ends = events.body.events.filter((e) => e.type === "turn_finished");
    expect(ends.map((e) => e.data.status)).toEqual(["failed"]);
    expect(streamed.match(/"type":"finish"/g)?.length ?? 0).toBeLessThanOrEqual(1);
  });

  it("ends the live stream with that failure: its status part, the error and the finish reach the client", async () => {
    const s = await setup();
    const failed = failFirstCompletedEnd();
    await script(s.model, [{ reply: { text: "Done, but not written." } }]);
    const res = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "go" },
    });
    const chunks = await uiChunks<{ type: string; data?: { status?: string } }>(res);
    expect(failed.thrown).toBe(true);
    expect(chunks.slice(-3).map((c) => c.type)).toEqual(["data-turn", "error", "finish"]);
    expect(chunks.at(-3)?.data?.status).toBe("failed");
  });
});

describe("a throw in the retention sweep after a turn's own end write failed", () => {
  it("still ends the turn (failed): it is not left running with no runner", async () => {
    const s = await setup();
    const failed = failFirstCompletedEnd();
    const sweep = EventLog.prototype.sweep;
    let swept = false;
    patch(EventLog.prototype, "sweep", function (this: EventLog) {
      if (swept) return sweep.call(this);
      swept = true;
      throw new Error("sweep failed");
    });
    await script(s.model, [{ reply: { text: "Done, but not written." } }]);
    const res = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "go" },
    });
    await res.text();
    expect([failed.thrown, swept]).toEqual([true, true]);
    expect(await waitEnded(s)).toBe("failed");
  });
});

type ToolStats = { written: number; hung_up: boolean };

/** Polls the mock tool endpoint until the call tagged `tag` was answered or the client hung up. */
async function endpointOutcome(tag: string): Promise<ToolStats | null> {
  let stats: ToolStats | null = null;
  for (let i = 0; i < 300; i++) {
    stats = (await (await fetch(`${env.MOCK_URL}/_tool/stats?tag=${tag}`)).json()) as ToolStats | null;
    if (stats && (stats.hung_up || stats.written > 0)) return stats;
    await new Promise((r) => setTimeout(r, 20));
  }
  return stats;
}

describe("a turn that fails while its step waits for an approval", () => {
  it("declines that approval with the turn: nothing is left open to decide", async () => {
    const gated = {
      name: "charge_card",
      description: "charges a card",
      input_schema: { type: "object", properties: { q: { type: "string" } } },
      execution: { type: "http", url: `${env.MOCK_URL}/_callback/${uid("charge")}` },
      requires_approval: true,
    };
    const quick = { ...gated, name: "quick_check", execution: { type: "http", url: `${env.MOCK_URL}/_tool` } };
    const { requires_approval: _r, ...unGated } = quick;
    const s = await setup({ tools: [gated, unGated] });
    failResultWrite("toolu_fx_quick");
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "toolu_fx_charge", name: "charge_card", input: { q: "9" } },
            { id: "toolu_fx_quick", name: "quick_check", input: { q: "1" } },
          ],
        },
      },
    ]);
    const res = await send(s, { content: "check, then charge" });
    expect(res.body.status).toBe("failed");
    const state = await apiJson<{ pending_approvals: unknown[] }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.pending_approvals).toEqual([]);
    const events = await apiJson<{ events: Array<{ type: string; data: Record<string, unknown> }> }>(
      `/v1/sessions/${s.session}/events`,
      { key: s.key },
    );
    const declined = events.body.events.filter((e) => e.type === "approval_declined");
    expect(declined.map((e) => [e.data.tool_use_id, e.data.by])).toEqual([["toolu_fx_charge", "failure"]]);
  });
});

describe("a turn that fails during its tool phase", () => {
  it("aborts its sibling calls", async () => {
    const tag = uid("sibling");
    const slow = {
      name: "slow_charge",
      description: "a slow server-side call",
      input_schema: { type: "object", properties: { q: { type: "string" } } },
      execution: { type: "http", url: `${env.MOCK_URL}/_tool?delay_ms=1500&tag=${tag}` },
    };
    const quick = {
      ...slow,
      name: "quick_check",
      execution: { type: "http", url: `${env.MOCK_URL}/_tool?delay_ms=300` },
    };
    const s = await setup({ tools: [slow, quick] });
    failResultWrite("toolu_unwritable");
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "toolu_slow", name: "slow_charge", input: { q: "1" } },
            { id: "toolu_unwritable", name: "quick_check", input: { q: "2" } },
          ],
        },
      },
    ]);
    const res = await send(s, { content: "go" });
    expect(res.body.status).toBe("failed");
    expect(res.body.error?.code).toBe("internal_error");
    expect(await endpointOutcome(tag)).toEqual({ hung_up: true, written: 0 });
  });
});
