import { fitJson } from "../../storage/fit";
import { ERROR_BUDGET_BYTES, RUN_RESULT_BUDGET_BYTES } from "../../storage/limits";
import { all, nowIso, one, run } from "../../storage/sql";
import type { TurnStatus } from "../stream/turn-events";

export type TurnKind = "message" | "retry";

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

export const ACTIVE: readonly TurnStatus[] = ["running", "awaiting_tool_results", "awaiting_approval"];
export const ENDED: readonly TurnStatus[] = ["completed", "failed", "cancelled", "interrupted"];

export interface TurnError {
  code: string;
  message: string;
  retryable?: boolean;
}

/** The `turns` table: one row per turn, in order. */
export class TurnStore {
  constructor(private readonly sql: SqlStorage) {}

  latest(): TurnRow | null {
    return one<TurnRow>(this.sql, "SELECT * FROM turns ORDER BY ord DESC LIMIT 1");
  }

  get(id: string): TurnRow | null {
    return one<TurnRow>(this.sql, "SELECT * FROM turns WHERE id = ?", id);
  }

  byIdempotencyKey(key: string): TurnRow | null {
    return one<TurnRow>(this.sql, "SELECT * FROM turns WHERE idempotency_key = ?", key);
  }

  withStatus(status: TurnStatus): TurnRow[] {
    return all<TurnRow>(this.sql, "SELECT * FROM turns WHERE status = ?", status);
  }

  count(): number {
    return one<{ n: number }>(this.sql, "SELECT count(*) AS n FROM turns")?.n ?? 0;
  }

  create(t: {
    id: string;
    kind: TurnKind;
    max_steps: number;
    log_start: number;
    idempotency_key: string | null;
    body_hash: string | null;
    json_schema?: string | null;
  }): TurnRow {
    const ord = (one<{ m: number | null }>(this.sql, "SELECT max(ord) AS m FROM turns")?.m ?? 0) + 1;
    run(
      this.sql,
      `INSERT INTO turns (id, ord, status, kind, max_steps, log_start, segment_start, idempotency_key, body_hash, json_schema, started_at)
       VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?)`,
      t.id,
      ord,
      t.kind,
      t.max_steps,
      t.log_start,
      t.log_start,
      t.idempotency_key,
      t.body_hash,
      t.json_schema ?? null,
      nowIso(),
    );
    return this.get(t.id) as TurnRow;
  }

  setFirstMessage(id: string, seq: number): void {
    run(this.sql, "UPDATE turns SET first_message_seq = coalesce(first_message_seq, ?) WHERE id = ?", seq, id);
  }

  setStructuredResult(id: string, value: unknown): void {
    run(
      this.sql,
      "UPDATE turns SET structured_result = ? WHERE id = ?",
      JSON.stringify(fitJson(value, RUN_RESULT_BUDGET_BYTES)),
      id,
    );
  }

  setStatus(id: string, status: TurnStatus): void {
    run(this.sql, "UPDATE turns SET status = ? WHERE id = ?", status, id);
  }

  /** A paused turn continues: clients that open the stream now start at this log position. */
  resume(id: string, segmentStart: number): void {
    run(this.sql, "UPDATE turns SET status = 'running', segment_start = ? WHERE id = ?", segmentStart, id);
  }

  stepDone(id: string): number {
    run(this.sql, "UPDATE turns SET steps = steps + 1 WHERE id = ?", id);
    return this.get(id)?.steps ?? 0;
  }

  addUsage(id: string, usage: Record<string, number>): void {
    const cur = JSON.parse(this.get(id)?.usage ?? "{}") as Record<string, number>;
    for (const [k, v] of Object.entries(usage)) cur[k] = (cur[k] ?? 0) + v;
    run(this.sql, "UPDATE turns SET usage = ? WHERE id = ?", JSON.stringify(cur), id);
  }

  finish(id: string, status: TurnStatus, finishReason: string | null, error: TurnError | null): void {
    run(
      this.sql,
      "UPDATE turns SET status = ?, finish_reason = ?, error = ?, ended_at = ? WHERE id = ?",
      status,
      finishReason,
      error ? JSON.stringify(fitJson(error, ERROR_BUDGET_BYTES)) : null,
      nowIso(),
      id,
    );
  }

  clear(): void {
    run(this.sql, "DELETE FROM turns WHERE status NOT IN ('running', 'awaiting_tool_results', 'awaiting_approval')");
  }
}
