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
  #rows: Array<{ name: string; declared: boolean; digest: string | null }> | null = null;
  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  #read(): Array<{ name: string; declared: boolean; digest: string | null }> {
    this.#rows ??= all<{ name: string; declared: number; declared_as: string | null }>(
      this.#sql,
      "SELECT name, declared, declared_as FROM loaded_tools ORDER BY loaded_at, rowid",
    ).map((r) => ({ name: r.name, declared: r.declared === 1, digest: r.declared_as }));
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
      rows.push({ name, declared: false, digest: null });
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

  /** `digestOf`: the declaration digest of what history now carries for each name (see `redeclare`). */
  markDeclared(names: readonly string[], digestOf: (name: string) => string | null = () => null): void {
    const rows = this.#read();
    for (const name of names) {
      const digest = digestOf(name);
      write(this.#sql, "UPDATE loaded_tools SET declared = 1, declared_as = ? WHERE name = ?", digest, name);
      for (const r of rows) {
        if (r.name !== name) continue;
        r.declared = true;
        r.digest = digest;
      }
    }
  }

  /**
   * Declared tools whose declaration changed since history got it (`current` gives today's declaration digest) become
   * undeclared, so the next declarations carry the new one. Rows with no digest (declared before digests were
   * kept) and tools `current` does not know (undefined: a server down) are left alone.
   */
  redeclare(current: (name: string) => string | undefined): string[] {
    const changed = this.#read().filter((r) => {
      const now = r.declared && r.digest !== null ? current(r.name) : undefined;
      return now !== undefined && now !== r.digest;
    });
    for (const r of changed) {
      write(this.#sql, "UPDATE loaded_tools SET declared = 0 WHERE name = ?", r.name);
      r.declared = false;
    }
    return changed.map((r) => r.name);
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
