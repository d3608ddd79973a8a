// The run store's queries over open runs read the partial index `runs_open_created` (DO schema v16), so the
// alarm's pass, the queue count and every turn's end read only the open runs, not the 1,000 ended runs a session
// keeps: checked with EXPLAIN QUERY PLAN on the statements RunStore issues (src/session/runs/run-store.ts).
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { RunStore } from "../../../../src/session/runs/run-store";
import { sessionStub, setup, uid } from "../../helpers";

/** A SqlStorage over `sql` that records every statement and its bound values. */
function recording(sql: SqlStorage): { sql: SqlStorage; seen: Array<{ query: string; params: unknown[] }> } {
  const seen: Array<{ query: string; params: unknown[] }> = [];
  const exec = (query: string, ...params: unknown[]) => {
    seen.push({ query, params });
    return sql.exec(query, ...params);
  };
  return { sql: { exec } as unknown as SqlStorage, seen };
}

/** The plan SQLite chooses for the last statement `read` issues through the store, one line per step. */
async function planOf(read: (store: RunStore) => unknown): Promise<string> {
  const s = await setup();
  return runInDurableObject(await sessionStub(s), (_i, state) => {
    const sql = state.storage.sql;
    new RunStore(sql).insert({
      id: uid("run"),
      agent: s.agent,
      input: [{ type: "text", text: "hi" }],
      created_at: new Date().toISOString(),
    });
    const rec = recording(sql);
    read(new RunStore(rec.sql));
    const last = rec.seen[rec.seen.length - 1];
    if (!last) throw new Error("the store issued no statement");
    return sql
      .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${last.query}`, ...last.params)
      .toArray()
      .map((r) => r.detail)
      .join("\n");
  });
}

describe("the run store's queries over open runs", () => {
  it("open() reads the open runs' index in creation order, with no sort", async () => {
    const plan = await planOf((store) => store.open());
    expect(plan).toMatch(/SCAN runs USING INDEX runs_open_created/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
  });

  it("queued() counts from the open runs' index alone", async () => {
    const plan = await planOf((store) => store.queued());
    expect(plan).toBe("SCAN runs USING COVERING INDEX runs_open_created");
  });

  it("unsettled(), asked at every turn's end, reads the open runs' index", async () => {
    const plan = await planOf((store) => store.unsettled());
    expect(plan).toMatch(/SCAN r USING INDEX runs_open_created/);
  });

  it("byTurn() reads the open runs' index", async () => {
    const plan = await planOf((store) => store.byTurn("turn_x"));
    expect(plan).toMatch(/SCAN runs USING INDEX runs_open_created/);
  });
});
