// Idempotency-Key on POST /messages: a repeat answers the same turn and writes nothing, a different body is 409, and
// a repeat still answers once the turn's stream was swept.
import { describe, expect, it } from "vitest";
import { api, apiJson, history, mockRequests, script, send, setup, sseFrames, type TurnJson } from "./helpers";

describe("Idempotency-Key", () => {
  it("returns the same turn for a repeat and writes no second user message", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "Once." } }, { reply: { text: "Twice?" } }]);
    const init = { method: "POST", key: s.key, json: { content: "hello" }, headers: { "idempotency-key": "k-1" } };
    const first = await apiJson<{ turn_id: string; status: string }>(`/v1/sessions/${s.session}/messages`, init);
    const again = await apiJson<{ turn_id: string; status: string }>(`/v1/sessions/${s.session}/messages`, init);
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body.turn_id).toBe(first.body.turn_id);
    expect((await history(s)).filter((m) => m.role === "user")).toHaveLength(1);
    expect(await mockRequests(s.model)).toHaveLength(1);
  });

  it("answers 409 for the same key with a different body", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "Once." } }]);
    const headers = { "idempotency-key": "k-2" };
    await apiJson(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "a" },
      headers,
    });
    const res = await apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "b" },
      headers,
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("idempotency_conflict");
    expect((await history(s)).filter((m) => m.role === "user")).toHaveLength(1);
  });

  it("a replay returns only that turn's messages, not those of later turns", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "Answer A." } }, { reply: { text: "Answer B." } }]);
    const a = { method: "POST", key: s.key, json: { content: "question A" }, headers: { "idempotency-key": "k-a" } };
    const first = await apiJson<TurnJson>(`/v1/sessions/${s.session}/messages`, a);
    const b = await apiJson<TurnJson>(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "question B" },
    });
    expect(b.body.status).toBe("completed");
    const replay = await apiJson<TurnJson>(`/v1/sessions/${s.session}/messages`, a);
    expect(replay.status).toBe(200);
    expect(replay.body.turn_id).toBe(first.body.turn_id);
    expect(replay.body.messages).toEqual(first.body.messages);
    expect(JSON.stringify(replay.body.messages)).not.toContain("B.");
  });

  it("refuses a key in the webhook runs' namespace (run:…) and writes nothing", async () => {
    const s = await setup();
    const res = await apiJson<{ error: { code: string; message: string } }>(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "hello" },
      headers: { "idempotency-key": "run:run_0123456789abcdef" },
    });
    expect([res.status, res.body.error.code]).toEqual([400, "invalid_request"]);
    expect(res.body.error.message).toContain('"run:"');
    expect(await history(s)).toEqual([]);
    expect(await mockRequests(s.model)).toHaveLength(0);
  });
});

describe("Idempotency-Key on a turn whose stream was swept", () => {
  it("a stream repeat of an older turn answers its result as JSON, not an empty stream", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "The first answer." } }]);
    const init = {
      method: "POST",
      key: s.key,
      json: { content: "first" },
      headers: { "idempotency-key": "k-swept", accept: "text/event-stream" },
    };
    const first = await api(`/v1/sessions/${s.session}/messages`, init);
    const turnId = first.headers.get("x-turn-id");
    await sseFrames(first);
    // Later turns: the stream log keeps only the newest turns' frames.
    for (let i = 0; i < 4; i++) {
      await script(s.model, [{ reply: { text: `later ${i}` } }]);
      await send(s, { content: `later ${i}` });
    }
    const again = await api(`/v1/sessions/${s.session}/messages`, init);
    expect(again.status).toBe(200);
    expect(again.headers.get("content-type")).toContain("application/json");
    const body = (await again.json()) as TurnJson;
    expect(body.turn_id).toBe(turnId);
    expect(body.status).toBe("completed");
    const texts = body.messages.flatMap((m) => m.parts).filter((p) => p.type === "text");
    expect(texts.map((p) => p.text)).toEqual(["first", "The first answer."]);
    expect((await history(s)).filter((m) => m.role === "user")).toHaveLength(5);
  });
});
