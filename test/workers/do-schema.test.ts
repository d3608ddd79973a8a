// DO schema migrations (src/storage/do-schema.ts) applied to an object created at an earlier version: the
// object's next start brings it to the current schema.
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionStub, setup } from "./helpers";

/** The names of the `runs` table's own indexes (not the primary key's). */
function runsIndexes(sql: SqlStorage): string[] {
  return sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs' AND sql IS NOT NULL ORDER BY name",
    )
    .toArray()
    .map((r) => r.name);
}

describe("DO schema migrations", () => {
  it("v16 replaces runs_open, which no query used, with the open runs' index the run store reads", async () => {
    const s = await setup();
    // The object as it was at v15: v4's runs_open, none of v16.
    await runInDurableObject(await sessionStub(s), (_i, state) => {
      const sql = state.storage.sql;
      state.storage.transactionSync(() => {
        sql.exec("DROP INDEX IF EXISTS runs_open_created");
        sql.exec("CREATE INDEX runs_open ON runs (status) WHERE status IN ('queued', 'running')");
        sql.exec("UPDATE meta SET value = '15' WHERE key = 'schema_version'");
      });
      expect(runsIndexes(sql)).toEqual(["runs_open"]);
    });
    await abortAllDurableObjects();
    await runInDurableObject(await sessionStub(s), (_i, state) => {
      const sql = state.storage.sql;
      expect(runsIndexes(sql)).toEqual(["runs_open_created"]);
      expect(sql.exec("SELECT value FROM meta WHERE key = 'schema_version'").one().value).toBe("16");
    });
  });
});
