/**
 * The session's event log (`events` table, served by GET /events a page at a time): `EventLog.record` writes one
 * row per event, its data cut to fit, plus one structured log line (which `hold` defers, never drops); `sweep`
 * keeps the newest MAX_EVENTS. Secrets never go in event data.
 */
import { fairShares, fitJson, headWithin, jsonBytes } from "../storage/fit";
import { EVENT_BUDGET_BYTES, PAGE_BUDGET_BYTES } from "../storage/limits";
import { nowIso, one, seqPage, write } from "../storage/sql";
import { type LogLevel, log } from "./log";
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
  | "tools_unloaded"
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

/**
 * Event data that fits `budget` with its top-level keys kept. A top-level array over its share (thousands of tool
 * names or call ids) keeps its first items and `<key>_omitted` says how many were dropped: its many short strings
 * leave fitJson nothing to cut, and the whole data would become its cut JSON text. Long strings are then cut by
 * fitJson.
 */
function fitEventData(data: Record<string, unknown>, budget: number): Record<string, unknown> {
  if (jsonBytes(data) <= budget) return data;
  const arrays = Object.entries(data).filter((e): e is [string, unknown[]] => Array.isArray(e[1]));
  const trimmed: Record<string, unknown> = { ...data };
  // What the arrays' items may take: the budget less the rest, with each array empty beside its count field.
  const shell = {
    ...data,
    ...Object.fromEntries(
      arrays.flatMap(([k, v]) => [
        [k, []],
        [`${k}_omitted`, v.length],
      ]),
    ),
  };
  const sizes = arrays.map(([, v]) => jsonBytes(v) - 2);
  const caps = fairShares(sizes, budget - jsonBytes(shell));
  arrays.forEach(([key, items], i) => {
    if ((sizes[i] as number) <= (caps[i] as number)) return;
    // Each item costs its JSON and a comma.
    const kept = headWithin(items, caps[i] as number, (item) => jsonBytes(item) + 1);
    trimmed[key] = kept;
    trimmed[`${key}_omitted`] = items.length - kept.length;
  });
  const fitted = fitJson(trimmed, budget);
  return fitted && typeof fitted === "object" ? (fitted as Record<string, unknown>) : { truncated: fitted };
}

/** Events that always report a failure, and their log line's level: a bug or lost state is `error`. */
const FAILURE_LEVELS: Readonly<Partial<Record<SessionEventType, LogLevel>>> = {
  invariant_violation: "error",
  recovery_failed: "error",
  stream_error: "warn",
  compaction_failed: "warn",
  turn_interrupted: "warn",
};

/**
 * The level of an event's log line, so a log drain can pick out what went wrong: failures `warn` or `error`
 * (a failed turn or run, a callback or approval notice given up on, too), everything else `info`.
 */
function levelOf(type: SessionEventType, data: Record<string, unknown>): LogLevel {
  const failed =
    ((type === "turn_finished" || type === "run_finished") && data.status === "failed") ||
    (type === "callback_attempt" && data.callback_status === "failed") ||
    (type === "approval_notice_attempt" && data.notice_status === "failed");
  return FAILURE_LEVELS[type] ?? (failed ? "warn" : "info");
}

/** Newest events kept; older rows are swept when a turn settles (SessionEngine `#settled`, off the admission path). */
export const MAX_EVENTS = 5000;

export class EventLog {
  readonly #sql: SqlStorage;
  readonly #sessionName: () => string;
  readonly #logLines;
  /** Log lines held back while the admission path runs (see `hold`); null when lines go out at once. */
  #held: [LogLevel, SessionEventType, string | null, Record<string, unknown>][] | null = null;
  /**
   * At least as many events as the table holds (undefined: not yet counted). Every insert adds one, removals
   * elsewhere (retention, a rolled-back insert) only make it high, so `sweep` can skip its DELETE while the
   * count is within MAX_EVENTS: a session needs it only after MAX_EVENTS / 2 turns.
   */
  #count: number | undefined = undefined;
  constructor(sql: SqlStorage, sessionName: () => string, logLines = true) {
    this.#logLines = logLines;
    this.#sessionName = sessionName;
    this.#sql = sql;
  }

  record(type: SessionEventType, turnId: string | null, data: Record<string, unknown>): void {
    const at = nowIso();
    // Long lists keep their head and long strings are cut (with their original size) so the row fits; the log
    // line carries the same.
    const stored = fitEventData(data, EVENT_BUDGET_BYTES);
    write(
      this.#sql,
      "INSERT INTO events (type, at, turn_id, data) VALUES (?, ?, ?, ?)",
      type,
      at,
      turnId,
      JSON.stringify(stored),
    );
    if (this.#count !== undefined) this.#count++;
    eventSpan(type, turnId, data);
    // One structured line per event, so `wrangler tail` and log drains see the same facts.
    if (!this.#logLines) return;
    const level = levelOf(type, data);
    if (this.#held) this.#held.push([level, type, turnId, stored]);
    else this.#line(level, type, turnId, stored);
  }

  #line(level: LogLevel, type: SessionEventType, turnId: string | null, stored: Record<string, unknown>): void {
    log(level, type, { session: this.#sessionName(), turn_id: turnId, ...stored });
  }

  /**
   * Holds the log lines of the events recorded from now on (their rows are written at once, as always) until
   * `release`. A console line is not free (under `wrangler dev` about 1 ms each, bench/profile-turn.mjs): the
   * admission path holds its lines, and those of the events its first provider request records, until the
   * provider's answer is on its way (its first row, or the request's end) or the turn settles. Same lines, same
   * order; only later.
   */
  hold(): void {
    this.#held ??= [];
  }

  /** Writes the held lines, in the order their events were recorded, and stops holding. */
  release(): void {
    const held = this.#held;
    this.#held = null;
    for (const [level, type, turnId, stored] of held ?? []) this.#line(level, type, turnId, stored);
  }

  /**
   * A page of the events after seq `after`, oldest first (GET /events): at most `limit`, and no more than fit in
   * PAGE_BUDGET_BYTES of stored data (always one). Their sizes are read first, so events past the page are never
   * loaded. `next`: the page's last seq when events follow it.
   */
  page(after: number, limit: number): { items: SessionEvent[]; next: number | null } {
    const { rows, next } = seqPage<{ seq: number; type: string; at: string; turn_id: string | null; data: string }>(
      this.#sql,
      "events",
      "data",
      after,
      limit,
      PAGE_BUDGET_BYTES,
    );
    const items = rows.map((r) => ({
      seq: r.seq,
      type: r.type as SessionEventType,
      at: r.at,
      turn_id: r.turn_id,
      data: JSON.parse(r.data),
    }));
    return { items, next };
  }

  /**
   * Keeps at most the newest MAX_EVENTS events: those within MAX_EVENTS seqs of the newest. Events are removed
   * only oldest first or all at once, so their seqs are contiguous and exactly MAX_EVENTS stay; the cut is
   * found through the primary key, with no walk over the kept rows at every turn's end.
   */
  sweep(): void {
    this.#count ??= one<{ n: number }>(this.#sql, "SELECT count(*) AS n FROM events")?.n ?? 0;
    if (this.#count <= MAX_EVENTS) return;
    write(this.#sql, "DELETE FROM events WHERE seq <= (SELECT max(seq) FROM events) - ?", MAX_EVENTS);
    this.#count = MAX_EVENTS;
  }

  clear(): void {
    write(this.#sql, "DELETE FROM events");
    // Counted again on next use (a rolled-back clear leaves the rows).
    this.#count = undefined;
  }
}
