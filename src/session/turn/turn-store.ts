/**
 * Storage of a session's turns: `TurnStore` creates, reads and updates rows of the `turns` table and caches
 * the newest one. Step counts and usage are held in memory and written with the turn's next status change,
 * so a step writes no row of its own.
 */
import type { ErrorInfo } from "../../model/errors";
import { ACTIVE, type TurnKind, type TurnStatus } from "../../model/turn";
import { fitJson } from "../../storage/fit";
import { ERROR_BUDGET_BYTES, RUN_RESULT_BUDGET_BYTES } from "../../storage/limits";
import { deleteMeta, metaValue } from "../../storage/meta";
import { all, nowIso, one, type SqlValue, write } from "../../storage/sql";
import { sqlList } from "../../storage/sql-list";

export interface TurnRow {
  id: string;
  ord: number;
  status: TurnStatus;
  kind: TurnKind;
  steps: number;
  max_steps: number;
  first_message_seq: number | null;
  log_start: number;
  segment_start: number;
  error: string | null;
  finish_reason: string | null;
  usage: string;
  idempotency_key: string | null;
  body_hash: string | null;
  json_schema: string | null;
  structured_result: string | null;
  started_at: string;
  ended_at: string | null;
  [key: string]: string | number | null;
}

/** How a turn ended, or that it has not: `last_turn` of the session state and a history page's `turns`. */
export interface TurnOutcome {
  id: string;
  status: TurnStatus;
  finish_reason: string | null;
  error: ErrorInfo | null;
}

export function outcomeOf(row: Pick<TurnRow, "id" | "status" | "finish_reason" | "error">): TurnOutcome {
  return {
    id: row.id,
    status: row.status,
    finish_reason: row.finish_reason,
    error: row.error ? (JSON.parse(row.error) as ErrorInfo) : null,
  };
}

/** The `turns` table: one row per turn, in order. */
export class TurnStore {
  /**
   * Steps ended and usage reported but not yet written: they go out with the
   * turn's next status write (finish, pause, resume), so a step costs no row
   * of its own. A crash loses them with the turn, which is then `interrupted`.
   */
  #pendingSteps = new Map<string, number>();
  #pendingUsage = new Map<string, Record<string, number>>();
  /** Session transactions open (`within`). */
  #depth = 0;
  /**
   * What writes in the open session transaction took from pending: if it rolls back (`invalidate`), those writes
   * are undone, so it is pending again and goes out with the turn's next write instead of being lost.
   */
  #taken: Array<{ id: string; steps: number; usage: Record<string, number> }> = [];
  /**
   * The newest turn's row as this store last wrote or read it; undefined when unknown (a new instance, a
   * rollback, `clear`). Every write of `turns` goes through this class except the retention sweep's, which
   * never removes the newest turn, so a turn's admission, steps and end read no row back.
   */
  #newest: TurnRow | null | undefined = undefined;
  /**
   * Every turn of the session (`count`), once counted; undefined when unknown (a new instance, a rollback,
   * `clear`). `create` adds one; the retention sweep moves rows into `meta.turns_swept` in one transaction, which
   * leaves the total as it was.
   */
  #count: number | undefined = undefined;

  readonly #sql: SqlStorage;
  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /**
   * The newest turn. Turns are inserted in `ord` order and removed only by
   * `clear` and the retention sweep (which never removes the newest), and both `ord` and the rowid are "largest remaining + 1", so the
   * rowid order is the `ord` order (no index on `ord` to write per turn).
   */
  latest(): TurnRow | null {
    if (this.#newest === undefined) {
      this.#newest = one<TurnRow>(this.#sql, "SELECT * FROM turns ORDER BY rowid DESC LIMIT 1");
    }
    return this.#overlay(this.#newest && { ...this.#newest });
  }

  get(id: string): TurnRow | null {
    if (this.#newest?.id === id) return this.#overlay({ ...this.#newest });
    return this.#overlay(one<TurnRow>(this.#sql, "SELECT * FROM turns WHERE id = ?", id));
  }

  /**
   * Forgets the newest row (a rollback, a wipe): the next `latest` reads it. What the rolled-back transaction's
   * writes took from pending is pending again.
   */
  invalidate(): void {
    this.#newest = undefined;
    this.#count = undefined;
    const taken = this.#taken;
    this.#taken = [];
    for (const t of taken) {
      this.#pendingSteps.set(t.id, (this.#pendingSteps.get(t.id) ?? 0) + t.steps);
      this.addUsage(t.id, t.usage);
    }
  }

  /**
   * Runs `run`, a session transaction (session-tx.ts): until the outermost one has committed or rolled back, what
   * its writes take from pending is kept to put back on a rollback.
   */
  within<T>(run: () => T): T {
    this.#depth++;
    try {
      return run();
    } finally {
      if (--this.#depth === 0) this.#taken = [];
    }
  }

  /** Runs an UPDATE … RETURNING * of one turn and keeps the row when it is the newest. */
  #update(id: string, query: string, ...params: SqlValue[]): void {
    const row = one<TurnRow>(this.#sql, `${query} RETURNING *`, ...params);
    if (row && this.#newest?.id === id) this.#newest = row;
  }

  byIdempotencyKey(key: string): TurnRow | null {
    return this.#overlay(one<TurnRow>(this.#sql, "SELECT * FROM turns WHERE idempotency_key = ?", key));
  }

  withStatus(status: TurnStatus): TurnRow[] {
    return all<TurnRow>(this.#sql, "SELECT * FROM turns WHERE status = ?", status).map(
      (t) => this.#overlay(t) as TurnRow,
    );
  }

  /** A row as it will be once its pending step count is written. */
  #overlay(row: TurnRow | null): TurnRow | null {
    const steps = row ? this.#pendingSteps.get(row.id) : undefined;
    return row && steps ? { ...row, steps: row.steps + steps } : row;
  }

  /**
   * How each ended turn that wrote a message with a seq in (after, upto] ended, oldest first: a history page's
   * `turns`, so a client reloading a transcript can say which turns failed, stopped or were cut off. A turn the
   * retention sweep removed, or one that wrote no message, is not listed.
   */
  endedIn(after: number, upto: number): TurnOutcome[] {
    // Only the outcome's columns: a turn's json_schema and structured_result can each be a megabyte.
    return all<Pick<TurnRow, "id" | "status" | "finish_reason" | "error">>(
      this.#sql,
      `SELECT id, status, finish_reason, error FROM turns WHERE ended_at IS NOT NULL
         AND id IN (SELECT turn_id FROM messages WHERE seq > ? AND seq <= ? AND turn_id IS NOT NULL)
       ORDER BY rowid`,
      after,
      upto,
    ).map(outcomeOf);
  }

  /**
   * Every turn of the session: the rows kept plus those the retention sweep deleted (`meta.turns_swept`). Counted
   * once per instance (a `count(*)` reads every row), then kept by `create`.
   */
  count(): number {
    if (this.#count === undefined) {
      const kept = one<{ n: number }>(this.#sql, "SELECT count(*) AS n FROM turns")?.n ?? 0;
      this.#count = kept + Number(metaValue(this.#sql, "turns_swept") ?? 0);
    }
    return this.#count;
  }

  create(t: {
    id: string;
    kind: TurnKind;
    max_steps: number;
    log_start: number;
    idempotency_key: string | null;
    body_hash: string | null;
    json_schema?: string | null;
    first_message_seq?: number | null;
  }): TurnRow {
    // One statement: `ord` is the newest turn's + 1 (see `latest`), and the row comes back as written.
    const row = one<TurnRow>(
      this.#sql,
      `INSERT INTO turns (id, ord, status, kind, max_steps, log_start, segment_start, idempotency_key, body_hash, json_schema, first_message_seq, started_at)
       VALUES (?, coalesce((SELECT ord FROM turns ORDER BY rowid DESC LIMIT 1), 0) + 1, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?)
       RETURNING *`,
      t.id,
      t.kind,
      t.max_steps,
      t.log_start,
      t.log_start,
      t.idempotency_key,
      t.body_hash,
      t.json_schema ?? null,
      t.first_message_seq ?? null,
      nowIso(),
    );
    this.#newest = row;
    if (this.#count !== undefined) this.#count++;
    return { ...(row as TurnRow) };
  }

  /** Stored whole: answerStructured refuses a value over STRUCTURED_RESULT_BUDGET_BYTES, below this budget. */
  setStructuredResult(id: string, value: unknown): void {
    this.#update(
      id,
      "UPDATE turns SET structured_result = ? WHERE id = ?",
      JSON.stringify(fitJson(value, RUN_RESULT_BUDGET_BYTES)),
      id,
    );
  }

  setStatus(id: string, status: TurnStatus): void {
    const { steps, usage, added } = this.#pending(id);
    this.#update(
      id,
      "UPDATE turns SET status = ?, steps = steps + ?, usage = ? WHERE id = ?",
      status,
      steps,
      usage,
      id,
    );
    this.#written(id, steps, added);
  }

  /** A paused turn continues: clients that open the stream now start at this log position. */
  resume(id: string, segmentStart: number): void {
    const { steps, usage, added } = this.#pending(id);
    this.#update(
      id,
      "UPDATE turns SET status = 'running', segment_start = ?, steps = steps + ?, usage = ? WHERE id = ?",
      segmentStart,
      steps,
      usage,
      id,
    );
    this.#written(id, steps, added);
  }

  /** Counts an ended step (written with the next status write; `get` shows it at once). */
  stepDone(id: string): void {
    this.#pendingSteps.set(id, (this.#pendingSteps.get(id) ?? 0) + 1);
  }

  /** Adds a step's usage; it is written with the step's end (stepDone) or the turn's (finish), not on its own. */
  addUsage(id: string, usage: Record<string, number>): void {
    const cur = this.#pendingUsage.get(id) ?? {};
    for (const [k, v] of Object.entries(usage)) cur[k] = (cur[k] ?? 0) + v;
    this.#pendingUsage.set(id, cur);
  }

  /**
   * What is pending for a turn: steps to add, its usage (stored + pending) as JSON, and the pending usage
   * (`added`). It stays pending until `#written` says the write went through.
   */
  #pending(id: string): { steps: number; usage: string; added: Record<string, number> } {
    const stored =
      this.#newest?.id === id
        ? this.#newest
        : one<{ usage: string }>(this.#sql, "SELECT usage FROM turns WHERE id = ?", id);
    const cur = JSON.parse(stored?.usage ?? "{}") as Record<string, number>;
    const added = this.#pendingUsage.get(id) ?? {};
    for (const [k, v] of Object.entries(added)) cur[k] = (cur[k] ?? 0) + v;
    return { steps: this.#pendingSteps.get(id) ?? 0, usage: JSON.stringify(cur), added };
  }

  /** The turn's write of what was pending went through; inside a session transaction, kept until it commits. */
  #written(id: string, steps: number, added: Record<string, number>): void {
    this.#pendingUsage.delete(id);
    this.#pendingSteps.delete(id);
    if (this.#depth > 0 && (steps > 0 || Object.keys(added).length > 0)) this.#taken.push({ id, steps, usage: added });
  }

  finish(id: string, status: TurnStatus, finishReason: string | null, error: ErrorInfo | null): void {
    const { steps, usage, added } = this.#pending(id);
    this.#update(
      id,
      "UPDATE turns SET status = ?, finish_reason = ?, error = ?, ended_at = ?, steps = steps + ?, usage = ? WHERE id = ?",
      status,
      finishReason,
      error ? JSON.stringify(fitJson(error, ERROR_BUDGET_BYTES)) : null,
      nowIso(),
      steps,
      usage,
      id,
    );
    this.#written(id, steps, added);
  }

  clear(): void {
    this.#newest = undefined;
    // Counted again on next use: the turns still running or paused stay.
    this.#count = undefined;
    write(this.#sql, `DELETE FROM turns WHERE status NOT IN (${sqlList(ACTIVE)})`);
    deleteMeta(this.#sql, "turns_swept");
  }
}
