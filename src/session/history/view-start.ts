/**
 * Where a session's provider view starts (`ViewStart`, read by `readViewStart`): the latest compaction's boundary,
 * the preamble that opens the view after it, whether the provider wrote it, and the stored message whose request
 * the preamble carries (a cut inside a turn). `HistoryStore` keeps it in memory until a write moves it.
 */
import type { Message } from "../../model/message";
import { one } from "../../storage/sql";
import { latestCompaction, preambleOf } from "../compaction/records";
import { type MessageRow, toMessage } from "./message-row";

/**
 * Where the provider view starts: the latest compaction's boundary, its preamble, whether the provider wrote it, and
 * the stored message whose request its preamble carries (a cut inside a turn).
 */
export interface ViewStart {
  start: number;
  preamble: Message | null;
  native: boolean;
  carried: Message | null;
}

/** The view's start as the latest compaction record sets it (the whole history when there is none). */
export function readViewStart(sql: SqlStorage): ViewStart {
  const rec = latestCompaction(sql);
  const seq = rec?.carried_seq ?? null;
  const row = seq === null ? null : one<MessageRow>(sql, "SELECT * FROM messages WHERE seq = ?", seq);
  const carried = row ? toMessage(row) : null;
  // Still the request worked on until the user writes again: a retry or results alone go on with it.
  const current = carried !== null && !userWroteSince(sql, rec?.boundary_seq ?? 0);
  return rec
    ? {
        start: rec.boundary_seq,
        preamble: preambleOf(rec, carried && { message: carried, current }),
        native: rec.native,
        carried,
      }
    : { start: 0, preamble: null, native: false, carried: null };
}

/**
 * Whether a message holding the user's own parts (origin `client`: admission writes them so) is stored from seq
 * `seq` on. Reads the origin column only, never a message's parts.
 */
function userWroteSince(sql: SqlStorage, seq: number): boolean {
  return one(sql, "SELECT 1 AS x FROM messages WHERE seq >= ? AND origin = 'client' LIMIT 1", seq) !== null;
}
