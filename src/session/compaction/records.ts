import { compactionText } from "../../providers/types";
import { all, nowIso, one, run } from "../../storage/sql";
import type { Message, Part, ToolDeclaration } from "../history/parts";

/**
 * The `compactions` table: one row per compaction, written in one
 * transaction with the loaded-set changes it makes. The latest row defines
 * the provider view: its summary (the preamble) plus the messages from its
 * boundary on. Stored history itself is never touched.
 */
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

/** Compaction markers for `GET /messages`: those whose boundary falls in (after, upto]. */
export function compactionMarkers(
  sql: SqlStorage,
  after: number,
  upto: number,
): Array<{ before_seq: number; summary: string; tokens_before: number; tokens_after: number; created_at: string }> {
  return all<Row>(
    sql,
    "SELECT * FROM compactions WHERE boundary_seq > ? AND boundary_seq <= ? ORDER BY id",
    after,
    upto,
  ).map((r) => ({
    before_seq: r.boundary_seq,
    summary: r.summary,
    tokens_before: r.tokens_before,
    tokens_after: r.tokens_after,
    created_at: r.created_at,
  }));
}

export function insertCompaction(sql: SqlStorage, rec: Omit<CompactionRecord, "id" | "created_at">): number {
  return (
    one<{ id: number }>(
      sql,
      `INSERT INTO compactions (boundary_seq, summary, tokens_before, tokens_after, tools, native, turn_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      rec.boundary_seq,
      rec.summary,
      rec.tokens_before,
      rec.tokens_after,
      JSON.stringify(rec.tools),
      rec.native ? 1 : 0,
      rec.turn_id,
      nowIso(),
    )?.id ?? 0
  );
}

export function clearCompactions(sql: SqlStorage): void {
  run(sql, "DELETE FROM compactions");
}

/** Opens the view after a native compaction; the provider ignores it (it drops what precedes its block). */
export const NATIVE_NOTE =
  "(The earlier part of this conversation was compacted; the compaction that follows summarises it.)";

/**
 * The view after a native compaction, whose first message holds the provider's compaction block:
 * the provider ignores everything before that block, so only the opening note and the tool-set
 * baseline (never sent) stay in front; what the model must read (the `<tools_removed>` note, kept
 * declarations) is appended to the first user message after the block. Pure.
 */
export function nativeView(preamble: Message, messages: readonly Message[]): Message[] {
  const front = (p: Part) => p.type === "notice" || (p.type === "text" && p.text === NATIVE_NOTE);
  const lead: Message = { ...preamble, parts: preamble.parts.filter(front) };
  const after = preamble.parts.filter((p) => !front(p));
  if (after.length === 0) return [lead, ...messages];
  const at = messages.findIndex((m, i) => i > 0 && m.role === "user");
  if (at === -1) return [lead, ...messages, { ...preamble, parts: after }];
  const next = messages[at] as Message;
  return [lead, ...messages.slice(0, at), { ...next, parts: [...next.parts, ...after] }, ...messages.slice(at + 1)];
}

/** Text that opens the provider view after a compaction. */
export function summaryText(summary: string): string {
  return compactionText(summary);
}

/**
 * The synthetic user message that opens the provider view: the summary, the
 * tool-set baseline as history showed it at the boundary, the one-time
 * announcement of unloaded tools, and the kept tools' declarations. Never
 * stored as a message; adapters merge it with the first kept user message.
 */
export function preambleOf(rec: CompactionRecord): Message {
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
      text: `<tools_removed>${t.dropped.join(", ")}</tools_removed>\nThese tools were unloaded to save context. They are still searchable with tool_search and can be called again; a valid call loads them again.`,
    });
  }
  if (t.declarations.length) parts.push({ type: "tool_declarations", tools: t.declarations });
  return { seq: 0, role: "user", origin: "system", turn_id: null, parts, created_at: rec.created_at };
}
