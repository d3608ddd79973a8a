import type { Message } from "../model/message";
import { all, nowIso, write } from "../storage/sql";

/**
 * The loaded set: deferred tools whose schemas the model has been shown. Kept
 * in `loaded_tools`; writes happen in the caller's transaction together with
 * the tool result that caused them.
 */
export class LoadedTools {
  readonly #sql: SqlStorage;
  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /** Names in load order (plain projections append in this order, keeping the prefix stable). */
  list(): string[] {
    return all<{ name: string }>(this.#sql, "SELECT name FROM loaded_tools ORDER BY loaded_at, rowid").map(
      (r) => r.name,
    );
  }

  add(names: readonly string[], via: string): string[] {
    const have = new Set(this.list());
    const added: string[] = [];
    const at = nowIso();
    for (const name of names) {
      if (have.has(name)) continue;
      write(this.#sql, "INSERT INTO loaded_tools (name, loaded_at, via) VALUES (?, ?, ?)", name, at, via);
      have.add(name);
      added.push(name);
    }
    return added;
  }

  /** Loaded tools whose schemas no history message carries yet. */
  undeclared(): string[] {
    return all<{ name: string }>(
      this.#sql,
      "SELECT name FROM loaded_tools WHERE declared = 0 ORDER BY loaded_at, rowid",
    ).map((r) => r.name);
  }

  markDeclared(names: readonly string[]): void {
    for (const name of names) write(this.#sql, "UPDATE loaded_tools SET declared = 1 WHERE name = ?", name);
  }

  remove(names: readonly string[]): void {
    for (const name of names) write(this.#sql, "DELETE FROM loaded_tools WHERE name = ?", name);
  }

  clear(): void {
    write(this.#sql, "DELETE FROM loaded_tools");
  }
}

/**
 * The tools history shows as loaded: named by a tool_reference or a
 * tool_declarations part, or called. Used to rebuild the set on wake-up.
 */
export function loadedFromHistory(messages: readonly Message[]): string[] {
  const names: string[] = [];
  const seen = new Set<string>();
  const add = (n: string) => {
    if (!seen.has(n)) {
      seen.add(n);
      names.push(n);
    }
  };
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.type === "tool_declarations") for (const t of p.tools) add(t.name);
      else if (p.type === "tool_use") add(p.name);
      else if (p.type === "tool_result" && Array.isArray(p.content)) {
        for (const b of p.content) if (b.type === "tool_reference") add(b.tool_name);
      }
    }
  }
  return names;
}
