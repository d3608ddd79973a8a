// The webhook routes' credential checks (src/http/routes/runs.ts): a request without an API key whose webhook-*
// headers are missing, malformed or stale is refused before its body or D1 is read, and a bad signature reads an
// agent's secrets through the isolate cache, not D1 on every request; an API key's repeat of a run is the same run
// when its body is the same JSON value, whatever its key order or whitespace (docs/API.md "Webhook-triggered runs").
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../../src/crypto/sha256";
import { ADMIN, api, apiJson, uid } from "../../helpers";
import { d1Runs, newSecret, type RunSetup, runSetup, script, signedPost } from "../../runs-helpers";

const D1 = "x-debug-d1-statements";

/** Each webhook route, by a path of its own: a new agent name or run id per call. */
const ROUTES = [
  ["POST /v1/agents/{agent}/runs", () => `/v1/agents/${uid("agent-creds")}/runs`],
  ["POST /v1/runs/{id}/approvals", () => `/v1/runs/${uid("run-creds")}/approvals`],
] as const;

/** More than the 1 MiB a run or approval body may have: read at all, it would be 413. */
const OVER_CAP = "x".repeat(2 * 1024 * 1024);

async function refused(res: Response): Promise<{ code: string; d1: string | null }> {
  expect(res.status).toBe(401);
  const body = (await res.json()) as { error: { code: string } };
  return { code: body.error.code, d1: res.headers.get(D1) };
}

describe("a request with neither an API key nor webhook headers", () => {
  it.each(ROUTES)("%s is 401 with no D1 statement", async (_name, path) => {
    expect(await refused(await api(path(), { method: "POST" }))).toEqual({ code: "unauthorized", d1: "0" });
  });

  it.each(ROUTES)("%s is 401, not 413, with a body over the cap: the body is not read", async (_name, path) => {
    const res = await api(path(), { method: "POST", headers: { "content-type": "application/json" }, body: OVER_CAP });
    expect(await refused(res)).toEqual({ code: "unauthorized", d1: "0" });
  });
});

describe("a request whose webhook-timestamp is stale", () => {
  it.each(ROUTES)("%s is 401 invalid_signature with no D1 statement", async (_name, path) => {
    const stale = Math.floor(Date.now() / 1000) - 6 * 60;
    const res = await signedPost(path(), newSecret(), { input: "x" }, { ts: stale });
    expect(await refused(res)).toEqual({ code: "invalid_signature", d1: "0" });
  });
});

describe("a fresh request whose signature matches no secret", () => {
  it("reads the agent's secrets once, not again for the next such request", async () => {
    const path = `/v1/agents/${uid("agent-cached")}/runs`;
    const first = await refused(await signedPost(path, newSecret(), { input: "x" }));
    expect(first).toEqual({ code: "invalid_signature", d1: "1" });
    const second = await refused(await signedPost(path, newSecret(), { input: "x" }));
    expect(second).toEqual({ code: "invalid_signature", d1: "0" });
  });
});

/** POST /v1/agents/{agent}/runs with an API key, `raw` as the body's bytes and Idempotency-Key `key`. */
function keyedRun(s: RunSetup, key: string, raw: string) {
  return apiJson<{ run_id: string; error?: { code: string } }>(`/v1/agents/${s.agent}/runs`, {
    method: "POST",
    key: s.key,
    headers: { "content-type": "application/json", "idempotency-key": key },
    body: raw,
  });
}

describe("an API key's run repeated with its Idempotency-Key", () => {
  it("is the same run (202) when its body's keys come in another order, pretty-printed", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "once" } }]);
    const session = uid("ses");
    const first = await keyedRun(s, "k-order", `{"input":"hi","session_id":"${session}"}`);
    const again = await keyedRun(s, "k-order", `{\n  "session_id": "${session}",\n  "input": "hi"\n}`);
    expect(first.status).toBe(202);
    expect([again.status, again.body.run_id]).toEqual([202, first.body.run_id]);
    expect(await d1Runs(s.agent)).toBe(1);
  });

  it("is the same run (202) when its record was stored with the hash of the body's bytes, as before", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "once" } }]);
    // Spaced: the body's bytes are not its canonical JSON text.
    const raw = '{ "input": "hi" }';
    const first = await keyedRun(s, "k-earlier", raw);
    // What the route stored for an API key's run before it hashed the body's canonical JSON text.
    await env.DB.prepare("UPDATE runs SET body_hash = ? WHERE id = ?")
      .bind(await sha256Hex(raw), first.body.run_id)
      .run();
    const again = await keyedRun(s, "k-earlier", raw);
    expect([again.status, again.body.run_id]).toEqual([202, first.body.run_id]);
    expect(await d1Runs(s.agent)).toBe(1);
  });
});

describe("an API key's run repeated with its Idempotency-Key, once its agent changed", () => {
  it("is the same run (202) after the agent was deleted, not refused 404 agent_not_found", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "once" } }]);
    const first = await keyedRun(s, "k-gone", '{"input":"hi"}');
    expect(first.status).toBe(202);
    expect((await apiJson(`/v1/agents/${s.agent}`, { method: "DELETE", key: ADMIN })).status).toBe(200);
    const again = await keyedRun(s, "k-gone", '{"input":"hi"}');
    expect([again.status, again.body.run_id]).toEqual([202, first.body.run_id]);
  });

  it("is the same run (202) after the agent's webhook_tenant moved, not refused 403 callback_not_allowed", async () => {
    const s = await runSetup();
    await script(s.model, [{ reply: { text: "once" } }]);
    const raw = JSON.stringify({ input: "hi", callback_url: `${env.MOCK_URL}/_callback/${uid("cb")}` });
    const first = await keyedRun(s, "k-moved", raw);
    expect(first.status).toBe(202);
    const moved = await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: { model: { provider: "anthropic", name: s.model }, webhook_secrets: s.secrets, webhook_tenant: uid("t") },
    });
    expect(moved.status).toBe(200);
    const again = await keyedRun(s, "k-moved", raw);
    expect([again.status, again.body.run_id]).toEqual([202, first.body.run_id]);
  });
});
