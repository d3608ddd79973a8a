// The session's alarm side (src/session/session-alarm.ts): the D1 retention cron's poke, `ensureSweep`. An object
// whose state did not load answers it with its startup error, so the cron's walk over the session index counts a miss
// and walks again, where it answered as done and the walk, recorded complete, never came back to it.
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { walkIdleSessions } from "../../../src/retention/cron";
import { apiJson, sessionStub, setup } from "../helpers";

/** The worker's variables with idle expiry off: the suite's own (400 days) is the setting turned on. */
const idleOff = { ...env, SWITCHBOARD_RETENTION_SESSION_IDLE_DAYS: "0" };

/** One whole pass of the walk for the suite's setting, a batch at a time; how many sessions it missed. */
async function pass(): Promise<number> {
  let missed = 0;
  for (;;) {
    const r = await walkIdleSessions(env, 0);
    missed += r.sessions_missed;
    if (!r.sessions_more) return missed;
  }
}

describe("the cron's poke (ensureSweep) at an object whose schema could not be brought up", () => {
  it("is a miss, so the next walk asks the index again", async () => {
    const s = await setup();
    await runInDurableObject(await sessionStub(s), (_i, state) => {
      state.storage.sql.exec("UPDATE meta SET value = '0' WHERE key = 'schema_version'");
    });
    await abortAllDurableObjects();
    try {
      // The setting off clears the walk's record: the setting on is new again.
      await walkIdleSessions(idleOff);
      expect(await pass()).toBeGreaterThan(0);
      expect((await walkIdleSessions(env, 0)).sessions_checked).toBeGreaterThan(0);
    } finally {
      expect((await apiJson(`/v1/sessions/${s.session}`, { method: "DELETE", key: s.key })).status).toBe(200);
    }
  });
});
