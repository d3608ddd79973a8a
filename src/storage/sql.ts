/**
 * Small typed helpers over the Durable Object SQLite API. With debug checks on
 * (`SWITCHBOARD_DEBUG_CHECKS`, set by every test suite) they refuse what
 * production SQLite refuses and local workerd accepts: a bound string or
 * ArrayBuffer over MAX_CELL_BYTES, or a write whose bound values together
 * exceed it (the row limit).
 */

import { utf8Bytes } from "./fit";
import { MAX_CELL_BYTES } from "./limits";
import { pageEnd } from "./page";

export type SqlValue = string | number | null | ArrayBuffer;
type Row = Record<string, SqlValue>;

let checkCells = false;

/** Turns the debug cell-size check on or off (the Session object sets it from its env). */
export function setCellChecks(on: boolean): void {
  checkCells = on;
}

function bytesOf(p: SqlValue): number {
  if (typeof p === "string") return p.length <= 1024 ? p.length * 3 : utf8Bytes(p);
  return p instanceof ArrayBuffer ? p.byteLength : 0;
}

function checkSizes(query: string, params: SqlValue[]): void {
  let total = 0;
  params.forEach((p, i) => {
    const n = bytesOf(p);
    if (n > MAX_CELL_BYTES) {
      throw new Error(
        `cell_too_large: parameter ${i + 1} is ${n} bytes; Durable Object SQLite refuses values over ${MAX_CELL_BYTES} bytes in production (${query.trim().slice(0, 80)})`,
      );
    }
    total += n;
  });
  if (total > MAX_CELL_BYTES && /^\s*(INSERT|UPDATE|REPLACE)\b/i.test(query)) {
    throw new Error(
      `row_too_large: the bound values of this write are ${total} bytes; Durable Object SQLite refuses rows over ${MAX_CELL_BYTES} bytes in production (${query.trim().slice(0, 80)})`,
    );
  }
}

function exec<T extends Row>(sql: SqlStorage, query: string, params: SqlValue[]): SqlStorageCursor<T> {
  if (checkCells) checkSizes(query, params);
  return sql.exec<T>(query, ...params);
}

export function all<T extends Row>(sql: SqlStorage, query: string, ...params: SqlValue[]): T[] {
  return exec<T>(sql, query, params).toArray();
}

/**
 * A query's rows one at a time, as its cursor steps: a caller that keeps what it makes of each row (a parsed
 * message) holds one raw row at a time, where `all` holds every raw row beside what is made of them.
 */
export function each<T extends Row>(sql: SqlStorage, query: string, ...params: SqlValue[]): Iterable<T> {
  return exec<T>(sql, query, params);
}

export function one<T extends Row>(sql: SqlStorage, query: string, ...params: SqlValue[]): T | null {
  const rows = exec<T>(sql, query, params).toArray();
  return rows[0] ?? null;
}

/** Runs a statement that writes; returns the rows written. */
export function write(sql: SqlStorage, query: string, ...params: SqlValue[]): number {
  return exec(sql, query, params).rowsWritten;
}

/**
 * A page of `table`'s rows after seq `after`, in seq order, cut by count and by the stored bytes of its column
 * `sized` as `pageEnd` cuts it: the sizes are read first (octet_length does not load a value), then only the page's
 * rows, so rows past the page never reach the isolate. `next`: the page's last seq when rows follow it. `table` and
 * `sized` are names written in code, never input.
 */
export function seqPage<T extends Row>(
  sql: SqlStorage,
  table: string,
  sized: string,
  after: number,
  limit: number,
  maxBytes: number,
): { rows: T[]; next: number | null } {
  const sizes = all<{ key: number; bytes: number }>(
    sql,
    `SELECT seq AS key, octet_length(${sized}) AS bytes FROM ${table} WHERE seq > ? ORDER BY seq LIMIT ?`,
    after,
    limit + 1,
  );
  const end = pageEnd(sizes, limit, maxBytes);
  if (!end) return { rows: [], next: null };
  const rows = all<T>(sql, `SELECT * FROM ${table} WHERE seq > ? AND seq <= ? ORDER BY seq`, after, end.last);
  return { rows, next: end.more ? end.last : null };
}

export function nowIso(): string {
  return new Date().toISOString();
}
