// The structured logger (src/observability/log.ts): one JSON line per call, on the console stream of its level.
import { afterEach, describe, expect, it, vi } from "vitest";
import { log } from "../../../src/observability/log";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("log", () => {
  it("writes the level, the event name as msg and the fields as one JSON line", () => {
    const infoSpy = vi.spyOn(console, "log").mockImplementation(() => {});
    log("info", "retention_swept", { session: "t:s", runs: 3 });
    expect(infoSpy).toHaveBeenCalledTimes(1);
    const line = String(infoSpy.mock.calls[0]?.[0]);
    expect(line).not.toContain("\n");
    expect(JSON.parse(line)).toEqual({ level: "info", msg: "retention_swept", session: "t:s", runs: 3 });
  });

  it("sends error lines to console.error and warn lines to console.warn", () => {
    const errorSpy = vi.spyOn(console, "error").mockImplementation(() => {});
    const warnSpy = vi.spyOn(console, "warn").mockImplementation(() => {});
    const plainSpy = vi.spyOn(console, "log").mockImplementation(() => {});
    log("error", "turn_crashed", { turn_id: "turn_1", error: String(new Error("boom")) });
    log("warn", "slow_callback");
    expect(plainSpy).not.toHaveBeenCalled();
    expect(JSON.parse(String(errorSpy.mock.calls[0]?.[0]))).toEqual({
      level: "error",
      msg: "turn_crashed",
      turn_id: "turn_1",
      error: "Error: boom",
    });
    expect(JSON.parse(String(warnSpy.mock.calls[0]?.[0]))).toEqual({ level: "warn", msg: "slow_callback" });
  });
});
