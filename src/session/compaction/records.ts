/**
 * The `compactions` table: one row per compaction, written in one
 * transaction with the loaded-set changes it makes. The latest row defines
 * the provider view: its summary (the preamble, with the request a cut inside
 * a turn carries) plus the messages from its boundary on. Stored history
 * itself is never touched.
 */
import type { Message, Part, ToolDeclaration } from "../../model/message";
import { compactionText } from "../../providers/types";
import { NOTICE_NAMES_BUDGET_BYTES } from "../../storage/limits";
import { all, nowIso, one, write } from "../../storage/sql";
import { boundedNamesLine } from "../../tools/disclosure";
import { userParts } from "./boundary";
import { NATIVE_NOTE } from "./native-view";

/** What a compaction did to the loaded set, stored with its row. */
export interface ToolSnapshot {
  /** Loaded tools kept, with their schema fingerprints (compared at the next compaction). */
  kept: Array<{ name: string; fingerprint: string }>;
  dropped: string[];
  /** The tool-set baseline at the boundary (known tool names, frozen deferred listing), as history showed it. */
  baseline: { tools: string[]; listing: string } | null;
  /** Declarations of the kept tools, re-declared after the summary (message-level projection). */
  declarations: ToolDeclaration[];
}

export interface CompactionRecord {
  id: number;
  boundary_seq: number;
  summary: string;
  tokens_before: number;
  tokens_after: number;
  tools: ToolSnapshot;
  native: boolean;
  turn_id: string | null;
  /**
   * A cut that summarised the user's request the running turn answers (inside that turn at a step boundary, or
   * before the paused calls a turn of results alone goes on with): the seq of the message holding it, carried
   * verbatim in the preamble; null when the cut summarised no request a running turn answers.
   */
  carried_seq: number | null;
  created_at: string;
}

interface Row {
  id: number;
  boundary_seq: number;
  summary: string;
  tokens_before: number;
  tokens_after: number;
  tools: string;
  native: number;
  turn_id: string | null;
  carried_seq: number | null;
  created_at: string;
  [key: string]: string | number | null;
}

function toRecord(r: Row): CompactionRecord {
  return { ...r, tools: JSON.parse(r.tools) as ToolSnapshot, native: r.native === 1 };
}

export function latestCompaction(sql: SqlStorage): CompactionRecord | null {
  const row = one<Row>(sql, "SELECT * FROM compactions ORDER BY id DESC LIMIT 1");
  return row ? toRecord(row) : null;
}

export function countCompactions(sql: SqlStorage): number {
  return one<{ n: number }>(sql, "SELECT count(*) AS n FROM compactions")?.n ?? 0;
}

/** One compaction as a history page lists it (`GET …/messages` `compactions`). */
export interface CompactionMarker {
  before_seq: number;
  summary: string;
  tokens_before: number;
  tokens_after: number;
  created_at: string;
  /** The turn that compacted; null for `POST /compact`. */
  turn_id: string | null;
}

/**
 * Compaction markers for `GET /messages`: those whose boundary falls in (after, upto], each with the turn that
 * compacted (null for `POST /compact`), so a client resuming that turn's stream, which replays its compaction,
 * does not show it twice.
 */
export function compactionMarkers(sql: SqlStorage, after: number, upto: number): CompactionMarker[] {
  // Not the kept tools' declarations (`tools`, up to 1.9 MB a row): a page lists none of them.
  return all<Pick<Row, "boundary_seq" | "summary" | "tokens_before" | "tokens_after" | "created_at" | "turn_id">>(
    sql,
    `SELECT boundary_seq, summary, tokens_before, tokens_after, created_at, turn_id FROM compactions
       WHERE boundary_seq > ? AND boundary_seq <= ? ORDER BY id`,
    after,
    upto,
  ).map((r) => ({
    before_seq: r.boundary_seq,
    summary: r.summary,
    tokens_before: r.tokens_before,
    tokens_after: r.tokens_after,
    created_at: r.created_at,
    turn_id: r.turn_id,
  }));
}

export function insertCompaction(sql: SqlStorage, rec: Omit<CompactionRecord, "id" | "created_at">): number {
  return (
    one<{ id: number }>(
      sql,
      `INSERT INTO compactions (boundary_seq, summary, tokens_before, tokens_after, tools, native, turn_id, carried_seq,
         created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      rec.boundary_seq,
      rec.summary,
      rec.tokens_before,
      rec.tokens_after,
      JSON.stringify(rec.tools),
      rec.native ? 1 : 0,
      rec.turn_id,
      rec.carried_seq,
      nowIso(),
    )?.id ?? 0
  );
}

export function clearCompactions(sql: SqlStorage): void {
  write(sql, "DELETE FROM compactions");
}

/** Text that opens the provider view after a compaction. */
export function summaryText(summary: string): string {
  return compactionText(summary);
}

/**
 * Introduces the request a cut inside a turn carries (`preambleOf`) while it is still the one being answered, so
 * the steps kept after it read as its own.
 */
export const CARRIED_NOTE =
  "The user's request that the assistant is still working on, exactly as the user wrote it (the summary above includes the steps already taken for it):";

/**
 * Introduces the carried request once the user has written since (a later message: the turn that carried it
 * completed, failed, was cancelled or paused and was superseded): still verbatim, no longer the one worked on.
 */
export const EARLIER_REQUEST_NOTE =
  "An earlier request of the user, exactly as the user wrote it (the steps taken for it are in the summary above and the messages below; the user has written since):";

/** The request a preamble carries: its stored message, and whether it is still the one the turns answer. */
interface CarriedRequest {
  message: Message;
  /** False once a later message of the user's own is stored (`EARLIER_REQUEST_NOTE` introduces it then). */
  current: boolean;
}

/**
 * The synthetic user message that opens the provider view: the summary, the
 * tool-set baseline as history showed it at the boundary, the one-time
 * announcement of unloaded tools, the kept tools' declarations and, after a
 * cut that summarised it, the user's request a turn answers (`carried`, the
 * message `carried_seq` names: its own parts, verbatim, introduced as the request
 * still worked on only while it is). Never stored as a message; adapters merge it
 * with the first kept user message.
 */
export function preambleOf(rec: CompactionRecord, carried: CarriedRequest | null = null): Message {
  // A native compaction's summary is the provider's block in the first kept message, not text here.
  const parts: Part[] = [{ type: "text", text: rec.native ? NATIVE_NOTE : summaryText(rec.summary) }];
  const t = rec.tools;
  if (t.baseline) {
    parts.push({
      type: "notice",
      kind: "tools_baseline",
      text: "",
      tools: t.baseline.tools,
      listing: t.baseline.listing,
    });
  }
  if (t.dropped.length) {
    parts.push({
      type: "text",
      // Bounded as a tools_changed notice is: this text goes out with every request until the next compaction.
      text: `${boundedNamesLine("tools_removed", t.dropped, NOTICE_NAMES_BUDGET_BYTES)}\nThese tools were unloaded to save context. They are still searchable with tool_search and can be called again; a valid call loads them again.`,
    });
  }
  if (t.declarations.length) parts.push({ type: "tool_declarations", tools: t.declarations });
  if (carried) {
    const note = carried.current ? CARRIED_NOTE : EARLIER_REQUEST_NOTE;
    parts.push({ type: "text", text: note }, ...userParts(carried.message));
  }
  return { seq: 0, role: "user", origin: "system", turn_id: null, parts, created_at: rec.created_at };
}
