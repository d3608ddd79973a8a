// The admin's routes over any tenant's sessions (src/http/routes/tenants.ts; docs/API.md "Tenants", README
// "Retention"): list, clear and delete, above all for the `webhook:<agent>` tenant that the signed runs of an
// agent without `webhook_tenant` create sessions in, and that no API key can be issued for.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ADMIN, apiJson, type Msg, script, tenantKey, uid } from "./helpers";
import { d1Runs, ended, newSecret, signedRun, waitRun } from "./runs-helpers";

type ErrorBody = { error: { code: string; message: string } };
type SessionList = { sessions: Array<{ id: string; agent: string }>; next: string | null };

/** A finished signed run of an agent without `webhook_tenant`: its session is in the tenant `webhook:<agent>`. */
async function webhookSession() {
  const agent = uid("agent");
  const model = uid("mock-anthropic");
  const secret = newSecret();
  const put = await apiJson(`/v1/agents/${agent}`, {
    method: "PUT",
    key: ADMIN,
    json: { model: { provider: "anthropic", name: model }, system: "You are a run agent.", webhook_secrets: [secret] },
  });
  if (put.status !== 201) throw new Error(`agent: ${put.status} ${JSON.stringify(put.body)}`);
  await script(model, [{ reply: { text: "Done." } }]);
  const s = { tenant: `webhook:${agent}`, key: ADMIN, agent, model, secrets: [secret] };
  const started = await signedRun(s, { input: "hello" });
  expect(started.status).toBe(202);
  const { run_id, session_id } = (await started.json()) as { run_id: string; session_id: string };
  await waitRun(s, run_id, ended);
  return { ...s, run_id, session_id };
}

/** The session as its Durable Object holds it (no API key reaches a `webhook:<agent>` tenant). */
function objectOf(tenant: string, session: string) {
  return env.SESSION.getByName(`${tenant}:${session}`) as unknown as {
    state(): Promise<{ ok: boolean; error?: { code: string } }>;
    messages(after: number, limit: number): Promise<{ ok: boolean; messages: Msg[] }>;
  };
}

describe("admin routes over a tenant's sessions", () => {
  it("the admin key lists the sessions of a webhook:<agent> tenant", async () => {
    const w = await webhookSession();
    const list = await apiJson<SessionList>(`/v1/tenants/${w.tenant}/sessions`, { key: ADMIN });
    expect(list.status).toBe(200);
    expect(list.body.sessions.map((s) => [s.id, s.agent])).toEqual([[w.session_id, w.agent]]);
    expect(list.body.next).toBeNull();
  });

  it("the admin key deletes a webhook:<agent> session: its object and index row go, its run's request too", async () => {
    const w = await webhookSession();
    expect(await d1Runs(w.agent)).toBe(1);
    const del = await apiJson(`/v1/tenants/${w.tenant}/sessions/${w.session_id}`, { method: "DELETE", key: ADMIN });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: w.session_id, deleted: true });
    expect((await objectOf(w.tenant, w.session_id).state()).error?.code).toBe("not_found");
    expect((await apiJson<SessionList>(`/v1/tenants/${w.tenant}/sessions`, { key: ADMIN })).body.sessions).toEqual([]);
    // The run's record stays a while, without its request, so a replay of its webhook-id does not run it again.
    const kept = await env.DB.prepare("SELECT request FROM runs WHERE id = ?").bind(w.run_id).first();
    expect(kept).toEqual({ request: "{}" });
    const again = await apiJson<ErrorBody>(`/v1/tenants/${w.tenant}/sessions/${w.session_id}`, {
      method: "DELETE",
      key: ADMIN,
    });
    expect(again.status).toBe(404);
  });

  it("the admin key clears a webhook:<agent> session: its history is emptied, the session stays", async () => {
    const w = await webhookSession();
    const object = objectOf(w.tenant, w.session_id);
    expect((await object.messages(0, 100)).messages.length).toBeGreaterThan(0);
    const clear = await apiJson(`/v1/tenants/${w.tenant}/sessions/${w.session_id}/clear`, {
      method: "POST",
      key: ADMIN,
    });
    expect(clear.status).toBe(200);
    expect(clear.body).toEqual({ id: w.session_id, cleared: true });
    expect((await object.messages(0, 100)).messages).toEqual([]);
    const list = await apiJson<SessionList>(`/v1/tenants/${w.tenant}/sessions`, { key: ADMIN });
    expect(list.body.sessions.map((s) => s.id)).toEqual([w.session_id]);
  });

  it("an API key gets 403 and a malformed tenant 400 on these routes, and the session is untouched", async () => {
    const w = await webhookSession();
    const key = await tenantKey();
    const base = `/v1/tenants/${w.tenant}/sessions`;
    for (const [method, path, auth, status] of [
      ["GET", base, key, 403],
      ["POST", `${base}/${w.session_id}/clear`, key, 403],
      ["DELETE", `${base}/${w.session_id}`, key, 403],
      ["GET", "/v1/tenants/hook:x/sessions", ADMIN, 400],
      ["POST", `/v1/tenants/hook:x/sessions/${w.session_id}/clear`, ADMIN, 400],
      ["DELETE", `/v1/tenants/hook:x/sessions/${w.session_id}`, ADMIN, 400],
    ] as const) {
      const res = await apiJson<ErrorBody>(path, { method, key: auth });
      expect(res.status, `${method} ${path}`).toBe(status);
      expect(typeof res.body.error.code).toBe("string");
    }
    expect((await objectOf(w.tenant, w.session_id).messages(0, 100)).messages.length).toBeGreaterThan(0);
    expect(await d1Runs(w.agent)).toBe(1);
  });
});
