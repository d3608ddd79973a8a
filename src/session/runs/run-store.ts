/**
 * Storage of a session's runs: `RunStore` inserts them (a second insert of the same id is a no-op), records
 * their status, result, callback attempts and approval notices, and sweeps old finished runs, never removing
 * open runs or pending callbacks. A run's input and schema (up to 1 MiB each) are read only when it starts.
 */
import type { ErrorInfo } from "../../model/errors";
import type { JsonObject } from "../../model/json";
import type { Part } from "../../model/message";
import { PAUSED } from "../../model/turn";
import { cutText, fitJson, jsonBytes } from "../../storage/fit";
import { ERROR_BUDGET_BYTES, RUN_RESULT_BUDGET_BYTES } from "../../storage/limits";
import { all, nowIso, one, write } from "../../storage/sql";
import { sqlList } from "../../storage/sql-list";
import {
  type CallbackAttempt,
  type CallbackStatus,
  OPEN_RUN_STATUSES,
  RUNS_KEPT,
  type RunOutput,
  type RunSpec,
  type RunStatus,
  type RunView,
} from "./types";

/**
 * A run as the alarm, views and callbacks read it: every column but `input` and `json_schema`, which may be up
 * to 1 MiB each (a session may hold MAX_QUEUED_RUNS queued runs) and are needed only to start it (`startSpec`).
 */
export interface RunRow {
  id: string;
  agent: string;
  status: RunStatus;
  callback_url: string | null;
  webhook_id: string | null;
  turn_id: string | null;
  resumes: number;
  result: string | null;
  error: string | null;
  callback_status: CallbackStatus | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  [key: string]: string | number | null;
}

/**
 * OPEN_RUN_STATUSES as SQL, for `status IN (${OPEN_RUN})`: term for term the predicate of the partial index
 * `runs_open_created` (DO schema v16). SQLite uses a partial index only for a query whose WHERE has that term,
 * so every query over open runs says it, and reads the open runs in creation order instead of every run kept;
 * one narrower than "open" (queued, started) adds its own term beside it.
 */
export const OPEN_RUN = sqlList(OPEN_RUN_STATUSES);

/** The columns of a RunRow. */
const ROW = `id, agent, status, callback_url, webhook_id, turn_id, resumes, result, error, callback_status,
  created_at, started_at, ended_at`;

/**
 * Ended runs that retention (RUNS_KEPT here, the runs retention in src/session/sweeper.ts) may delete: their
 * callback is not waiting, and their turn is not still paused. A run that failed because its turn stopped for
 * client tools leaves that turn paused as the session's newest; `SessionRuns.blocked()` lets later runs past it
 * only because a run owns it, and a resumed turn carries no `run:` key to tell, so the row stays until the
 * session moves on from that turn.
 */
export const SWEEPABLE_RUN = `status IN ('completed', 'failed') AND coalesce(callback_status, '') != 'pending'
  AND NOT EXISTS (SELECT 1 FROM turns pt WHERE pt.id = runs.turn_id
                  AND pt.status IN (${sqlList(PAUSED)}))`;

/**
 * A run's result under RUN_RESULT_BUDGET_BYTES: its structured result whole (a cut one would no longer match its
 * schema; answerStructured refuses one over STRUCTURED_RESULT_BUDGET_BYTES), its final text cut to what is left.
 */
function fitOutput(result: RunOutput): RunOutput {
  const { structured_result, ...text } = result;
  if (structured_result === undefined) return fitJson(text, RUN_RESULT_BUDGET_BYTES) as RunOutput;
  const room = RUN_RESULT_BUDGET_BYTES - jsonBytes({ structured_result });
  return { ...(fitJson(text, room) as RunOutput), structured_result };
}

/** The session's `runs` and `run_callbacks` tables. Every method is SQL only, so callers compose them in transactions. */
export class RunStore {
  /**
   * True when the table is known to hold no run (read once per instance; an insert clears it): then `unsettled`,
   * asked at every turn's end, reads nothing. Never set true by a write, so a rollback can only cost a read.
   */
  #none: boolean | undefined = undefined;
  readonly #sql: SqlStorage;
  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  get(id: string): RunRow | null {
    return one<RunRow>(this.#sql, `SELECT ${ROW} FROM runs WHERE id = ?`, id);
  }

  /** Inserts a queued run; a second insert of the same id is a no-op (duplicate webhook deliveries). */
  insert(spec: RunSpec): boolean {
    this.#none = false;
    return (
      write(
        this.#sql,
        `INSERT INTO runs (id, agent, status, input, json_schema, callback_url, webhook_id, callback_status, created_at)
         VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
        spec.id,
        spec.agent,
        JSON.stringify(spec.input),
        spec.json_schema ? JSON.stringify(spec.json_schema) : null,
        spec.callback_url ?? null,
        spec.webhook_id ?? null,
        spec.callback_url ? "pending" : null,
        spec.created_at,
      ) > 0
    );
  }

  /**
   * Writes back a run `open` read before the session's storage was wiped (the rebuild of a broken session), as it
   * was but for its input and schema, which are not kept (`[]`): it is failed in the same transaction and never
   * starts (`SessionRuns.failRebuilt`).
   */
  restore(row: RunRow): void {
    this.#none = false;
    const columns = ROW.split(",").map((c) => c.trim());
    write(
      this.#sql,
      `INSERT INTO runs (input, ${ROW}) VALUES ('[]'${", ?".repeat(columns.length)}) ON CONFLICT (id) DO NOTHING`,
      ...columns.map((c) => row[c] ?? null),
    );
  }

  /** Every run not yet ended (each alarm reads them first): without their inputs. */
  open(): RunRow[] {
    return all<RunRow>(this.#sql, `SELECT ${ROW} FROM runs WHERE status IN (${OPEN_RUN}) ORDER BY created_at`);
  }

  /** How many runs wait to start (the queue MAX_QUEUED_RUNS caps): a count over the open runs' index. */
  queued(): number {
    return (
      one<{ n: number }>(
        this.#sql,
        `SELECT count(*) AS n FROM runs WHERE status IN (${OPEN_RUN}) AND status = 'queued'`,
      )?.n ?? 0
    );
  }

  /**
   * Of `ids`, the runs still open: queued, running, awaiting a person's approval, or with a callback not yet
   * delivered (the D1 retention cron keeps their records: the approval route and `GET /v1/runs/{id}` read them).
   * An unknown id is not open. Asks 100 ids per statement at most (the bound-parameter cap).
   */
  stillOpen(ids: string[]): string[] {
    const open: string[] = [];
    for (let i = 0; i < ids.length; i += 100) {
      const list = ids.slice(i, i + 100);
      const rows = all<{ id: string }>(
        this.#sql,
        `SELECT id FROM runs WHERE id IN (${list.map(() => "?").join(", ")})
           AND (status IN (${OPEN_RUN}) OR callback_status = 'pending')`,
        ...list,
      );
      open.push(...rows.map((r) => r.id));
    }
    return open;
  }

  /**
   * Whether an open run's state disagrees with its turn's, with no runner active: its turn ended, paused, was
   * interrupted, cleared, or is stored `running` with no runner left to end it (an orphan). Only the alarm's
   * re-check settles such a run (a run awaiting approval whose turn still waits for one agrees).
   */
  unsettled(): boolean {
    this.#none ??= one(this.#sql, "SELECT 1 AS x FROM runs LIMIT 1") === null;
    if (this.#none) return false;
    return (
      one(
        this.#sql,
        `SELECT 1 AS x FROM runs r LEFT JOIN turns t ON t.id = r.turn_id
          WHERE r.status IN (${OPEN_RUN}) AND r.status != 'queued' AND r.turn_id IS NOT NULL
            AND (t.status IS NULL OR NOT (r.status = 'awaiting_approval' AND t.status = 'awaiting_approval'))
          LIMIT 1`,
      ) !== null
    );
  }

  /** Whether a run (open or ended) owns this turn: its turn, or one it resumed. */
  ownsTurn(turnId: string): boolean {
    return one(this.#sql, "SELECT 1 AS x FROM runs WHERE turn_id = ? LIMIT 1", turnId) !== null;
  }

  /** The open run (running or awaiting approval: started) whose turn this is. */
  byTurn(turnId: string): RunRow | null {
    return one<RunRow>(
      this.#sql,
      `SELECT ${ROW} FROM runs WHERE status IN (${OPEN_RUN}) AND status != 'queued' AND turn_id = ?`,
      turnId,
    );
  }

  /** running ⇄ awaiting_approval while the run's turn pauses for a person and resumes. */
  setStatus(id: string, status: "running" | "awaiting_approval"): void {
    write(this.#sql, "UPDATE runs SET status = ? WHERE id = ?", status, id);
  }

  /** The "awaiting approval" notification of a run's current pause (one per pause: `webhook_id` differs). */
  notice(
    runId: string,
  ): { run_id: string; turn_id: string; webhook_id: string; attempts: number; status: string } | null {
    return one(this.#sql, "SELECT * FROM run_notices WHERE run_id = ?", runId);
  }

  /** A new pause: a fresh notice (replacing the previous pause's); returns false when this pause already has one. */
  newNotice(runId: string, turnId: string, webhookId: string): boolean {
    if (this.notice(runId)?.webhook_id === webhookId) return false;
    write(
      this.#sql,
      "INSERT OR REPLACE INTO run_notices (run_id, turn_id, webhook_id, attempts, status) VALUES (?, ?, ?, 0, 'pending')",
      runId,
      turnId,
      webhookId,
    );
    return true;
  }

  /**
   * An attempt's outcome, for the notice it delivered (`webhookId`); false when a new pause replaced that notice
   * while it was in flight (the new one is left as it is, still to be sent).
   */
  recordNotice(
    runId: string,
    webhookId: string,
    status: "pending" | "delivered" | "failed",
    error: string | null,
  ): boolean {
    return (
      write(
        this.#sql,
        "UPDATE run_notices SET attempts = attempts + 1, status = ?, error = ? WHERE run_id = ? AND webhook_id = ?",
        status,
        error,
        runId,
        webhookId,
      ) > 0
    );
  }

  started(id: string, turnId: string): void {
    write(
      this.#sql,
      "UPDATE runs SET status = 'running', turn_id = ?, started_at = coalesce(started_at, ?) WHERE id = ?",
      turnId,
      nowIso(),
      id,
    );
  }

  resumed(id: string): void {
    write(this.#sql, "UPDATE runs SET resumes = resumes + 1 WHERE id = ?", id);
  }

  finish(id: string, status: "completed" | "failed", result: RunOutput | null, error: ErrorInfo | null): void {
    write(
      this.#sql,
      "UPDATE runs SET status = ?, result = ?, error = ?, ended_at = ? WHERE id = ?",
      status,
      // Both fit their budgets (long strings cut with their original size): the row stays under the limit.
      result ? JSON.stringify(fitOutput(result)) : null,
      error ? JSON.stringify(fitJson(error, ERROR_BUDGET_BYTES)) : null,
      nowIso(),
      id,
    );
  }

  attempts(id: string): CallbackAttempt[] {
    return all<CallbackAttempt & Record<string, string | number | null>>(
      this.#sql,
      "SELECT attempt, at, status, error FROM run_callbacks WHERE run_id = ? ORDER BY attempt",
      id,
    ).map((a) => ({ attempt: a.attempt, at: a.at, status: a.status, error: a.error }));
  }

  recordAttempt(id: string, a: CallbackAttempt, callbackStatus: CallbackStatus): void {
    write(
      this.#sql,
      "INSERT OR REPLACE INTO run_callbacks (run_id, attempt, at, status, error) VALUES (?, ?, ?, ?, ?)",
      id,
      a.attempt,
      a.at,
      a.status,
      a.error === null ? null : cutText(a.error, ERROR_BUDGET_BYTES),
    );
    write(this.#sql, "UPDATE runs SET callback_status = ? WHERE id = ?", callbackStatus, id);
  }

  /**
   * Keeps the newest finished runs (and their attempts) only; open runs, pending callbacks and runs whose turn is
   * still paused are never swept (SWEEPABLE_RUN).
   */
  sweep(): void {
    write(
      this.#sql,
      `DELETE FROM runs WHERE ${SWEEPABLE_RUN}
         AND id NOT IN (SELECT id FROM runs ORDER BY created_at DESC LIMIT ?)`,
      RUNS_KEPT,
    );
    write(this.#sql, "DELETE FROM run_callbacks WHERE run_id NOT IN (SELECT id FROM runs)");
    write(this.#sql, "DELETE FROM run_notices WHERE run_id NOT IN (SELECT id FROM runs)");
  }

  /** What a run starts its turn with: the one read of its input and schema. */
  startSpec(id: string): { input: Part[]; json_schema?: JsonObject } | null {
    const row = one<{ input: string; json_schema: string | null }>(
      this.#sql,
      "SELECT input, json_schema FROM runs WHERE id = ?",
      id,
    );
    if (!row) return null;
    return {
      input: JSON.parse(row.input) as Part[],
      ...(row.json_schema ? { json_schema: JSON.parse(row.json_schema) as JsonObject } : {}),
    };
  }

  view(row: RunRow, sessionId: string, nextAttemptAt: number | null): RunView {
    const stored = row.result ? (JSON.parse(row.result) as RunOutput) : undefined;
    // The row keeps the structured result inside `result`; a view (and a callback) shows it once, at the top level.
    const result = stored && { output: stored.output, finish_reason: stored.finish_reason, usage: stored.usage };
    return {
      run_id: row.id,
      agent: row.agent,
      session_id: sessionId,
      status: row.status,
      turn_id: row.turn_id,
      created_at: row.created_at,
      started_at: row.started_at,
      ended_at: row.ended_at,
      resumes: row.resumes,
      ...(result ? { result } : {}),
      ...(stored?.structured_result !== undefined ? { structured_result: stored.structured_result } : {}),
      ...(row.error ? { error: JSON.parse(row.error) as ErrorInfo } : {}),
      ...(row.callback_url
        ? {
            callback: {
              url: row.callback_url,
              status: row.callback_status ?? "pending",
              attempts: this.attempts(row.id),
              next_attempt_at: nextAttemptAt === null ? null : new Date(nextAttemptAt).toISOString(),
            },
          }
        : {}),
    };
  }
}
