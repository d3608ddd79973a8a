// Runs (POST /v1/agents/{agent}/runs): webhook signatures, idempotency by webhook-id, a run's lifecycle and
// callbacks, bearer-authenticated runs, and the cap on queued runs.
import { createScheduledController, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/crypto/sha256";
import { OPENAPI } from "../../src/http/openapi";
import worker from "../../src/index";
import { MAX_QUEUED_RUNS } from "../../src/session/runs/types";
import type { Session } from "../../src/session/session";
import { STRUCTURED_RESULT_BUDGET_BYTES } from "../../src/storage/limits";
import {
  ADMIN,
  api,
  apiJson,
  fillStreamPlaces,
  mockRequests,
  queueRun,
  readRest,
  script,
  tenantKey,
  uid,
} from "./helpers";
import {
  d1Runs,
  deliveries,
  ended,
  getRun,
  newSecret,
  runSetup,
  runStub,
  sessionWithQueuedRuns,
  signedRun,
  waitRun,
} from "./runs-helpers";

interface Accepted {
  run_id: string;
  session_id: string;
  status: string;
}

async function accepted(res: Response): Promise<Accepted> {
  const text = await res.text();
  expect(res.status, text).toBe(202);
  return JSON.parse(text) as Accepted;
}

async function refused(res: Response, code = "invalid_signature"): Promise<string> {
  expect(res.status).toBe(401);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  return body.error.message;
}

describe("signature verification", () => {
  it("accepts a valid signature and runs the agent", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "Hello from the run." } }]);
    const a = await accepted(await signedRun(s, { input: "say hello" }));
    expect(a.status).toBe("queued");
    expect(a.run_id).toMatch(/^run_/);
    const run = await waitRun(s, a.run_id, ended);
    expect(run.status).toBe("completed");
    expect(run.result?.output).toBe("Hello from the run.");
    expect(run.session_id).toBe(a.session_id);
    // The session was created for the run, in the agent's webhook tenant: its key reads the history.
    const msgs = await apiJson<{ messages: Array<{ role: string }> }>(`/v1/sessions/${a.session_id}/messages`, {
      key: s.key,
    });
    expect(msgs.body.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("refuses a tampered body, a wrong secret, stale and future timestamps with 401 and changes nothing", async () => {
    const s = await runSetup();
    const now = Math.floor(Date.now() / 1000);
    const body = { input: "x" };
    await refused(await signedRun(s, body, { body: JSON.stringify({ input: "y" }) }));
    await refused(await signedRun(s, body, { secret: newSecret() }));
    expect(await refused(await signedRun(s, body, { ts: now - 6 * 60 }))).toContain("old");
    expect(await refused(await signedRun(s, body, { ts: now + 6 * 60 }))).toContain("future");
    await refused(await signedRun(s, body, { ts: now - 6 * 60, secret: newSecret() }));
    const unsigned = await api(`/v1/agents/${s.agent}/runs`, { method: "POST", json: body });
    await refused(unsigned, "unauthorized");
    expect(await d1Runs(s.agent)).toBe(0);
    expect((await mockRequests(s.model)).length).toBe(0);
    const sessions = await apiJson<{ sessions: unknown[] }>("/v1/sessions", { key: s.key });
    expect(sessions.body.sessions).toEqual([]);
  });

  it("accepts either secret while two are configured (rotation)", async () => {
    const oldSecret = newSecret();
    const newOne = newSecret();
    const s = await runSetup([newOne, oldSecret]);
    await script(s.model, [{ reply: { text: "a" } }, { reply: { text: "b" } }]);
    await accepted(await signedRun(s, { input: "one" }, { secret: oldSecret }));
    await accepted(await signedRun(s, { input: "two" }, { secret: newOne }));
    await refused(await signedRun(s, { input: "three" }, { secret: newSecret() }));
    expect(await d1Runs(s.agent)).toBe(2);
  });

  it("answers an unknown agent, one without secrets and one with secrets alike, so agents cannot be enumerated", async () => {
    const secret = newSecret();
    const withSecrets = await runSetup();
    const withoutSecrets = await runSetup([]);
    const unknown = { ...withSecrets, agent: uid("agent-missing") };
    const messages = [];
    for (const s of [withSecrets, withoutSecrets, unknown]) {
      messages.push(await refused(await signedRun(s, { input: "x" }, { secret })));
    }
    expect(new Set(messages).size).toBe(1);
  });

  it("refuses signed requests for an agent without secrets", async () => {
    const s = await runSetup([]);
    await refused(await signedRun(s, { input: "x" }, { secret: newSecret() }));
  });
});

describe("idempotency by webhook-id", () => {
  it("returns the same run for a repeated webhook-id and runs it once", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "once" } }]);
    const id = uid("msg");
    const first = await accepted(await signedRun(s, { input: "hi" }, { id }));
    await waitRun(s, first.run_id, ended);
    const again = await signedRun(s, { input: "hi" }, { id });
    expect(again.headers.get("x-run-replayed")).toBe("true");
    const second = await accepted(again);
    expect(second.run_id).toBe(first.run_id);
    expect(second.session_id).toBe(first.session_id);
    expect(second.status).toBe("completed");
    expect(await d1Runs(s.agent)).toBe(1);
    expect((await mockRequests(s.model)).length).toBe(1);
  });

  it("does not run again a repeated webhook-id whose run its session has swept (404, as GET answers)", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "once" } }, { reply: { text: "twice" } }]);
    const id = uid("msg");
    const name = uid("cb-replay");
    const body = { input: "hi", callback_url: `${env.MOCK_URL}/_callback/${name}` };
    const first = await accepted(await signedRun(s, body, { id }));
    await waitRun(s, first.run_id, (r) => r.callback?.status === "delivered");
    // The session's retention (or its RUNS_KEPT cap) removes the ended run; its D1 record lives on.
    await runInDurableObject(runStub(s, first.session_id), (_i, state) => {
      state.storage.sql.exec("DELETE FROM run_callbacks WHERE run_id = ?", first.run_id);
      state.storage.sql.exec("DELETE FROM runs WHERE id = ?", first.run_id);
    });
    const again = await signedRun(s, body, { id });
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("not_found");
    const get = await apiJson<{ error: { message: string } }>(`/v1/runs/${first.run_id}`, { key: s.key });
    expect(get.status).toBe(404);
    const held = await runInDurableObject(runStub(s, first.session_id), (_i, state) =>
      state.storage.sql.exec("SELECT count(*) AS n FROM runs").one(),
    );
    expect(held.n).toBe(0);
    expect((await mockRequests(s.model)).length).toBe(1);
    expect((await deliveries(name)).length).toBe(1);
  });

  it("does not run again a webhook replayed after its session was deleted (404, nothing run)", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "once" } }, { reply: { text: "twice" } }]);
    const id = uid("msg");
    const first = await accepted(await signedRun(s, { input: "hi" }, { id }));
    await waitRun(s, first.run_id, ended);
    const del = await api(`/v1/sessions/${first.session_id}`, { method: "DELETE", key: s.key });
    expect(del.status).toBe(200);
    const again = await signedRun(s, { input: "hi" }, { id });
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("not_found");
    expect((await mockRequests(s.model)).length).toBe(1);
    const sessions = await apiJson<{ sessions: unknown[] }>("/v1/sessions", { key: s.key });
    expect(sessions.body.sessions).toEqual([]);
  });

  it("does not run again a webhook replayed after its session was deleted before its acceptance was recorded", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "once" } }, { reply: { text: "twice" } }]);
    const id = uid("msg");
    const first = await accepted(await signedRun(s, { input: "hi" }, { id }));
    await waitRun(s, first.run_id, ended);
    // The session queued the run but the worker never recorded it (markRunAccepted failed, or it was cancelled).
    await env.DB.prepare("UPDATE runs SET accepted_at = NULL WHERE id = ?").bind(first.run_id).run();
    expect((await api(`/v1/sessions/${first.session_id}`, { method: "DELETE", key: s.key })).status).toBe(200);
    const again = await signedRun(s, { input: "hi" }, { id });
    expect(again.status).toBe(404);
    expect((await mockRequests(s.model)).length).toBe(1);
    const sessions = await apiJson<{ sessions: unknown[] }>("/v1/sessions", { key: s.key });
    expect(sessions.body.sessions).toEqual([]);
  });

  it("answers a replay 404 after its session was deleted and created again, never queuing the emptied record into it", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "once" } }, { reply: { text: "twice" } }]);
    const id = uid("msg");
    const body = { input: "hi", session_id: uid("ses") };
    const first = await accepted(await signedRun(s, body, { id }));
    await waitRun(s, first.run_id, ended);
    // The session queued the run but the worker never recorded it (markRunAccepted failed, or it was cancelled).
    await env.DB.prepare("UPDATE runs SET accepted_at = NULL WHERE id = ?").bind(first.run_id).run();
    expect((await api(`/v1/sessions/${body.session_id}`, { method: "DELETE", key: s.key })).status).toBe(200);
    const again = await apiJson("/v1/sessions", {
      method: "POST",
      key: s.key,
      json: { agent: s.agent, id: body.session_id },
    });
    expect(again.status).toBe(201);
    const replay = await signedRun(s, body, { id });
    expect(replay.status).toBe(404);
    expect(((await replay.json()) as { error: { code: string } }).error.code).toBe("not_found");
    const held = await runInDurableObject(runStub(s, body.session_id), (_i, state) =>
      state.storage.sql.exec("SELECT count(*) AS n FROM runs").one(),
    );
    expect(held.n).toBe(0);
    expect((await mockRequests(s.model)).length).toBe(1);
  });

  it("runs a repeat as a new run once the guard's 10 minutes have passed, also when the session id was created again", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "once" } }, { reply: { text: "again" } }]);
    const session_id = uid("ses");
    const run = () =>
      api(`/v1/agents/${s.agent}/runs`, {
        method: "POST",
        key: s.key,
        headers: { "idempotency-key": "nightly" },
        json: { input: "report", session_id },
      });
    const first = await accepted(await run());
    await waitRun(s, first.run_id, ended);
    expect((await api(`/v1/sessions/${session_id}`, { method: "DELETE", key: s.key })).status).toBe(200);
    const again = await apiJson("/v1/sessions", {
      method: "POST",
      key: s.key,
      json: { agent: s.agent, id: session_id },
    });
    expect(again.status).toBe(201);
    // The hourly cron, eleven minutes on: no replay of the deleted session's run can be accepted any more.
    await worker.scheduled(
      createScheduledController({ scheduledTime: Date.now() + 11 * 60_000, cron: "23 * * * *" }),
      env,
    );
    const repeat = await accepted(await run());
    expect(repeat.run_id).not.toBe(first.run_id);
    expect((await waitRun(s, repeat.run_id, ended)).result?.output).toBe("again");
  });

  it("deletes with its session a run record older than a replay could be", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "once" } }]);
    const first = await accepted(await signedRun(s, { input: "hi" }));
    await waitRun(s, first.run_id, ended);
    // Eleven minutes old: its webhook-timestamp is past the 5-minute tolerance whatever it was.
    const old = new Date(Date.now() - 11 * 60_000).toISOString();
    await env.DB.prepare("UPDATE runs SET created_at = ? WHERE id = ?").bind(old, first.run_id).run();
    expect((await api(`/v1/sessions/${first.session_id}`, { method: "DELETE", key: s.key })).status).toBe(200);
    expect(await d1Runs(s.agent)).toBe(0);
  });

  it("creates exactly one run from five concurrent deliveries of one webhook", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "only one" } }, { reply: { text: "a second turn!" } }]);
    const id = uid("msg");
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => signedRun(s, { input: "concurrent" }, { id }).then(accepted)),
    );
    expect(new Set(answers.map((a) => a.run_id)).size).toBe(1);
    expect(new Set(answers.map((a) => a.session_id)).size).toBe(1);
    const run = await waitRun(s, answers[0]?.run_id as string, ended);
    expect(run.result?.output).toBe("only one");
    await new Promise((r) => setTimeout(r, 200));
    expect(await d1Runs(s.agent)).toBe(1);
    expect((await mockRequests(s.model)).length).toBe(1);
    const state = await apiJson<{ turns: number }>(`/v1/sessions/${run.session_id}`, { key: s.key });
    expect(state.body.turns).toBe(1);
  });

  it("refuses the same webhook-id with a different body with 409", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "x" } }]);
    const id = uid("msg");
    await accepted(await signedRun(s, { input: "one" }, { id }));
    const res = await signedRun(s, { input: "two" }, { id });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("idempotency_conflict");
  });
});

describe("run lifecycle", () => {
  it("goes queued → running → completed, visible through GET /v1/runs/{id}", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "slow answer" }, faults: { stall_before_ms: 600 } }]);
    const a = await accepted(await signedRun(s, { input: "take your time" }));
    const running = await waitRun(s, a.run_id, (r) => r.status !== "queued");
    expect(running.status).toBe("running");
    expect(running.turn_id).toMatch(/^turn_/);
    expect(running.started_at).not.toBeNull();
    const done = await waitRun(s, a.run_id, ended);
    expect(done).toMatchObject({ status: "completed", turn_id: running.turn_id, resumes: 0 });
    expect(done.result).toMatchObject({ output: "slow answer", finish_reason: "end_turn" });
    expect(done.ended_at).not.toBeNull();
  });

  it("delivers structured_result for a run with json_schema", async () => {
    const s = await runSetup();
    const schema = {
      type: "object",
      properties: { city: { type: "string" }, temp: { type: "number" } },
      required: ["city", "temp"],
      additionalProperties: false,
    };
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_run_so", name: "structured_output", input: { city: "Oslo", temp: 4 } }] } },
    ]);
    const a = await accepted(await signedRun(s, { input: "weather?", json_schema: schema }));
    const run = await waitRun(s, a.run_id, ended);
    expect(run.status).toBe("completed");
    expect(run.structured_result).toEqual({ city: "Oslo", temp: 4 });
  });

  it("shows a run's structured_result once, at the top level, not again inside result", async () => {
    const s = await runSetup();
    const schema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_run_once_so", name: "structured_output", input: { n: 7 } }] } },
    ]);
    const a = await accepted(await signedRun(s, { input: "n?", json_schema: schema }));
    const run = await waitRun(s, a.run_id, ended);
    expect(run.structured_result).toEqual({ n: 7 });
    expect(run.result).not.toHaveProperty("structured_result");
  });

  it("keeps a structured_result at the budget whole beside a long final text, cutting the text instead", async () => {
    const s = await runSetup();
    const schema = { type: "object", properties: { s: { type: "string" } }, required: ["s"] };
    const value = { s: "b".repeat(STRUCTURED_RESULT_BUDGET_BYTES - '{"s":""}'.length) };
    await script(s.model, [
      {
        reply: {
          text: "t".repeat(50_000),
          tool_calls: [{ id: "toolu_run_big_so", name: "structured_output", input: value }],
        },
      },
    ]);
    const a = await accepted(await signedRun(s, { input: "big?", json_schema: schema }));
    const run = await waitRun(s, a.run_id, ended);
    expect(run.status).toBe("completed");
    expect(run.structured_result).toEqual(value);
    expect(run.result?.output).toMatch(/^t+\n\[truncated: original 50000 bytes\]$/);
  });

  it("cuts a long final text to 100,000 characters without leaving half a surrogate pair", async () => {
    const s = await runSetup();
    // The emoji's two UTF-16 units straddle the cut: units 100,000 and 100,001.
    await script(s.model, [{ reply: { text: `${"a".repeat(99_999)}\u{1F600}${"b".repeat(10)}` } }]);
    const a = await accepted(await signedRun(s, { input: "long?" }));
    const run = await waitRun(s, a.run_id, ended);
    expect(run.status).toBe("completed");
    expect(run.result?.output).toBe("a".repeat(99_999));
  });

  it("fails visibly when the model ends without structured output", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "no json" } }]);
    const schema = { type: "object", properties: { a: { type: "string" } }, required: ["a"] };
    const a = await accepted(await signedRun(s, { input: "x", json_schema: schema }));
    const run = await waitRun(s, a.run_id, ended);
    expect(run.status).toBe("failed");
    expect(run.error?.code).toBe("structured_output_missing");
  });

  it("queues a run behind a running turn of the same session", async () => {
    const s = await runSetup();
    await script(s.model, [
      { reply: { text: "first" }, faults: { stall_before_ms: 500 } },
      { reply: { text: "second" } },
    ]);
    const first = await accepted(await signedRun(s, { input: "one", session_id: uid("ses") }));
    await waitRun(s, first.run_id, (r) => r.status === "running");
    const second = await accepted(await signedRun(s, { input: "two", session_id: first.session_id }));
    expect((await getRun(s, second.run_id)).status).toBe("queued");
    const done = await waitRun(s, second.run_id, ended);
    expect(done.result?.output).toBe("second");
    expect((await getRun(s, first.run_id)).result?.output).toBe("first");
  });
});

describe("a run's admission and the session's streams", () => {
  it("takes none of the MAX_SUBSCRIBERS stream places: the oldest of a client's open streams is not dropped", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "the client's answer" } }, { reply: { text: "the run's answer" } }]);
    const session_id = await sessionWithQueuedRuns(s, []);
    const sent = await apiJson(`/v1/sessions/${session_id}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "hello" },
      headers: { accept: "application/json" },
    });
    expect(sent.status).toBe(201);
    const run = uid("run_streams");
    const { oldest, status } = await runInDurableObject(runStub(s, session_id), async (instance: Session, state) => {
      // A client's streams, every place taken: replays of its turn, not read yet.
      const readers = await fillStreamPlaces(instance);
      // A queued run, due now: the alarm admits it.
      queueRun(state.storage.sql, run, s.agent, "go");
      await instance.alarm();
      const status = state.storage.sql.exec<{ status: string }>("SELECT status FROM runs WHERE id = ?", run).one();
      const [first] = readers as [ReadableStreamDefaultReader<Uint8Array>];
      return { oldest: await readRest(first), status: status.status };
    });
    expect(status).not.toBe("queued");
    expect(oldest).toContain("[DONE]");
    // The run's turn ends before the test does.
    const runStatus = () =>
      runInDurableObject(
        runStub(s, session_id),
        (_i, state) =>
          state.storage.sql.exec<{ status: string }>("SELECT status FROM runs WHERE id = ?", run).one().status,
      );
    for (let i = 0; i < 200 && (await runStatus()) !== "completed"; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await runStatus()).toBe("completed");
  });
});

describe("callback_url on a run an API key starts (callbacks are signed with the agent's secrets)", () => {
  const withCallback = (agent: string, key: string, name: string) =>
    apiJson<{ run_id: string; error?: { code: string } }>(`/v1/agents/${agent}/runs`, {
      method: "POST",
      key,
      json: { input: "x", callback_url: `${env.MOCK_URL}/_callback/${name}` },
    });

  it("is accepted from a key of the agent's webhook_tenant", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "for the owner" } }]);
    const name = uid("cb");
    const res = await withCallback(s.agent, s.key, name);
    expect(res.status).toBe(202);
    expect((await getRun(s, res.body.run_id)).callback?.url).toBe(`${env.MOCK_URL}/_callback/${name}`);
  });

  it("is refused from another tenant's key with 403 callback_not_allowed, and no run is recorded", async () => {
    const s = await runSetup();
    const res = await withCallback(s.agent, await tenantKey(uid("other")), uid("cb"));
    expect([res.status, res.body.error?.code]).toEqual([403, "callback_not_allowed"]);
    expect(await d1Runs(s.agent)).toBe(0);
  });

  it("is refused from every key when the agent has no webhook_tenant", async () => {
    const s = await runSetup(undefined, { webhook_tenant: undefined });
    const res = await withCallback(s.agent, s.key, uid("cb"));
    expect([res.status, res.body.error?.code]).toEqual([403, "callback_not_allowed"]);
    expect(await d1Runs(s.agent)).toBe(0);
  });
});

describe("bearer-authenticated runs", () => {
  it("runs in the key's tenant, in a named session, and is invisible to other tenants", async () => {
    const s = await runSetup();
    const other = await tenantKey();
    await script(s.model, [{ reply: { text: "via key" } }]);
    const key = await tenantKey(uid("k"));
    const session_id = uid("ses");
    const res = await api(`/v1/agents/${s.agent}/runs`, {
      method: "POST",
      key,
      headers: { "idempotency-key": "abc" },
      json: { input: [{ type: "text", text: "hi" }], session_id },
    });
    const a = await accepted(res);
    expect(a.session_id).toBe(session_id);
    const run = await apiJson<{ status: string }>(`/v1/runs/${a.run_id}`, { key });
    expect(run.status).toBe(200);
    expect((await apiJson(`/v1/runs/${a.run_id}`, { key: other })).status).toBe(404);
    expect((await apiJson(`/v1/runs/${a.run_id}`, { key: ADMIN })).status).toBe(200);
    expect((await apiJson(`/v1/sessions/${session_id}`, { key })).status).toBe(200);
  });

  it("refuses bad bodies before any state changes", async () => {
    const s = await runSetup();
    const post = (json: unknown) => apiJson(`/v1/agents/${s.agent}/runs`, { method: "POST", key: s.key, json });
    expect((await post({})).status).toBe(400);
    expect((await post({ input: "" })).status).toBe(400);
    expect((await post({ input: "x", extra: 1 })).status).toBe(400);
    expect((await post({ input: "x", json_schema: { type: "object", requird: [] } })).status).toBe(422);
    expect((await post({ input: "x", callback_url: "ftp://example.com/x" })).status).toBe(400);
    expect((await post({ input: "x", session_id: "bad id!" })).status).toBe(400);
    const bad = await api(`/v1/agents/${s.agent}/runs`, { method: "POST", key: "sk_sb_nope", json: { input: "x" } });
    expect(bad.status).toBe(401);
    expect(
      (await apiJson(`/v1/agents/${uid("none")}/runs`, { method: "POST", key: s.key, json: { input: "x" } })).status,
    ).toBe(404);
    expect(await d1Runs(s.agent)).toBe(0);
  });

  it("refuses a json_schema over the budget with 413 schema_too_large and records no run", async () => {
    const s = await runSetup();
    const json_schema = { type: "object", properties: {}, description: "d".repeat(1_000_100) };
    const res = await apiJson<{ error: { code: string } }>(`/v1/agents/${s.agent}/runs`, {
      method: "POST",
      key: s.key,
      json: { input: "x", json_schema },
    });
    expect([res.status, res.body.error.code]).toEqual([413, "schema_too_large"]);
    expect(await d1Runs(s.agent)).toBe(0);
  });

  it("refuses an input over the parts budget with 413 message_too_large and records no run", async () => {
    const s = await runSetup();
    // Under the 1 MiB body cap, over the 1,000,000 bytes a message's parts may take as stored.
    const res = await apiJson<{ error: { code: string } }>(`/v1/agents/${s.agent}/runs`, {
      method: "POST",
      key: s.key,
      json: { input: Array.from({ length: 6 }, () => ({ type: "text", text: "x".repeat(170_000) })) },
    });
    expect([res.status, res.body.error.code]).toEqual([413, "message_too_large"]);
    expect(await d1Runs(s.agent)).toBe(0);
  });

  it("refuses a session of another agent with 409 and records no run", async () => {
    const s = await runSetup();
    const t = await runSetup();
    await script(t.model, [{ reply: { text: "t" } }]);
    const session_id = uid("ses");
    await accepted(await signedRun(t, { input: "mine", session_id }));
    // Same tenant for both? No: give s's key the session of t by creating it under s's tenant first.
    const own = await apiJson("/v1/sessions", { method: "POST", key: s.key, json: { agent: t.agent, id: session_id } });
    expect(own.status).toBe(201);
    const res = await apiJson<{ error: { code: string } }>(`/v1/agents/${s.agent}/runs`, {
      method: "POST",
      key: s.key,
      json: { input: "x", session_id },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("agent_mismatch");
    expect(await d1Runs(s.agent)).toBe(0);
  });

  it("heals an unindexed session's index row from the session when a run of another agent is refused", async () => {
    const s = await runSetup();
    const t = await runSetup();
    const session_id = uid("ses_unindexed");
    const own = await apiJson("/v1/sessions", { method: "POST", key: s.key, json: { agent: t.agent, id: session_id } });
    expect(own.status).toBe(201);
    // The session's object lives on without its index row (a create whose answer, and row, were lost).
    await env.DB.prepare("DELETE FROM sessions WHERE tenant = ? AND id = ?").bind(s.tenant, session_id).run();
    const res = await apiJson<{ error: { code: string } }>(`/v1/agents/${s.agent}/runs`, {
      method: "POST",
      key: s.key,
      json: { input: "x", session_id },
    });
    expect([res.status, res.body.error.code]).toEqual([409, "agent_mismatch"]);
    const list = await apiJson<{ sessions: Array<{ id: string; agent: string }> }>("/v1/sessions", { key: s.key });
    expect(list.body.sessions.filter((x) => x.id === session_id).map((x) => x.agent)).toEqual([t.agent]);
  });
});

describe("reading a run whose hand-off to its session never completed", () => {
  it("hands it over, refused as at admission: another agent's session is 409 agent_mismatch, as documented", async () => {
    const s = await runSetup();
    const t = await runSetup();
    const session_id = uid("ses");
    // The admitting request recorded the run and died before the session took it; meanwhile the session id was
    // given to another agent.
    const run_id = uid("run_half");
    const now = new Date().toISOString();
    await env.DB.prepare(
      "INSERT INTO runs (id, tenant, agent, session_id, body_hash, auth, request, created_at, accepted_at) VALUES (?, ?, ?, ?, 'h', 'key', ?, ?, NULL)",
    )
      .bind(run_id, s.tenant, s.agent, session_id, '{"input":[{"type":"text","text":"x"}]}', now)
      .run();
    const own = await apiJson("/v1/sessions", { method: "POST", key: s.key, json: { agent: t.agent, id: session_id } });
    expect(own.status).toBe(201);
    const res = await apiJson<{ error: { code: string } }>(`/v1/runs/${run_id}`, { key: s.key });
    expect([res.status, res.body.error.code]).toEqual([409, "agent_mismatch"]);
    expect(OPENAPI.paths["/v1/runs/{id}"].get.responses).toHaveProperty("409");
  });

  it("hands over a run whose new session was never created: 200 queued, not 404 deleted", async () => {
    const s = await runSetup();
    // A run with no session_id got a fresh `ses_…` and its enqueueRun failed (5xx, no sender retry): the D1
    // record stays, and no object was ever created for the session.
    const run_id = uid("run_fresh");
    const session_id = uid("ses");
    await env.DB.prepare(
      "INSERT INTO runs (id, tenant, agent, session_id, body_hash, auth, request, created_at, accepted_at) VALUES (?, ?, ?, ?, 'h', 'key', ?, ?, NULL)",
    )
      .bind(run_id, s.tenant, s.agent, session_id, '{"input":[{"type":"text","text":"x"}]}', new Date().toISOString())
      .run();
    const res = await apiJson<{ run_id: string; session_id: string; status: string }>(`/v1/runs/${run_id}`, {
      key: s.key,
    });
    expect([res.status, res.body.run_id, res.body.session_id, res.body.status]).toEqual([
      200,
      run_id,
      session_id,
      "queued",
    ]);
  });
});

describe("the queue cap (MAX_QUEUED_RUNS queued runs per session)", () => {
  const queuedIds = () => Array.from({ length: MAX_QUEUED_RUNS }, (_, i) => `${uid("run_q")}_${i}`);

  it("refuses a run into a session whose queue is full with 429 run_queue_full and keeps no record of it", async () => {
    const s = await runSetup();
    const session_id = await sessionWithQueuedRuns(s, queuedIds());
    const res = await apiJson<{ error: { code: string } }>(`/v1/agents/${s.agent}/runs`, {
      method: "POST",
      key: s.key,
      json: { input: "one too many", session_id },
    });
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe("run_queue_full");
    expect(await d1Runs(s.agent)).toBe(0);
    const held = await runInDurableObject(runStub(s, session_id), (_i, state) =>
      state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM runs").one(),
    );
    expect(held.n).toBe(MAX_QUEUED_RUNS);
  });

  it("keeps an unindexed session listed when its full queue refuses a run of its own agent", async () => {
    const s = await runSetup();
    const session_id = await sessionWithQueuedRuns(s, queuedIds());
    // The session's object lives on without its index row (a create whose answer, and row, were lost).
    await env.DB.prepare("DELETE FROM sessions WHERE tenant = ? AND id = ?").bind(s.tenant, session_id).run();
    const res = await apiJson<{ error: { code: string } }>(`/v1/agents/${s.agent}/runs`, {
      method: "POST",
      key: s.key,
      json: { input: "one too many", session_id },
    });
    expect([res.status, res.body.error.code]).toEqual([429, "run_queue_full"]);
    const list = await apiJson<{ sessions: Array<{ id: string; agent: string }> }>("/v1/sessions", { key: s.key });
    expect(list.body.sessions.filter((x) => x.id === session_id).map((x) => x.agent)).toEqual([s.agent]);
  });

  it("answers a repeat of a run the full queue already holds with 202, as the same run", async () => {
    const s = await runSetup();
    const ids = queuedIds();
    const session_id = await sessionWithQueuedRuns(s, ids);
    // One of the queued runs was admitted under this Idempotency-Key with this body.
    const raw = JSON.stringify({ input: "again", session_id });
    const now = new Date().toISOString();
    await env.DB.prepare(
      "INSERT INTO runs (id, tenant, agent, session_id, idempotency_key, body_hash, auth, request, created_at, accepted_at) VALUES (?, ?, ?, ?, ?, ?, 'key', ?, ?, ?)",
    )
      .bind(
        ids[0],
        s.tenant,
        s.agent,
        session_id,
        "k1",
        await sha256Hex(raw),
        '{"input":[{"type":"text","text":"again"}]}',
        now,
        now,
      )
      .run();
    const res = await api(`/v1/agents/${s.agent}/runs`, {
      method: "POST",
      key: s.key,
      headers: { "idempotency-key": "k1", "content-type": "application/json" },
      body: raw,
    });
    const a = await accepted(res);
    expect(a.run_id).toBe(ids[0]);
    expect(res.headers.get("x-run-replayed")).toBe("true");
  });
});
