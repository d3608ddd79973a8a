/**
 * The session object's `meta` table, one value per key: read, set (replacing) and delete. The keys and what their
 * values mean belong to the modules that own them (docs/STORAGE.md lists them).
 */
import { one, write } from "./sql";

/** The value stored under `key`, or null when none is. */
export function metaValue(sql: SqlStorage, key: string): string | null {
  return one<{ value: string }>(sql, "SELECT value FROM meta WHERE key = ?", key)?.value ?? null;
}

/** Stores `value` under `key`, replacing what was there. */
export function setMeta(sql: SqlStorage, key: string, value: string): void {
  write(sql, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", key, value);
}

/** Removes `key`'s value. */
export function deleteMeta(sql: SqlStorage, key: string): void {
  write(sql, "DELETE FROM meta WHERE key = ?", key);
}
