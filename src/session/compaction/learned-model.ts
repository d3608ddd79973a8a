/**
 * The stored record of what the provider's answers taught of the session's model (`meta.context_learned`, JSON):
 * the model it is true of (`modelKey`) and the window a context-length error named. Written when it is learned,
 * deleted by `clear` (a wipe takes it with the rest), read once when the object starts, so a restarted object sizes
 * its requests by the window it already met rather than meet it again (`ContextBudget.window`).
 */
import { one, write } from "../../storage/sql";

/** meta key: what the provider taught of the model (`Learned`, as JSON). */
const LEARNED_KEY = "context_learned";

export interface Learned {
  /** The model it is true of (`modelKey`: provider, name, configured window). */
  model: string;
  /** The window a context-length error named. */
  window: number;
}

/** The stored record, or null when none is (or it is not one this version wrote). */
export function readLearned(sql: SqlStorage): Learned | null {
  const row = one<{ value: string }>(sql, "SELECT value FROM meta WHERE key = ?", LEARNED_KEY);
  if (!row) return null;
  try {
    const v = JSON.parse(row.value) as Partial<Learned>;
    return typeof v.model === "string" && typeof v.window === "number" && v.window > 0
      ? { model: v.model, window: v.window }
      : null;
  } catch {
    return null;
  }
}

export function writeLearned(sql: SqlStorage, learned: Learned): void {
  write(sql, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", LEARNED_KEY, JSON.stringify(learned));
}

export function clearLearned(sql: SqlStorage): void {
  write(sql, "DELETE FROM meta WHERE key = ?", LEARNED_KEY);
}
