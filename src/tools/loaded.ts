/**
 * Which deferred tools a session has loaded: `LoadedTools`, the `loaded_tools` table, cached in memory.
 */
import { all, nowIso, write } from "../storage/sql";

/**
 * The loaded set: deferred tools whose schemas the model has been shown. Kept
 * in `loaded_tools`; writes happen in the caller's transaction together with
 * the tool result that caused them. The rows are read once and kept in memory,
 * written through by every change here (this class is the table's only
 * writer); a rolled-back transaction or a wiped storage calls `invalidate`.
 */
export class LoadedTools {
  readonly #sql: SqlStorage;
  /** The rows in load order; null until read, and after `invalidate`. */
  #rows: Array<{ name: string; declared: boolean }> | null = null;
  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  #read(): Array<{ name: string; declared: boolean }> {
    this.#rows ??= all<{ name: string; declared: number }>(
      this.#sql,
      "SELECT name, declared FROM loaded_tools ORDER BY loaded_at, rowid",
    ).map((r) => ({ name: r.name, declared: r.declared === 1 }));
    return this.#rows;
  }

  /** Names in load order (plain projections append in this order, keeping the prefix stable). */
  list(): string[] {
    return this.#read().map((r) => r.name);
  }

  add(names: readonly string[], via: string): string[] {
    const rows = this.#read();
    const have = new Set(rows.map((r) => r.name));
    const added: string[] = [];
    const at = nowIso();
    for (const name of names) {
      if (have.has(name)) continue;
      write(this.#sql, "INSERT INTO loaded_tools (name, loaded_at, via) VALUES (?, ?, ?)", name, at, via);
      rows.push({ name, declared: false });
      have.add(name);
      added.push(name);
    }
    return added;
  }

  /** Loaded tools whose schemas no history message carries yet. */
  undeclared(): string[] {
    return this.#read()
      .filter((r) => !r.declared)
      .map((r) => r.name);
  }

  markDeclared(names: readonly string[]): void {
    const rows = this.#read();
    for (const name of names) {
      write(this.#sql, "UPDATE loaded_tools SET declared = 1 WHERE name = ?", name);
      for (const r of rows) if (r.name === name) r.declared = true;
    }
  }

  remove(names: readonly string[]): void {
    const rows = this.#read();
    for (const name of names) write(this.#sql, "DELETE FROM loaded_tools WHERE name = ?", name);
    const gone = new Set(names);
    this.#rows = rows.filter((r) => !gone.has(r.name));
  }

  clear(): void {
    write(this.#sql, "DELETE FROM loaded_tools");
    this.#rows = [];
  }

  /** Drops the rows kept in memory: read again on next use. */
  invalidate(): void {
    this.#rows = null;
  }
}
