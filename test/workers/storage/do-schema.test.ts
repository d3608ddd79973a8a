// The Session object's migrations (src/storage/do-schema.ts) run on an object an earlier version stored: the
// object's next start brings it to the current schema.
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  clientTool,
  events,
  itemsText,
  script,
  send,
  sessionStub,
  setup,
  takeAfterClientResult,
  takeTool,
  uid,
} from "../helpers";
import { deliveries } from "../runs-helpers";

/** The names of the `runs` table's own indexes (not the primary key's). */
function runsIndexes(sql: SqlStorage): string[] {
  return sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs' AND sql IS NOT NULL ORDER BY name",
    )
    .toArray()
    .map((r) => r.name);
}

describe("migration v16 (the open runs' index)", () => {
  it("replaces runs_open, which no query used, with the open runs' index the run store reads", async () => {
    const s = await setup();
    // The object as it was at v15: v4's runs_open, none of v16, v17 or v18 (each later one runs again too).
    const current = await runInDurableObject(await sessionStub(s), (_i, state) => {
      const sql = state.storage.sql;
      const version = sql.exec("SELECT value FROM meta WHERE key = 'schema_version'").one().value;
      state.storage.transactionSync(() => {
        sql.exec("DROP INDEX IF EXISTS runs_open_created");
        sql.exec("CREATE INDEX runs_open ON runs (status) WHERE status IN ('queued', 'running')");
        sql.exec("ALTER TABLE compactions DROP COLUMN carried_seq");
        sql.exec("ALTER TABLE tool_calls DROP COLUMN cut");
        sql.exec("UPDATE meta SET value = '15' WHERE key = 'schema_version'");
      });
      expect(runsIndexes(sql)).toEqual(["runs_open"]);
      return version;
    });
    await abortAllDurableObjects();
    await runInDurableObject(await sessionStub(s), (_i, state) => {
      const sql = state.storage.sql;
      expect(runsIndexes(sql)).toEqual(["runs_open_created"]);
      expect(sql.exec("SELECT value FROM meta WHERE key = 'schema_version'").one().value).toBe(current);
    });
  });
});

describe("migration v18 (tool_calls.cut)", () => {
  it("marks a result cut for storage before it, so a $tool reference to that result is refused", async () => {
    const recorder = uid("take-v18");
    const s = await setup({ tools: [clientTool("c_big"), takeTool(recorder)] });
    await takeAfterClientResult(s, "toolu_v18_big", itemsText(4000), []);
    // The object as v17 left it: the result stored cut, with no column saying so.
    await runInDurableObject(await sessionStub(s), (_i, state) => {
      state.storage.transactionSync(() => {
        state.storage.sql.exec("ALTER TABLE tool_calls DROP COLUMN cut");
        state.storage.sql.exec("UPDATE meta SET value = '17' WHERE key = 'schema_version'");
      });
    });
    await abortAllDurableObjects();
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_v18_take", name: "take", input: { data: { $tool: "toolu_v18_big" } } }] } },
      { reply: { text: "done" } },
    ]);
    expect((await send(s, { content: "pass it on" })).body.status).toBe("completed");
    const invalid = (await events(s)).filter((e) => e.type === "tool_call_invalid");
    expect(invalid.map((e) => e.data.tool_use_id)).toEqual(["toolu_v18_take"]);
    expect(invalid[0]?.data.errors).toEqual([expect.stringContaining("the result of toolu_v18_big was cut")]);
    expect(await deliveries(recorder)).toEqual([]);
  });
});
