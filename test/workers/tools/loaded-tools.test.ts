/**
 * The loaded-tool set keeps its rows in memory (src/tools/loaded-tools.ts): what it answers must always be what a
 * fresh read of `loaded_tools` answers, after its own writes and after a rolled-back session transaction.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ApprovalStore } from "../../../src/session/approval-store";
import type { HistoryStore } from "../../../src/session/history/history-store";
import type { SessionTools } from "../../../src/session/session-tools";
import { sessionTx } from "../../../src/session/session-tx";
import { TurnStore } from "../../../src/session/turn/turn-store";
import { LoadedTools } from "../../../src/tools/loaded-tools";
import { sessionStub, setup } from "../helpers";

const snapshot = (l: LoadedTools) => ({ list: l.list(), undeclared: l.undeclared() });

describe("the loaded-tool set in memory", () => {
  it("follows its own writes: a fresh read of the table answers the same", async () => {
    const stub = await sessionStub(await setup());
    const { kept, fresh } = await runInDurableObject(stub, (_i, state) => {
      const loaded = new LoadedTools(state.storage.sql);
      loaded.add(["search_docs", "get_weather", "send_mail"], "test");
      loaded.add(["get_weather", "book_table"], "test");
      loaded.markDeclared(["search_docs", "book_table"]);
      loaded.remove(["get_weather"]);
      return { kept: snapshot(loaded), fresh: snapshot(new LoadedTools(state.storage.sql)) };
    });
    expect(kept).toEqual({ list: ["search_docs", "send_mail", "book_table"], undeclared: ["send_mail"] });
    expect(kept).toEqual(fresh);
  });

  it("a rolled-back session transaction leaves it as the table is", async () => {
    const stub = await sessionStub(await setup());
    const { kept, fresh, historyDropped } = await runInDurableObject(stub, (_i, state) => {
      const loaded = new LoadedTools(state.storage.sql);
      loaded.add(["search_docs"], "test");
      let historyDropped = false;
      const history = { invalidate: () => (historyDropped = true) } as unknown as HistoryStore;
      const tools = { loaded } as unknown as SessionTools;
      const turns = new TurnStore(state.storage.sql);
      const approvals = new ApprovalStore(state.storage.sql, () => "loaded-tools");
      expect(() =>
        sessionTx({ storage: state.storage, history, tools, turns, approvals }, () => {
          loaded.add(["get_weather"], "test");
          loaded.markDeclared(["search_docs"]);
          throw new Error("the tool result could not be written");
        }),
      ).toThrow("the tool result could not be written");
      return { kept: snapshot(loaded), fresh: snapshot(new LoadedTools(state.storage.sql)), historyDropped };
    });
    expect(kept).toEqual({ list: ["search_docs"], undeclared: ["search_docs"] });
    expect(kept).toEqual(fresh);
    expect(historyDropped).toBe(true);
  });

  it("redeclare undeclares a changed declaration, keeps an unchanged one and one it cannot see (server down)", async () => {
    const stub = await sessionStub(await setup());
    const undeclared = await runInDurableObject(stub, (_i, state) => {
      const loaded = new LoadedTools(state.storage.sql);
      loaded.add(["changed", "same", "down"], "test");
      loaded.markDeclared(["changed", "same", "down"], (n) => `digest-${n}`);
      const now: Record<string, string | undefined> = { changed: "digest-new", same: "digest-same" };
      const flipped = loaded.redeclare((n) => now[n]);
      return { flipped, undeclared: loaded.undeclared(), fresh: new LoadedTools(state.storage.sql).undeclared() };
    });
    expect(undeclared).toEqual({ flipped: ["changed"], undeclared: ["changed"], fresh: ["changed"] });
  });
});
