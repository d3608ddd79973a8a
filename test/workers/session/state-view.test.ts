// GET /v1/sessions/{id} (src/session/state-view.ts) as a session grows: once its object has read the state, one
// more read costs as many SQLite rows however long the history (the counts and the context estimate are kept in
// memory); the web client polls it while it follows a paused turn. Its context shows the window compaction works to.
import { describe, expect, it } from "vitest";
import type { DebugCounts } from "../../../src/storage/debug-counters";
import { apiJson, overflowNaming, type Setup, seed, sessionStub, setup } from "../helpers";

/** The SQLite rows the session's object read to answer one GET of its state (which must count `turns` turns). */
async function rowsReadByGet(s: Setup, turns: number): Promise<number> {
  const stub = (await sessionStub(s)) as unknown as { debugCounts(): Promise<DebugCounts> };
  const before = (await stub.debugCounts()).sql_rows_read;
  const state = await apiJson<{ turns: number; messages: number }>(`/v1/sessions/${s.session}`, { key: s.key });
  expect(state.body).toMatchObject({ turns, messages: 2 * turns });
  return (await stub.debugCounts()).sql_rows_read - before;
}

describe("GET /v1/sessions/{id}", () => {
  it("reads as many SQLite rows at 2,000 turns as at 50", async () => {
    const rows: number[] = [];
    for (const turns of [50, 2000]) {
      const s = await setup();
      await seed(s, turns);
      await rowsReadByGet(s, turns); // the object's first read of its state counts once
      rows.push(await rowsReadByGet(s, turns));
    }
    expect(rows[0]).toBeGreaterThanOrEqual(0);
    expect(rows[1]).toBe(rows[0]);
  });
});

describe("GET /v1/sessions/{id} context", () => {
  it("shows the window compaction works to: a smaller one the provider named in an overflow error", async () => {
    const s = await setup({}, "openai");
    await overflowNaming(s, 4000);
    const state = await apiJson<{ context: { context_window: number; estimated_tokens: number; used: number } }>(
      `/v1/sessions/${s.session}`,
      { key: s.key },
    );
    expect(state.body.context.context_window).toBe(4000);
    expect(state.body.context.used).toBeCloseTo(state.body.context.estimated_tokens / 4000, 2);
  });
});
