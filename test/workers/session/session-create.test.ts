/**
 * The calls that create a session (src/session/session-create.ts): `abandon` (Session.abandonCreate), by which a
 * create whose init failed gives up the index row it wrote: deleted when the object holds no session, kept when it
 * holds one, which may have been answered created and must stay listed.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { insertSession } from "../../../src/d1/sessions";
import { sessionStub } from "../../../src/http/session-ref";
import { uid } from "../helpers";

/** A tenant and id whose index row is written and whose object holds nothing yet. */
async function indexed(): Promise<{ tenant: string; id: string }> {
  const tenant = uid("abandon");
  const id = uid("ses");
  const row = { tenant, id, agent: "an-agent", metadata: null, created_at: new Date().toISOString() };
  expect(await insertSession(env.DB, row)).toBe(true);
  return { tenant, id };
}

async function rowOf(tenant: string, id: string): Promise<unknown> {
  return env.DB.prepare("SELECT id FROM sessions WHERE tenant = ? AND id = ?").bind(tenant, id).first();
}

describe("a failed create's index row", () => {
  it("is deleted when the object holds no session", async () => {
    const { tenant, id } = await indexed();
    expect(await sessionStub(env, tenant, id).abandonCreate(tenant, id)).toEqual({ deleted: true });
    expect(await rowOf(tenant, id)).toBeNull();
  });

  it("is kept when the object holds the session", async () => {
    const { tenant, id } = await indexed();
    const stub = sessionStub(env, tenant, id);
    const info = { tenant, id, agent: "an-agent", created_at: new Date().toISOString(), metadata: null };
    expect((await stub.init(info)).ok).toBe(true);
    expect(await stub.abandonCreate(tenant, id)).toEqual({ deleted: false });
    expect(await rowOf(tenant, id)).toEqual({ id });
  });
});
