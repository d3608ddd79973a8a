/**
 * The session object's calls that need D1 for the worker (src/session/session.ts): a re-read of its changed agent
 * that D1 fails refuses the call `database_unavailable` (503 with Retry-After, docs/API.md "Errors"), where it threw
 * into a 500.
 */
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { Session } from "../../../src/session/session";
import { api, patch, putAgentOf, restorePatches, sessionStub, setup } from "../helpers";

/** A statement of a D1 that cannot be reached: its calls reject as a lost connection's. */
const unreachable = {
  bind: () => unreachable,
  first: async () => {
    throw new Error("D1_ERROR: Network connection lost.");
  },
};

describe("a call whose re-read of its agent D1 fails", () => {
  afterEach(restorePatches);

  it("a state read answers 503 database_unavailable with Retry-After", async () => {
    const s = await setup();
    // Warm: the worker's key and agent news are cached, the object holds its copy of the agent.
    expect((await api(`/v1/sessions/${s.session}`, { key: s.key })).status).toBe(200);
    expect((await putAgentOf(s, s.agent, "You are the reconfigured agent.")).status).toBe(200);
    await runInDurableObject(await sessionStub(s), (instance: Session) => {
      const db = (instance as unknown as { env: { DB: D1Database } }).env.DB;
      const prepare = db.prepare;
      patch(db, "prepare", ((query: string) =>
        query.includes("FROM agents WHERE name = ?) AS config")
          ? unreachable
          : prepare.call(db, query)) as unknown as D1Database["prepare"]);
    });
    const res = await api(`/v1/sessions/${s.session}`, { key: s.key });
    const { error } = (await res.json()) as { error: { code: string } };
    expect([res.status, error.code, res.headers.get("retry-after")]).toEqual([503, "database_unavailable", "5"]);
  });
});
