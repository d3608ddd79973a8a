// Retention settings (src/retention/config.ts): the defaults, each SWITCHBOARD_RETENTION_* variable in its unit, and
// the default again for a malformed value.
import { describe, expect, it } from "vitest";
import { type RetentionVars, retentionOf } from "../../../src/retention/config";

const DAY = 86_400_000;
const envWith = (vars: RetentionVars) => vars;

describe("retention settings (SWITCHBOARD_RETENTION_*)", () => {
  it("defaults: stream log 1 h, events, turns and runs 30 days, sessions never expire", () => {
    expect(retentionOf(envWith({}))).toEqual({
      streamMs: 3_600_000,
      eventsMs: 30 * DAY,
      turnsMs: 30 * DAY,
      runsMs: 30 * DAY,
      sessionIdleMs: 0,
    });
  });

  it("reads each variable in its unit, and 0 turns a sweep off", () => {
    expect(
      retentionOf(
        envWith({
          SWITCHBOARD_RETENTION_STREAM_S: "60",
          SWITCHBOARD_RETENTION_EVENTS_DAYS: "0",
          SWITCHBOARD_RETENTION_TURNS_DAYS: "7",
          SWITCHBOARD_RETENTION_RUNS_DAYS: "0.5",
          SWITCHBOARD_RETENTION_SESSION_IDLE_DAYS: "90",
        }),
      ),
    ).toEqual({ streamMs: 60_000, eventsMs: 0, turnsMs: 7 * DAY, runsMs: DAY / 2, sessionIdleMs: 90 * DAY });
  });

  it("falls back to the default for a malformed or negative value", () => {
    const r = retentionOf(
      envWith({ SWITCHBOARD_RETENTION_EVENTS_DAYS: "a month", SWITCHBOARD_RETENTION_RUNS_DAYS: "-1" }),
    );
    expect(r.eventsMs).toBe(30 * DAY);
    expect(r.runsMs).toBe(30 * DAY);
  });
});
