/**
 * The debug seeding route (src/http/routes/debug.ts, src/session/debug-seed.ts): on in this suite
 * (SWITCHBOARD_DEBUG_SEED=true), off in production. bench/compaction.mjs builds its long session with it.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { apiJson, history, mockRequests, script, setup } from "./helpers";

const seedBody = (n: number, tag: string) => ({
  turns: Array.from({ length: n }, (_, i) => ({ user: `${tag} question ${i}`, assistant: `${tag} answer ${i}` })),
});

describe("debug seeding", () => {
  it("writes finished turns that read back, count and reach the provider like real ones", async () => {
    const s = await setup();
    const seeded = await apiJson(`/v1/sessions/${s.session}/debug/seed`, {
      method: "POST",
      key: s.key,
      json: seedBody(3, "seeded"),
      undocumented: "the debug seeding route is for tests, not in the contract",
    });
    expect(seeded).toEqual({ status: 200, body: { id: s.session, turns: 3, messages: 6 } });
    const msgs = await history(s);
    expect(msgs.map((m) => [m.role, m.parts[0]?.text])).toEqual([
      ["user", "seeded question 0"],
      ["assistant", "seeded answer 0"],
      ["user", "seeded question 1"],
      ["assistant", "seeded answer 1"],
      ["user", "seeded question 2"],
      ["assistant", "seeded answer 2"],
    ]);
    const state = await apiJson<{ turns: number; status: string }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body).toMatchObject({ turns: 3, status: "idle" });
    await script(s.model, [{ reply: { text: "real" } }]);
    const real = await apiJson<{ status: string }>(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "a real question" },
    });
    expect(real.body.status).toBe("completed");
    const [req] = await mockRequests(s.model);
    expect(req?.body.messages).toHaveLength(7);
  });

  it("refuses a malformed body with a JSON error and writes nothing", async () => {
    const s = await setup();
    for (const json of [{}, { turns: [] }, { turns: [{ user: "only a question" }] }, seedBody(501, "many")]) {
      const res = await apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/debug/seed`, {
        method: "POST",
        key: s.key,
        json,
        undocumented: "the debug seeding route is for tests, not in the contract",
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
    }
    expect(await history(s)).toEqual([]);
  });

  it("is not served without SWITCHBOARD_DEBUG_SEED", async () => {
    const s = await setup();
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`http://sb.test/v1/sessions/${s.session}/debug/seed`, {
        method: "POST",
        headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
        body: JSON.stringify(seedBody(1, "off")),
      }),
      { ...env, SWITCHBOARD_DEBUG_SEED: "false" },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_found");
    expect(await history(s)).toEqual([]);
  });
});
