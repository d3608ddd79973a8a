/**
 * A message as its `messages` row stores it (`MessageRow`), read back as a Message (`toMessage`), and the size of
 * its `parts` cell as stored (`StoredSize`), with the SQL that reads that size without parsing the cell.
 */
import type { Message, Origin, Part, Role } from "../../model/message";

/** SQL: a message row's `parts` size in bytes (a blob's length) and in characters (a text's). */
export const PARTS_BYTES = "length(CAST(parts AS BLOB))";
export const PARTS_CHARS = "length(parts)";
/** SQL: a message row's `StoredSize`. */
export const PARTS_SIZE = `${PARTS_BYTES} AS bytes, ${PARTS_CHARS} AS chars`;

/** How large a message's `parts` cell is as stored: its UTF-8 bytes and its characters (code points). */
export interface StoredSize {
  bytes: number;
  chars: number;
  [key: string]: number;
}

export interface MessageRow {
  seq: number;
  role: string;
  origin: string;
  turn_id: string | null;
  parts: string;
  created_at: string;
  [key: string]: string | number | null;
}

/** A message row read with its `PARTS_SIZE`. */
export type SizedRow = MessageRow & StoredSize;

export function toMessage(row: MessageRow): Message {
  return {
    seq: row.seq,
    role: row.role as Role,
    origin: row.origin as Origin,
    turn_id: row.turn_id,
    parts: JSON.parse(row.parts) as Part[],
    created_at: row.created_at,
  };
}
