// Message seqs never repeat (clients page history and resume with them): `messages` has no AUTOINCREMENT
// since DO migration v11, so the history store picks each seq above the newest message and above the floor
// a `clear` leaves in meta (src/session/history/history-store.ts).
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { apiJson, history, type Setup, script, send, sessionStub, setup } from "./helpers";

async function clear(s: Setup): Promise<void> {
  expect((await apiJson(`/v1/sessions/${s.session}/clear`, { method: "POST", key: s.key })).status).toBe(200);
}

async function lastSeq(s: Setup): Promise<number> {
  const msgs = await history(s);
  return msgs[msgs.length - 1]?.seq ?? 0;
}

describe("message seqs", () => {
  it("continue above the seqs a clear removed, also after a second clear with nothing in between", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }, { reply: { text: "two" } }, { reply: { text: "three" } }]);
    await send(s, { content: "first" });
    await send(s, { content: "second" });
    const before = await lastSeq(s);
    expect(before).toBe(4);
    await clear(s);
    await clear(s);
    await send(s, { content: "third" });
    expect((await history(s)).map((m) => m.seq)).toEqual([before + 1, before + 2]);
  });

  it("continue above AUTOINCREMENT's sequence after migration v11, even when its newest seqs were deleted", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "one" } }, { reply: { text: "two" } }]);
    await send(s, { content: "first" });
    // The object as it was before v11: messages with AUTOINCREMENT, its sequence at 40, the newest rows deleted.
    await runInDurableObject(await sessionStub(s), (_i, state) => {
      const sql = state.storage.sql;
      state.storage.transactionSync(() => {
        sql.exec("ALTER TABLE messages RENAME TO messages_v11");
        sql.exec(
          "CREATE TABLE messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, role TEXT NOT NULL, origin TEXT NOT NULL, turn_id TEXT, parts TEXT NOT NULL, created_at TEXT NOT NULL)",
        );
        sql.exec("INSERT INTO messages SELECT * FROM messages_v11");
        sql.exec("DROP TABLE messages_v11");
        sql.exec("UPDATE sqlite_sequence SET seq = 40 WHERE name = 'messages'");
        sql.exec("DELETE FROM meta WHERE key = 'messages_floor'");
        sql.exec("UPDATE meta SET value = '10' WHERE key = 'schema_version'");
        // Nor what later versions add (v12 to v18), which the migrations will add again.
        sql.exec("ALTER TABLE loaded_tools DROP COLUMN declared_as");
        sql.exec("ALTER TABLE approvals DROP COLUMN resolved_input");
        sql.exec("ALTER TABLE approvals DROP COLUMN announced");
        sql.exec("ALTER TABLE tool_calls DROP COLUMN announced");
        sql.exec("DROP INDEX runs_open_created");
        sql.exec("ALTER TABLE compactions DROP COLUMN carried_seq");
        sql.exec("ALTER TABLE tool_calls DROP COLUMN cut");
      });
    });
    await abortAllDurableObjects();
    await send(s, { content: "second" });
    expect((await history(s)).map((m) => m.seq)).toEqual([1, 2, 41, 42]);
    await runInDurableObject(await sessionStub(s), (_i, state) => {
      const ddl = state.storage.sql.exec("SELECT sql FROM sqlite_master WHERE name = 'messages'").one().sql;
      expect(String(ddl)).not.toMatch(/AUTOINCREMENT/i);
    });
  });
});
