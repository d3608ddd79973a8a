// The web client's reconnecting to a running turn whose stream it lost (web/src/reconnect.ts): a stream dropped
// mid-answer, or a resumption that failed in a way trying again can help, is rejoined after a wait, a few times in
// a row at most; a failure trying again cannot help is not tried again.
import { describe, expect, it } from "vitest";
import { ApiFailure } from "../../../web/src/errors.ts";
import { afterLostStream, RECONNECT_GAVE_UP, RECONNECTING, reconnectDelayMs } from "../../../web/src/reconnect.ts";

const SERVER_ERROR = new ApiFailure(503, "unavailable", "The server had a problem. Try again in a moment.");
const UNREACHABLE = new ApiFailure(0, "network_error", "Cannot reach the server. Check your connection and try again.");

describe("reconnectDelayMs", () => {
  it("rejoins a stream dropped mid-answer after a short wait, a longer one each drop in a row", () => {
    const waits = [1, 2, 3].map(reconnectDelayMs);
    expect(waits.every((w) => w !== null && w > 0 && w <= 5000)).toBe(true);
    expect(waits).toEqual([...waits].sort((a, b) => (a ?? 0) - (b ?? 0)));
  });

  it("stops rejoining by itself after a few drops in a row, so tabs dropping one another settle", () => {
    expect(reconnectDelayMs(4)).toBeNull();
    expect(reconnectDelayMs(9)).toBeNull();
  });
});

describe("afterLostStream", () => {
  it("rejoins a stream that broke off mid-answer after the first wait, saying it reconnects", () => {
    expect(afterLostStream(1)).toEqual({ waitMs: reconnectDelayMs(1), notice: RECONNECTING });
  });

  it("rejoins a running turn whose resumption met a server error, as a dropped stream is", () => {
    expect(afterLostStream(1, SERVER_ERROR)).toEqual({ waitMs: reconnectDelayMs(1), notice: RECONNECTING });
  });

  it("rejoins a running turn whose resumption found the server unreachable, each wait longer than the last", () => {
    expect(afterLostStream(2, UNREACHABLE)).toEqual({ waitMs: reconnectDelayMs(2), notice: RECONNECTING });
  });

  it("waits at least a rate-limited resumption's Retry-After", () => {
    const limited = new ApiFailure(429, "rate_limited", "Too many requests. Try again in 5 seconds.", 5);
    expect(afterLostStream(1, limited)).toEqual({ waitMs: 5000, notice: RECONNECTING });
  });

  it("stops after a few lost streams in a row, failed resumptions counted, and asks for a reload", () => {
    expect(afterLostStream(4, SERVER_ERROR)).toEqual({ waitMs: null, notice: RECONNECT_GAVE_UP });
  });

  it("does not rejoin when trying again cannot help (an expired link): the failure says why", () => {
    expect(afterLostStream(1, new ApiFailure(401, "token_expired", "Your session link has expired."))).toBeNull();
  });
});
