// One step of a turn (src/session/turn/step.ts) under the step deadline (src/providers/sse.ts, the suite's
// SWITCHBOARD_STEP_TIMEOUT_MS of 15 s): a provider that streams real events slowly but steadily, never idle for the
// suite's 1.5 s window, fails its step at the deadline as a cut stream does, and the session takes the next message.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { history, mockRequests, pairingProblems, script, send, setup } from "../../helpers";

/** What the suite's config sets; the stream below runs well past it. */
const DEADLINE_MS = Number(env.SWITCHBOARD_STEP_TIMEOUT_MS);

describe("the step deadline", () => {
  it("ends a slow but steady step with provider_step_timeout, sent once, and the session answers the next message", async () => {
    const s = await setup();
    // 80 words, one every 300 ms: 24 s of steady text, never near the 1.5 s idle window.
    const words = Array.from({ length: 80 }, (_, i) => `word${i}`).join(" ");
    expect(80 * 300).toBeGreaterThan(1.5 * DEADLINE_MS);
    await script(s.model, [{ reply: { text: words }, faults: { event_delay_ms: 300 } }, { reply: { text: "ok" } }]);
    const res = await send(s, { content: "take your time" });
    expect(res.body.status).toBe("failed");
    expect(res.body.error).toMatchObject({ code: "provider_step_timeout", retryable: false });
    // Not retried: a slow provider asked again would only repeat.
    expect(await mockRequests(s.model)).toHaveLength(1);
    const next = await send(s, { content: "again" });
    expect(next.body.status).toBe("completed");
    expect(pairingProblems(await history(s))).toEqual([]);
  });
});
