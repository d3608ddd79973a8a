/** Small typed helpers over the Durable Object SQLite API. */

export type SqlValue = string | number | null | ArrayBuffer;
export type Row = Record<string, SqlValue>;

export function all<T extends Row>(sql: SqlStorage, query: string, ...params: SqlValue[]): T[] {
  return sql.exec<T>(query, ...params).toArray();
}

export function one<T extends Row>(sql: SqlStorage, query: string, ...params: SqlValue[]): T | null {
  const rows = sql.exec<T>(query, ...params).toArray();
  return rows[0] ?? null;
}

export function run(sql: SqlStorage, query: string, ...params: SqlValue[]): number {
  return sql.exec(query, ...params).rowsWritten;
}

export function nowIso(): string {
  return new Date().toISOString();
}

/**
 * Cursor pagination: callers fetch `limit + 1` rows; the extra row only tells
 * whether there is a next page, whose cursor is the last kept row's key.
 */
export function pageOf<T, K>(rows: T[], limit: number, key: (row: T) => K): { items: T[]; next: K | null } {
  const more = rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return { items, next: more && last !== undefined ? key(last) : null };
}
