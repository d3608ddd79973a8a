/**
 * The session's stores keep some rows in memory so a turn reads fewer (src/session/session-tx.ts): the newest
 * turn and the turn count (TurnStore), whether any call is open, the message count and the view's stored size
 * (HistoryStore), whether any approval exists (ApprovalStore). What
 * they answer must always be what a fresh store reading the tables answers, after their own writes and after a
 * rolled-back session transaction.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { rollsBack, sessionStores, sessionStub, setup } from "./helpers";

type Stores = ReturnType<typeof sessionStores>;

/** What `read` answers from the stores `s` (their in-memory copies) and from fresh stores reading the tables. */
function keptAndFresh<T>(s: Stores, read: (stores: Stores) => T): { kept: T; fresh: T } {
  return { kept: read(s), fresh: read(sessionStores(s.storage)) };
}

const turnOf = (id: string) => ({
  id,
  kind: "message" as const,
  max_steps: 4,
  log_start: 0,
  idempotency_key: null,
  body_hash: null,
});

describe("the newest turn in memory", () => {
  it("follows its own writes: a fresh read answers the same", async () => {
    const stub = await sessionStub(await setup());
    const { kept, fresh } = await runInDurableObject(stub, (_i, state) => {
      const s = sessionStores(state.storage);
      s.turns.create(turnOf("turn_caches_a"));
      s.turns.stepDone("turn_caches_a");
      s.turns.addUsage("turn_caches_a", { input_tokens: 12 });
      s.turns.finish("turn_caches_a", "completed", "end_turn", null);
      return keptAndFresh(s, (x) => x.turns.latest());
    });
    expect(kept).toMatchObject({ id: "turn_caches_a", status: "completed", steps: 1, usage: '{"input_tokens":12}' });
    expect(kept).toEqual(fresh);
  });

  it("a rolled-back session transaction leaves it as the table is", async () => {
    const stub = await sessionStub(await setup());
    const { kept, fresh } = await runInDurableObject(stub, (_i, state) => {
      const s = sessionStores(state.storage);
      s.turns.create(turnOf("turn_caches_b"));
      rollsBack(s, () => {
        s.turns.finish("turn_caches_b", "failed", "error", null);
        s.turns.create(turnOf("turn_caches_c"));
      });
      return {
        kept: [s.turns.latest(), s.turns.get("turn_caches_b")],
        fresh: sessionStores(state.storage).turns.latest(),
      };
    });
    expect(kept[0]).toMatchObject({ id: "turn_caches_b", status: "running" });
    expect(kept[0]).toEqual(fresh);
    expect(kept[1]).toEqual(fresh);
  });

  it("steps and usage a rolled-back session transaction wrote go out with the turn's next write", async () => {
    const stub = await sessionStub(await setup());
    const row = await runInDurableObject(stub, (_i, state) => {
      const s = sessionStores(state.storage);
      s.turns.create(turnOf("turn_caches_e"));
      s.turns.stepDone("turn_caches_e");
      s.turns.addUsage("turn_caches_e", { input_tokens: 7 });
      rollsBack(s, () => s.turns.finish("turn_caches_e", "cancelled", "cancelled", null));
      s.turns.finish("turn_caches_e", "failed", "error", null);
      return sessionStores(state.storage).turns.get("turn_caches_e");
    });
    expect(row).toMatchObject({ status: "failed", steps: 1, usage: '{"input_tokens":7}' });
  });

  it("hands out copies: a caller changing a row does not change the store's", async () => {
    const stub = await sessionStub(await setup());
    const again = await runInDurableObject(stub, (_i, state) => {
      const s = sessionStores(state.storage);
      const row = s.turns.create(turnOf("turn_caches_d"));
      row.status = "failed";
      const read = s.turns.latest();
      if (read) read.status = "cancelled";
      return s.turns.get("turn_caches_d")?.status;
    });
    expect(again).toBe("running");
  });
});

describe("open calls in memory", () => {
  it("a call written after an empty read is open", async () => {
    const stub = await sessionStub(await setup());
    const open = await runInDurableObject(stub, (_i, state) => {
      const s = sessionStores(state.storage);
      expect(s.history.openCalls()).toEqual([]);
      s.history.appendAssistantParts(
        "turn_caches_e",
        null,
        [{ type: "tool_use", id: "toolu_caches_e", name: "get_weather", input: {} }],
        () => "http",
      );
      return { kept: s.history.openCalls().map((c) => c.id), settled: s.history.openCallsSettled() };
    });
    expect(open).toEqual({ kept: ["toolu_caches_e"], settled: false });
  });

  it("a rolled-back close leaves the call open", async () => {
    const stub = await sessionStub(await setup());
    const { kept, fresh } = await runInDurableObject(stub, (_i, state) => {
      const s = sessionStores(state.storage);
      s.history.appendAssistantParts(
        "turn_caches_f",
        null,
        [{ type: "tool_use", id: "toolu_caches_f", name: "get_weather", input: {} }],
        () => "http",
      );
      rollsBack(s, () => {
        s.history.closeOpenCalls({ turnId: "turn_caches_g", reason: "a new message" });
      });
      return keptAndFresh(s, (x) => x.history.openCalls().map((c) => c.id));
    });
    expect(kept).toEqual(["toolu_caches_f"]);
    expect(kept).toEqual(fresh);
  });
});

describe("approvals in memory", () => {
  const approval = (id: string) => ({
    id,
    call_id: `call_${id}`,
    turn_id: "turn_caches_h",
    name: "send_mail",
    input: {},
    reason: "sends mail",
    signature: "sig",
    expires_at: null,
  });

  it("an approval written after an empty read is pending", async () => {
    const stub = await sessionStub(await setup());
    const pending = await runInDurableObject(stub, (_i, state) => {
      const s = sessionStores(state.storage);
      expect(s.approvals.pending()).toEqual([]);
      s.approvals.create(approval("appr_caches_h"));
      return s.approvals.pending().map((a) => a.id);
    });
    expect(pending).toEqual(["appr_caches_h"]);
  });

  it("a rolled-back clear leaves the approval pending", async () => {
    const stub = await sessionStub(await setup());
    const { kept, fresh } = await runInDurableObject(stub, (_i, state) => {
      const s = sessionStores(state.storage);
      s.approvals.create(approval("appr_caches_i"));
      rollsBack(s, () => {
        s.approvals.clear();
      });
      return keptAndFresh(s, (x) => x.approvals.pending().map((a) => a.id));
    });
    expect(kept).toEqual(["appr_caches_i"]);
    expect(kept).toEqual(fresh);
  });
});

describe("the message and turn counts in memory", () => {
  const counts = (x: Stores) => ({ messages: x.history.count(), turns: x.turns.count() });
  /** A one-step text turn `id`, written as a turn writes it. */
  const textTurn = (s: Stores, id: string) => {
    s.turns.create(turnOf(id));
    s.history.closeOpenCalls({ turnId: id, reason: "test", extra: [{ type: "text", text: "hi" }], origin: "client" });
    s.history.appendAssistantParts(id, null, [{ type: "text", text: "hello" }], () => "unknown");
    s.turns.finish(id, "completed", "end_turn", null);
  };

  it("follow their own writes and clear: a fresh read answers the same", async () => {
    const stub = await sessionStub(await setup());
    const seen = await runInDurableObject(stub, (_i, state) => {
      const s = sessionStores(state.storage);
      const before = counts(s);
      textTurn(s, "turn_counts_a");
      textTurn(s, "turn_counts_b");
      const written = keptAndFresh(s, counts);
      s.history.clear();
      s.turns.clear();
      return { before, written, cleared: keptAndFresh(s, counts) };
    });
    expect(seen.before).toEqual({ messages: 0, turns: 0 });
    expect(seen.written.kept).toEqual({ messages: 4, turns: 2 });
    expect(seen.written.kept).toEqual(seen.written.fresh);
    expect(seen.cleared.kept).toEqual({ messages: 0, turns: 0 });
    expect(seen.cleared.kept).toEqual(seen.cleared.fresh);
  });

  it("a rolled-back session transaction leaves them as the tables are", async () => {
    const stub = await sessionStub(await setup());
    const { kept, fresh } = await runInDurableObject(stub, (_i, state) => {
      const s = sessionStores(state.storage);
      textTurn(s, "turn_counts_c");
      counts(s);
      rollsBack(s, () => textTurn(s, "turn_counts_d"));
      return keptAndFresh(s, counts);
    });
    expect(kept).toEqual({ messages: 2, turns: 1 });
    expect(kept).toEqual(fresh);
  });
});

describe("the view's stored size in memory", () => {
  it("follows new messages, a message rewritten and clear: a sum over the table answers the same", async () => {
    const stub = await sessionStub(await setup());
    const seen = await runInDurableObject(stub, (_i, state) => {
      const s = sessionStores(state.storage);
      s.history.messages(); // the view in memory: its size is kept from here on
      s.history.closeOpenCalls({
        turnId: "turn_sizes_a",
        reason: "test",
        extra: [{ type: "text", text: "héllo, 会話" }],
        origin: "client",
      });
      const seq = s.history.appendAssistantParts(
        "turn_sizes_a",
        null,
        [{ type: "text", text: "one" }],
        () => "unknown",
      );
      s.history.appendAssistantParts("turn_sizes_a", seq, [{ type: "text", text: "two 😀" }], () => "unknown");
      const written = keptAndFresh(s, (x) => x.history.viewSize());
      s.history.clear();
      return { written, cleared: keptAndFresh(s, (x) => x.history.viewSize()) };
    });
    expect(seen.written.kept.bytes).toBeGreaterThan(seen.written.kept.chars);
    expect(seen.written.kept).toEqual(seen.written.fresh);
    expect(seen.cleared.kept).toEqual({ bytes: 0, chars: 0 });
    expect(seen.cleared.kept).toEqual(seen.cleared.fresh);
  });
});
