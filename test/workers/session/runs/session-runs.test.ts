// A webhook run's outcome as its session concludes it (src/session/runs/session-runs.ts): a run queued with a
// json_schema the worker accepted then, and no longer accepts when the run starts (a deploy in between refused its
// lookahead pattern), fails with its turn's invalid_schema, and its callback says run.failed, not run.completed.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Session } from "../../../../src/session/session";
import { queueRun, script, uid } from "../../helpers";
import { type Delivery, deliveries, runSetup, runStub, sessionWithQueuedRuns } from "../../runs-helpers";

const LOOKAHEAD = {
  type: "object",
  properties: { code: { type: "string", pattern: "^(?=.*\\d).{8,}$" } },
  required: ["code"],
};

/** The first callback delivered to the mock's endpoint `name`, waited for up to 30 s (as `waitRun` waits). */
async function firstDelivery(name: string): Promise<Delivery> {
  const until = Date.now() + 30_000;
  for (;;) {
    const [first] = await deliveries(name);
    if (first) return first;
    if (Date.now() > until) throw new Error(`no callback delivered to ${name}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("a queued run whose stored json_schema is no longer accepted", () => {
  it("fails with invalid_schema, naming why, and its callback is run.failed", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "A code, in plain text." } }]);
    const session_id = await sessionWithQueuedRuns(s, []);
    const run = uid("run_stale_schema");
    const name = uid("cb-stale-schema");
    await runInDurableObject(runStub(s, session_id), async (instance: Session, state) => {
      queueRun(state.storage.sql, run, s.agent, "get a code", {
        json_schema: JSON.stringify(LOOKAHEAD),
        callback_url: `${env.MOCK_URL}/_callback/${name}`,
      });
      await instance.alarm();
    });
    const body = JSON.parse((await firstDelivery(name)).body) as {
      type: string;
      data: { run_id: string; error?: { code: string; message: string } };
    };
    expect([body.type, body.data.run_id, body.data.error?.code]).toEqual(["run.failed", run, "invalid_schema"]);
    expect(body.data.error?.message).toBe(
      'the turn\'s json_schema is no longer accepted: "pattern" at /properties/code: "^(?=.*\\\\d).{8,}$" has a ' +
        "lookahead ((?= or (?!), which the linear-time regex engine cannot run",
    );
  });
});
