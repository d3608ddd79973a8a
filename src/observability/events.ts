import { fitJson } from "../storage/fit";
import { EVENT_BUDGET_BYTES } from "../storage/limits";
import { all, nowIso, one, write } from "../storage/sql";
import { log } from "./log";
import { eventSpan } from "./tracing";

/** Typed session events, served by GET /events. Secrets never go in `data`. */
export type SessionEventType =
  | "turn_started"
  | "turn_finished"
  | "turn_interrupted"
  | "stream_error"
  | "partial_tool_use_persisted"
  | "partial_text_dropped"
  | "tool_use_stripped"
  | "tool_use_id_remapped"
  | "tool_result_synthesized"
  | "late_result_dropped"
  | "tool_result_refused"
  | "tool_call_invalid"
  | "tool_executed"
  | "tools_loaded"
  | "provider_retry"
  | "context_compacted"
  | "compaction_failed"
  | "invariant_violation"
  | "session_cleared"
  | "run_queued"
  | "run_started"
  | "run_resumed"
  | "run_finished"
  | "callback_attempt"
  | "recovery_failed"
  | "approval_requested"
  | "approval_granted"
  | "approval_declined"
  | "run_awaiting_approval"
  | "approval_notice_attempt";

export interface SessionEvent {
  seq: number;
  type: SessionEventType;
  at: string;
  turn_id: string | null;
  data: unknown;
}

/** Newest events kept; older rows are swept when a turn starts. */
export const MAX_EVENTS = 5000;

export class EventLog {
  readonly #sql: SqlStorage;
  readonly #sessionName: () => string;
  readonly #logLines;
  constructor(sql: SqlStorage, sessionName: () => string, logLines = true) {
    this.#logLines = logLines;
    this.#sessionName = sessionName;
    this.#sql = sql;
  }

  record(type: SessionEventType, turnId: string | null, data: Record<string, unknown>): void {
    const at = nowIso();
    // Long strings are cut (with their original size) so the row fits; the log line carries the same.
    const fitted = fitJson(data, EVENT_BUDGET_BYTES);
    const stored = fitted && typeof fitted === "object" ? (fitted as Record<string, unknown>) : { truncated: fitted };
    write(
      this.#sql,
      "INSERT INTO events (type, at, turn_id, data) VALUES (?, ?, ?, ?)",
      type,
      at,
      turnId,
      JSON.stringify(stored),
    );
    eventSpan(type, turnId, data);
    // One structured line per event, so `wrangler tail` and log drains see the same facts.
    if (this.#logLines) log("info", type, { session: this.#sessionName(), turn_id: turnId, ...stored });
  }

  list(after: number, limit: number): SessionEvent[] {
    return all<{ seq: number; type: string; at: string; turn_id: string | null; data: string }>(
      this.#sql,
      "SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
      after,
      limit,
    ).map((r) => ({
      seq: r.seq,
      type: r.type as SessionEventType,
      at: r.at,
      turn_id: r.turn_id,
      data: JSON.parse(r.data),
    }));
  }

  sweep(): void {
    const cutoff = one<{ seq: number }>(
      this.#sql,
      "SELECT seq FROM events ORDER BY seq DESC LIMIT 1 OFFSET ?",
      MAX_EVENTS,
    );
    if (cutoff) write(this.#sql, "DELETE FROM events WHERE seq <= ?", cutoff.seq);
  }

  clear(): void {
    write(this.#sql, "DELETE FROM events");
  }
}
