// The alarm's jobs (src/session/jobs.ts): a job that throws is logged as `job_failed` with its kind and ref, the
// same line for every kind of job; here an approval's expiry, which concerns any session, not only a webhook run's.
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { Session } from "../../../src/session/session";
import { recordedTool, script, send, sessionStub, setup, uid } from "../helpers";

/** Makes the object's D1 reads of an agent's config fail, as an unreachable D1 would; returns the undo. */
function failAgentReads(instance: Session): () => void {
  const db = (instance as unknown as { env: { DB: D1Database } }).env.DB;
  const prepare = db.prepare;
  db.prepare = (query: string) => {
    if (query.includes("FROM agents WHERE name")) throw new Error("D1_ERROR: unreachable");
    return prepare.call(db, query);
  };
  return () => {
    db.prepare = prepare;
  };
}

describe("an approval's expiry job that throws", () => {
  it("is logged as job_failed with kind approval and the approval's id as its ref", async () => {
    const s = await setup({ tools: [recordedTool("charge_card", uid("charge"))], approval_ttl_s: 60 });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_job_failed", name: "charge_card", input: { amount: 8 } }] } },
    ]);
    const paused = await send(s, { content: "charge 8" });
    expect(paused.body.status).toBe("awaiting_approval");
    const approvalId = (paused.body as unknown as { pending_approvals: Array<{ approval_id: string }> })
      .pending_approvals[0]?.approval_id;
    // The expiry due now, and no copy of the agent in the object: the job reads the agent from D1.
    await runInDurableObject(await sessionStub(s), (_i, state) => {
      state.storage.sql.exec("UPDATE jobs SET due_at = 0 WHERE kind = 'approval'");
      state.storage.sql.exec("DELETE FROM agent_config");
    });
    await abortAllDurableObjects();
    const lines = await runInDurableObject(await sessionStub(s), async (instance: Session) => {
      const undo = failAgentReads(instance);
      const errors = vi.spyOn(console, "error");
      try {
        await instance.alarm();
        return errors.mock.calls.map((c) => JSON.parse(String(c[0])) as Record<string, unknown>);
      } finally {
        errors.mockRestore();
        undo();
      }
    });
    expect(lines.filter((l) => l.msg === "job_failed" || l.msg === "run_job_failed")).toEqual([
      expect.objectContaining({ msg: "job_failed", kind: "approval", ref: approvalId }),
    ]);
  });
});
