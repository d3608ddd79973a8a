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
