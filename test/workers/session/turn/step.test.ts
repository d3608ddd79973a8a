// One step of a turn (src/session/turn/step.ts) under the step deadline (src/providers/sse.ts, the suite's
// SWITCHBOARD_STEP_TIMEOUT_MS of 15 s): a provider that streams real events slowly but steadily, never idle for the
// suite's 1.5 s window, fails its step at the deadline as a cut stream does (the text it streamed recorded as
// partial_text_dropped), and the session takes the next message.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { events, history, mockRequests, pairingProblems, script, send, setup } from "../../helpers";

/** What the suite's config sets; the stream below runs well past it. */
const DEADLINE_MS = Number(env.SWITCHBOARD_STEP_TIMEOUT_MS);

/** 80 words, one every 300 ms: 24 s of steady text, never near the 1.5 s idle window. */
const STEADY_WORDS = Array.from({ length: 80 }, (_, i) => `word${i}`).join(" ");

/** Scripts `model` with the steady text as its first step (cut by the deadline) and "ok" as the next. */
async function scriptSteadyStep(model: string): Promise<void> {
  expect(80 * 300).toBeGreaterThan(1.5 * DEADLINE_MS);
  await script(model, [{ reply: { text: STEADY_WORDS }, faults: { event_delay_ms: 300 } }, { reply: { text: "ok" } }]);
}

describe("the step deadline", () => {
  it("ends a slow but steady step with provider_step_timeout, sent once, and the session answers the next message", async () => {
    const s = await setup();
    await scriptSteadyStep(s.model);
    const res = await send(s, { content: "take your time" });
    expect(res.body.status).toBe("failed");
    expect(res.body.error).toMatchObject({ code: "provider_step_timeout", retryable: false });
    // Not retried: a slow provider asked again would only repeat.
    expect(await mockRequests(s.model)).toHaveLength(1);
    const next = await send(s, { content: "again" });
    expect(next.body.status).toBe("completed");
    expect(pairingProblems(await history(s))).toEqual([]);
  });

  it("records the text the timed-out step had streamed as partial_text_dropped", async () => {
    const s = await setup();
    await scriptSteadyStep(s.model);
    const res = await send(s, { content: "take your time" });
    expect(res.body.error).toMatchObject({ code: "provider_step_timeout" });
    const dropped = (await events(s)).filter((e) => e.type === "partial_text_dropped");
    expect(dropped).toHaveLength(1);
    // The deadline fell inside the one text block: its streamed words, from the first, not the whole answer.
    const text = String(dropped[0]?.data.text);
    expect(text.startsWith("word0 word1")).toBe(true);
    expect(STEADY_WORDS.startsWith(text) && text.length < STEADY_WORDS.length).toBe(true);
  });
});
