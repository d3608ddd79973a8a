// callbackDelay (src/session/runs/types.ts): the backoff between a run's callback attempts.
import { describe, expect, it } from "vitest";
import { CALLBACK_MAX_DELAY_MS, callbackDelay } from "../../../../src/session/runs/types";

describe("callback backoff", () => {
  it("grows by 3x from 10 s, with at most 10 % jitter, capped at 15 min", () => {
    expect([1, 2, 3, 4, 5].map((n) => callbackDelay(n, 0))).toEqual([10_000, 30_000, 90_000, 270_000, 810_000]);
    expect(callbackDelay(1, 1)).toBe(11_000);
    expect(callbackDelay(9, 0)).toBe(CALLBACK_MAX_DELAY_MS);
  });
});
