// The web client's reads made again quietly (readPatiently): a failure that trying again can help waits and reads
// again, longer each time; only a final failure reaches the page.
import { describe, expect, it } from "vitest";
import { ApiFailure } from "../../../web/src/errors.ts";
import { readPatiently } from "../../../web/src/read-patiently.ts";

/** A read that fails with each of `failures` in turn, then resolves with `value`; `reads` counts its calls. */
function flaky<T>(failures: Error[], value: T): { read: () => Promise<T>; reads: () => number } {
  let n = 0;
  return {
    read: async () => {
      const failure = failures[n++];
      if (failure) throw failure;
      return value;
    },
    reads: () => n,
  };
}

const SERVER_ERROR = new ApiFailure(500, "internal_error", "The server had a problem. Try again in a moment.");
const UNREACHABLE = new ApiFailure(0, "network_error", "Cannot reach the server. Check your connection and try again.");

describe("readPatiently", () => {
  it("reads again after a server error and resolves with what the next read got, the failure never reported", async () => {
    const history = flaky([SERVER_ERROR], { entries: ["h1"] });
    await expect(readPatiently(history.read, async () => {})).resolves.toEqual({ entries: ["h1"] });
    expect(history.reads()).toBe(2);
  });

  it("rejects at once with a failure trying again cannot help (an expired link), not reading again", async () => {
    const expired = new ApiFailure(401, "token_expired", "Your session link has expired.");
    const history = flaky([expired], "never");
    await expect(readPatiently(history.read, async () => {})).rejects.toBe(expired);
    expect(history.reads()).toBe(1);
  });

  it("waits a second, then twice as long after each failure, at most 30 s", async () => {
    const waits: number[] = [];
    const history = flaky(Array(7).fill(UNREACHABLE), "read");
    await readPatiently(history.read, async (ms) => {
      waits.push(ms);
    });
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
  });

  it("waits at least a rate limit's Retry-After", async () => {
    const waits: number[] = [];
    const limited = new ApiFailure(429, "rate_limited", "Too many requests. Try again in 5 seconds.", 5);
    await readPatiently(flaky([limited], "read").read, async (ms) => {
      waits.push(ms);
    });
    expect(waits).toEqual([5000]);
  });
});
