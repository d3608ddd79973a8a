/**
 * A run's hand-over to its session (src/runs/admission.ts `handToSession`) against a create of the same id: a run
 * that finds the index row a create wrote, and creates the session once that create, its init failed with no
 * session, gave the row up (Session.abandonCreate), writes the row again, so the session it created is listed; when
 * D1 fails that write the run, queued, is answered 503 and its retry writes the row (README "Route by name").
 */
import { afterEach, describe, expect, it } from "vitest";
import { Session } from "../../../src/session/session";
import { outage } from "../d1-outage";
import { withEnv } from "../env-app";
import { apiJson, gate, listedIds, patch, restorePatches, script, uid } from "../helpers";
import { type RunSetup, runSetup, signedRun } from "../runs-helpers";

/** The upsert that makes an index row describe a session (src/d1/sessions.ts `upsertSessionRow`). */
const isRowUpsert = (query: string) => query.includes("INSERT INTO sessions") && query.includes("DO UPDATE");

/**
 * A create of `id` by `s`'s key whose init fails (no session made) once `send` has sent a run naming `id` and that
 * run reached the object (its insert found the create's row); the run's enqueueRun goes on once the create was
 * answered, its row given up. The create's status and the run's answer.
 */
async function runAfterAbandonedCreate(
  s: RunSetup,
  id: string,
  send: () => Promise<Response>,
): Promise<{ create: number; run: Response }> {
  const createAtInit = gate();
  const runAtObject = gate();
  const createAnswered = gate();
  patch(Session.prototype, "init", async () => {
    createAtInit.open();
    await runAtObject.opened;
    throw new Error("the create's init failed");
  });
  const enqueueRun = Session.prototype.enqueueRun;
  patch(Session.prototype, "enqueueRun", async function (this: Session, ...args: Parameters<Session["enqueueRun"]>) {
    runAtObject.open();
    await createAnswered.opened;
    return enqueueRun.apply(this, args);
  });
  const created = apiJson("/v1/sessions", { method: "POST", key: s.key, json: { agent: s.agent, id } });
  await createAtInit.opened;
  const run = send();
  const create = (await created).status;
  createAnswered.open();
  return { create, run: await run };
}

/** A run of `s`'s agent sent with its API key and `Idempotency-Key` `key`, `withEnv`'s `vars` in force. */
function keyedRun(s: RunSetup, key: string, body: unknown, vars: Parameters<typeof withEnv>[0] = {}) {
  return withEnv(vars, `/v1/agents/${s.agent}/runs`, {
    method: "POST",
    headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json", "idempotency-key": key },
    body: JSON.stringify(body),
  });
}

describe("a run that finds the row of a create whose init then fails", () => {
  afterEach(restorePatches);

  it("leaves the session it created listed", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "done" } }]);
    const id = uid("ses_run_row");
    const { create, run } = await runAfterAbandonedCreate(s, id, () => signedRun(s, { input: "hi", session_id: id }));
    expect([create, run.status]).toEqual([500, 202]);
    expect(await listedIds(s)).toContain(id);
  });

  it("answers 503 when D1 fails the row's write, and its retry leaves the queued run's session listed", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "done" } }]);
    const id = uid("ses_run_row_down");
    const key = uid("k-row");
    const body = { input: "hi", session_id: id };
    const { create, run } = await runAfterAbandonedCreate(s, id, () =>
      keyedRun(s, key, body, { DB: outage(isRowUpsert).db }),
    );
    expect([create, run.status]).toEqual([500, 503]);
    restorePatches();
    const retry = await keyedRun(s, key, body);
    expect([retry.status, retry.headers.get("x-run-replayed")]).toEqual([202, "true"]);
    expect(await listedIds(s)).toContain(id);
  });
});
