// The turn routes (src/http/routes/turns.ts): a message repeated with its Idempotency-Key is the same body when it is
// the same JSON value, whatever its key order or whitespace, also for a turn whose key was stored before the body was
// hashed so (docs/API.md "Turns").
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../../src/crypto/sha256";
import { apiJson, history, type Setup, script, sessionStub, setup, type TurnJson } from "../../helpers";

/** POST /messages with `raw` as the body's bytes and Idempotency-Key `key`, answered as JSON. */
function sendRaw(s: Setup, key: string, raw: string) {
  return apiJson<TurnJson>(`/v1/sessions/${s.session}/messages`, {
    method: "POST",
    key: s.key,
    headers: { "content-type": "application/json", "idempotency-key": key },
    body: raw,
  });
}

describe("a message repeated with its Idempotency-Key", () => {
  it("is the same turn (200) when its body's keys come in another order, with no second user message", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "Once." } }, { reply: { text: "Twice?" } }]);
    const first = await sendRaw(s, "k-order", '{"content":"hi","max_steps":3}');
    const again = await sendRaw(s, "k-order", '{"max_steps":3,"content":"hi"}');
    expect(first.status).toBe(201);
    expect([again.status, again.body.turn_id]).toEqual([200, first.body.turn_id]);
    expect((await history(s)).filter((m) => m.role === "user")).toHaveLength(1);
  });

  it("is the same turn (200) when its key was stored with the hash of the body's JSON text, as before", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "Once." } }, { reply: { text: "Twice?" } }]);
    // Keys out of their sorted order: the body's JSON text is not its canonical text.
    const raw = '{"max_steps":3,"content":"hi"}';
    const first = await sendRaw(s, "k-earlier", raw);
    // What the route stored before it hashed the body's canonical JSON text: the hash of its own JSON text.
    const earlier = await sha256Hex(JSON.stringify(JSON.parse(raw)));
    await runInDurableObject(await sessionStub(s), (_i, state) => {
      state.storage.sql.exec("UPDATE turns SET body_hash = ? WHERE idempotency_key = ?", earlier, "k-earlier");
    });
    const again = await sendRaw(s, "k-earlier", raw);
    expect([again.status, again.body.turn_id]).toEqual([200, first.body.turn_id]);
    expect((await history(s)).filter((m) => m.role === "user")).toHaveLength(1);
  });
});
