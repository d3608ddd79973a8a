import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ApprovalStore } from "../../src/session/approvals";
import { HistoryStore } from "../../src/session/history/store";
import { SessionTools } from "../../src/session/session-tools";
import { sessionTx } from "../../src/session/session-tx";
import { TurnStore } from "../../src/session/turn/turn-store";
import { sessionStub, setup } from "./helpers";

/**
 * The session's stores keep some rows in memory so a turn reads fewer (src/session/session-tx.ts): the newest
 * turn (TurnStore), whether any call is open (HistoryStore), whether any approval exists (ApprovalStore). What
 * they answer must always be what a fresh store reading the tables answers, after their own writes and after a
 * rolled-back session transaction.
 */

function stores(storage: DurableObjectStorage) {
  const history = new HistoryStore(storage.sql);
  return {
    storage,
    history,
    tools: new SessionTools(storage.sql, history),
    turns: new TurnStore(storage.sql),
    approvals: new ApprovalStore(storage.sql, () => "session-caches"),
  };
}

const turnOf = (id: string) => ({
  id,
  kind: "message" as const,
  max_steps: 4,
  log_start: 0,
  idempotency_key: null,
  body_hash: null,
});
const failing = () => {
  throw new Error("the write after this one failed");
};

describe("the newest turn in memory", () => {
  it("follows its own writes: a fresh read answers the same", async () => {
    const stub = await sessionStub(await setup());
    const { kept, fresh } = await runInDurableObject(stub, (_i, state) => {
      const s = stores(state.storage);
      s.turns.create(turnOf("turn_caches_a"));
      s.turns.stepDone("turn_caches_a");
      s.turns.addUsage("turn_caches_a", { input_tokens: 12 });
      s.turns.finish("turn_caches_a", "completed", "end_turn", null);
      const other = stores(state.storage).turns;
      return { kept: s.turns.latest(), fresh: other.latest() };
    });
    expect(kept).toMatchObject({ id: "turn_caches_a", status: "completed", steps: 1, usage: '{"input_tokens":12}' });
    expect(kept).toEqual(fresh);
  });

  it("a rolled-back session transaction leaves it as the table is", async () => {
    const stub = await sessionStub(await setup());
    const { kept, fresh } = await runInDurableObject(stub, (_i, state) => {
      const s = stores(state.storage);
      s.turns.create(turnOf("turn_caches_b"));
      expect(() =>
        sessionTx(s, () => {
          s.turns.finish("turn_caches_b", "failed", "error", null);
          s.turns.create(turnOf("turn_caches_c"));
          failing();
        }),
      ).toThrow("the write after this one failed");
      return { kept: [s.turns.latest(), s.turns.get("turn_caches_b")], fresh: stores(state.storage).turns.latest() };
    });
    expect(kept[0]).toMatchObject({ id: "turn_caches_b", status: "running" });
    expect(kept[0]).toEqual(fresh);
    expect(kept[1]).toEqual(fresh);
  });

  it("hands out copies: a caller changing a row does not change the store's", async () => {
    const stub = await sessionStub(await setup());
    const again = await runInDurableObject(stub, (_i, state) => {
      const s = stores(state.storage);
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
      const s = stores(state.storage);
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
      const s = stores(state.storage);
      s.history.appendAssistantParts(
        "turn_caches_f",
        null,
        [{ type: "tool_use", id: "toolu_caches_f", name: "get_weather", input: {} }],
        () => "http",
      );
      expect(() =>
        sessionTx(s, () => {
          s.history.closeOpenCalls({ turnId: "turn_caches_g", reason: "a new message" });
          failing();
        }),
      ).toThrow("the write after this one failed");
      return {
        kept: s.history.openCalls().map((c) => c.id),
        fresh: stores(state.storage)
          .history.openCalls()
          .map((c) => c.id),
      };
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
      const s = stores(state.storage);
      expect(s.approvals.pending()).toEqual([]);
      s.approvals.create(approval("appr_caches_h"));
      return s.approvals.pending().map((a) => a.id);
    });
    expect(pending).toEqual(["appr_caches_h"]);
  });

  it("a rolled-back clear leaves the approval pending", async () => {
    const stub = await sessionStub(await setup());
    const { kept, fresh } = await runInDurableObject(stub, (_i, state) => {
      const s = stores(state.storage);
      s.approvals.create(approval("appr_caches_i"));
      expect(() =>
        sessionTx(s, () => {
          s.approvals.clear();
          failing();
        }),
      ).toThrow("the write after this one failed");
      return {
        kept: s.approvals.pending().map((a) => a.id),
        fresh: stores(state.storage)
          .approvals.pending()
          .map((a) => a.id),
      };
    });
    expect(kept).toEqual(["appr_caches_i"]);
    expect(kept).toEqual(fresh);
  });
});
