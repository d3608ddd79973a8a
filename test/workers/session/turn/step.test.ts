// One step of a turn (src/session/turn/step.ts) under the step deadline (src/providers/sse.ts): a provider that
// streams real events slowly but steadily, never idle for the suite's 1.5 s window, fails its step at the deadline
// as a cut stream does (the text it streamed recorded as partial_text_dropped), and the session takes the next
// message. The session asks its step under the suite's SWITCHBOARD_STEP_TIMEOUT_MS (15 s, longer than the suite's
// other streams); each test here checks that it did, and has the stream read under a DEADLINE_MS deadline instead,
// so that it waits a fraction of a second and not the suite's 15 s.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { anthropic } from "../../../../src/providers/anthropic";
import {
  events,
  history,
  mockRequests,
  pairingProblems,
  patch,
  restorePatches,
  script,
  send,
  setup,
} from "../../helpers";

/** The deadline the tests' provider streams are read under. */
const DEADLINE_MS = 300;

/** How far apart the steady stream's events come: far inside the suite's 1.5 s idle window. */
const EVENT_MS = 20;

/** 80 words, one every EVENT_MS: 1.6 s of steady text, well past DEADLINE_MS. */
const STEADY_WORDS = Array.from({ length: 80 }, (_, i) => `word${i}`).join(" ");

/**
 * Has the Anthropic adapter read each stream under DEADLINE_MS (until restorePatches), whatever deadline the session
 * asked for; returns the deadlines the session asked for, one per provider request, in order.
 */
function shortDeadline(): number[] {
  const asked: number[] = [];
  const { stream } = anthropic;
  patch(anthropic, "stream", (req, endpoint, policy, signal) => {
    asked.push(policy.stepTimeoutMs);
    return stream.call(anthropic, req, endpoint, { ...policy, stepTimeoutMs: DEADLINE_MS }, signal);
  });
  return asked;
}

/** Scripts `model` with the steady text as its first step (cut by the deadline) and "ok" as the next. */
async function scriptSteadyStep(model: string): Promise<void> {
  expect(80 * EVENT_MS).toBeGreaterThan(1.5 * DEADLINE_MS);
  await script(model, [
    { reply: { text: STEADY_WORDS }, faults: { event_delay_ms: EVENT_MS } },
    { reply: { text: "ok" } },
  ]);
}

describe("the step deadline", () => {
  afterEach(restorePatches);

  it("ends a slow but steady step with provider_step_timeout, sent once, and the session answers the next message", async () => {
    const s = await setup();
    await scriptSteadyStep(s.model);
    const asked = shortDeadline();
    const res = await send(s, { content: "take your time" });
    // The session asked its step under the configured deadline (the stream was read under DEADLINE_MS).
    expect(asked).toEqual([Number(env.SWITCHBOARD_STEP_TIMEOUT_MS)]);
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
    const asked = shortDeadline();
    const res = await send(s, { content: "take your time" });
    expect(asked).toEqual([Number(env.SWITCHBOARD_STEP_TIMEOUT_MS)]);
    expect(res.body.error).toMatchObject({ code: "provider_step_timeout" });
    const dropped = (await events(s)).filter((e) => e.type === "partial_text_dropped");
    expect(dropped).toHaveLength(1);
    // The deadline fell inside the one text block: its streamed words, from the first, not the whole answer.
    const text = String(dropped[0]?.data.text);
    expect(text.startsWith("word0 word1")).toBe(true);
    expect(STEADY_WORDS.startsWith(text) && text.length < STEADY_WORDS.length).toBe(true);
  });
});
