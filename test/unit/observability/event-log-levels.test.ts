// EventLog.record's log line per session event (src/observability/event-log.ts): its level says whether something
// failed. Apart from event-log.test.ts, which reads files with Node's APIs: this one needs the Workers types
// (tsconfig.json) for the module it imports.
import { afterEach, describe, expect, it, vi } from "vitest";
import { EventLog, type SessionEventType } from "../../../src/observability/event-log";

// event-log.ts opens spans through Workers' tracing API; in Node there is none (every span helper then runs bare).
vi.mock("cloudflare:workers", () => ({}));

/** An event log over a SQLite stand-in that accepts every write (only the log lines are looked at). */
function eventLog(): EventLog {
  const sql = { exec: () => ({ toArray: () => [], rowsWritten: 1 }) } as unknown as SqlStorage;
  return new EventLog(sql, () => "tenant:session");
}

/** The level of the one log line `record` wrote for the event, by the console stream it went to. */
function levelLogged(type: SessionEventType, data: Record<string, unknown>): string {
  const lines: string[] = [];
  for (const stream of ["log", "warn", "error"] as const) {
    vi.spyOn(console, stream).mockImplementation((line: string) => {
      lines.push(`${stream}:${JSON.parse(line).level}`);
    });
  }
  eventLog().record(type, "turn_1", data);
  expect(lines).toHaveLength(1);
  return lines[0] as string;
}

describe("an event's log line level", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each([
    ["invariant_violation", {}, "error:error"],
    ["recovery_failed", { error: "bad state" }, "error:error"],
    ["stream_error", { step: 1, code: "provider_http_error" }, "warn:warn"],
    ["compaction_failed", { reason: "too big" }, "warn:warn"],
    ["turn_interrupted", { synthesized_tool_use_ids: [] }, "warn:warn"],
    ["turn_finished", { status: "failed", finish_reason: "error" }, "warn:warn"],
    ["run_finished", { run_id: "run_1", status: "failed" }, "warn:warn"],
    ["callback_attempt", { run_id: "run_1", attempt: 5, callback_status: "failed" }, "warn:warn"],
    ["approval_notice_attempt", { run_id: "run_1", attempt: 5, notice_status: "failed" }, "warn:warn"],
  ] as const)("is warn or error for %s, a failure", (type, data, expected) => {
    expect(levelLogged(type, data)).toBe(expected);
  });

  it.each([
    ["turn_finished", { status: "completed", finish_reason: "end_turn" }],
    ["turn_started", { kind: "message", max_steps: 8 }],
    ["callback_attempt", { run_id: "run_1", attempt: 1, callback_status: "pending" }],
  ] as const)("is info for %s when nothing failed", (type, data) => {
    expect(levelLogged(type, data)).toBe("log:info");
  });
});
