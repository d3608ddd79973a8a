// How a turn's step loop (src/session/turn/turn-runner.ts) ends a turn the model answered with a refusal, for every
// protocol: the refusal is the model's answer, stored and shown as text, and the turn completes with finish_reason
// `refusal` (the UI message stream's finish says `content-filter`), whether the provider says so by its stop reason
// (Anthropic) or by streaming the text as refusal text under an ordinary finish (OpenAI's `delta.refusal`, a
// Responses `refusal` content part).
import { describe, expect, it } from "vitest";
import { PROTOCOLS } from "../../compaction-helpers";
import { api, events, script, send, setup, uiChunks } from "../../helpers";

const REFUSAL = "I'm sorry, I can't help with that.";

describe.each(PROTOCOLS)("a turn answered with a refusal (%s)", (provider) => {
  it("completes with finish_reason refusal, the refusal text its answer, and its turn_finished event says so", async () => {
    const s = await setup({}, provider);
    await script(s.model, [{ reply: { refusal: REFUSAL } }]);
    const { body } = await send(s, { content: "Write something harmful." });
    expect([body.status, body.finish_reason]).toEqual(["completed", "refusal"]);
    expect(body.messages.at(-1)?.parts).toEqual([{ type: "text", text: REFUSAL }]);
    const finished = (await events(s)).filter((e) => e.type === "turn_finished");
    expect(finished.map((e) => e.data)).toEqual([expect.objectContaining({ finish_reason: "refusal" })]);
  });

  it("ends its UI message stream with finishReason content-filter, after the refusal text", async () => {
    const s = await setup({}, provider);
    await script(s.model, [{ reply: { refusal: REFUSAL } }]);
    const res = await api(`/v1/sessions/${s.session}/chat`, {
      method: "POST",
      key: s.key,
      json: { id: s.session, messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Write it." }] }] },
    });
    expect(res.status).toBe(200);
    const chunks = await uiChunks(res);
    const text = chunks.flatMap((c) => (c.type === "text-delta" ? [String(c.delta)] : [])).join("");
    expect(text).toBe(REFUSAL);
    expect(chunks.filter((c) => c.type === "finish")).toEqual([
      expect.objectContaining({ type: "finish", finishReason: "content-filter" }),
    ]);
  });
});
