/**
 * A session's message history in its SQLite storage: `HistoryStore` (the `messages` table, and the `tool_calls`
 * ledger through `CallLedger`) appends messages, registers a step's tool calls with the message that holds them,
 * closes open calls with the user message that answers them, and builds the provider view from the latest
 * compaction, knowing its stored size and the message count without reading every row each time. Seqs only grow,
 * even across `clear`; methods only run SQL, so callers compose them in transactions. A row and its stored size:
 * message-row.ts; where the view starts: view-start.ts; what a close writes: close-open-calls.ts.
 */
import type { Message, Origin, Part, Role, ToolResultPart, ToolUsePart } from "../../model/message";
import { PAGE_BUDGET_BYTES } from "../../storage/limits";
import { all, each, nowIso, one, seqPage, write } from "../../storage/sql";
import type { LookupResult } from "../../tools/refs/index";
import { nativeView } from "../compaction/native-view";
import { clearCompactions } from "../compaction/records";
import { CallLedger, type Execution, type ToolCallRow } from "./call-ledger";
import { type CloseOptions, closingParts } from "./close-open-calls";
import {
  type MessageRow,
  PARTS_BYTES,
  PARTS_CHARS,
  PARTS_SIZE,
  type SizedRow,
  type StoredSize,
  toMessage,
} from "./message-row";
import { fitAssistant } from "./truncate";
import { readViewStart, type ViewStart } from "./view-start";

/** meta key: the highest message seq before the last `clear` (seqs never repeat; see `#insert`). */
const MESSAGES_FLOOR_KEY = "messages_floor";
/** SQL: the highest message seq ever handed out (the newest message's, or the floor a `clear` left). */
const HIGHEST_SEQ = `max(coalesce((SELECT max(seq) FROM messages), 0),
  coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '${MESSAGES_FLOOR_KEY}'), 0))`;

/**
 * The canonical history, with the `tool_calls` ledger that keeps invariant P (`CallLedger`).
 *
 * A tool call is "open" until its result is written to history
 * (`answered_seq IS NULL`). Open calls only ever belong to the newest
 * assistant message, because every write of a user message goes through
 * `closeOpenCalls`, which answers all of them first. Every method that writes
 * must be called inside a transaction (`storage/transaction.ts`) by its caller when it is
 * part of a larger change; the methods themselves only run SQL. The ledger's reads and its result writes are
 * methods here too, handed on to `CallLedger`, so callers name one history.
 */
export class HistoryStore {
  #cache: Message[] | null = null;
  /** The provider view: messages from `start` on, opened by the latest compaction's summary (if any). */
  #view: ViewStart | null = null;
  /** Messages stored (since the last `clear`), once counted: `#insert` adds one, `clear` empties (`count`). */
  #count: number | undefined = undefined;
  /** The stored size of the view's messages (`viewSize`), once known; every write keeps it. */
  #viewSize: StoredSize | undefined = undefined;
  /** Each cached message's stored size: a rewrite of one (a step's later blocks) takes the old one off `#viewSize`. */
  #sizes = new WeakMap<Message, StoredSize>();

  readonly #sql: SqlStorage;
  readonly #calls: CallLedger;
  constructor(sql: SqlStorage) {
    this.#sql = sql;
    this.#calls = new CallLedger(sql);
  }

  #loadView(): ViewStart {
    this.#view ??= readViewStart(this.#sql);
    return this.#view;
  }

  /**
   * The messages of the provider view, oldest first: everything since the
   * latest compaction's boundary (the whole history when there was none).
   * Cached in memory; the cache follows every write. Memory and per-step work
   * are bounded by the view, not by the stored history (`page` reads all of it, a page at a time), and
   * the view by MAX_VIEW_BYTES (a step past it compacts first). Read row by
   * row: each raw row is dropped once parsed, so a load never holds the view twice.
   */
  messages(): Message[] {
    if (!this.#cache) {
      const { start } = this.#loadView();
      const cache: Message[] = [];
      const size = { bytes: 0, chars: 0 };
      const query = `SELECT *, ${PARTS_SIZE} FROM messages WHERE seq >= ? ORDER BY seq`;
      for (const row of each<SizedRow>(this.#sql, query, start)) {
        const m = toMessage(row);
        this.#sizes.set(m, { bytes: row.bytes, chars: row.chars });
        size.bytes += row.bytes;
        size.chars += row.chars;
        cache.push(m);
      }
      this.#cache = cache;
      this.#viewSize = size;
    }
    return this.#cache;
  }

  /** The view's messages when they are in memory, else null (`messages` would read and parse them all). */
  cachedMessages(): Message[] | null {
    return this.#cache;
  }

  /**
   * The stored size of the view's messages (their `parts`; the preamble is not counted), what holding the view
   * costs in memory: summed in SQL when the view is not in memory (nothing parsed), then kept by every write.
   */
  viewSize(): StoredSize {
    if (!this.#viewSize) {
      const { start } = this.#loadView();
      const sum = one<StoredSize>(
        this.#sql,
        `SELECT coalesce(sum(${PARTS_BYTES}), 0) AS bytes, coalesce(sum(${PARTS_CHARS}), 0) AS chars
         FROM messages WHERE seq >= ?`,
        start,
      );
      this.#viewSize = { bytes: sum?.bytes ?? 0, chars: sum?.chars ?? 0 };
    }
    return { ...this.#viewSize };
  }

  /** Counts a message written (`size`) or rewritten (`was`: its size before) into the view's size. */
  #sized(m: Message, size: StoredSize, was: StoredSize = { bytes: 0, chars: 0 }): void {
    if (this.#cache) this.#sizes.set(m, size);
    if (!this.#viewSize) return;
    this.#viewSize.bytes += size.bytes - was.bytes;
    this.#viewSize.chars += size.chars - was.chars;
  }

  /** Stored messages with seq >= `seq`: from the view when it covers them, else from SQL. */
  since(seq: number): Message[] {
    if (seq >= this.viewStart()) return this.messages().filter((m) => m.seq >= seq);
    return all<MessageRow>(this.#sql, "SELECT * FROM messages WHERE seq >= ? ORDER BY seq", seq).map(toMessage);
  }

  /** The synthetic message that opens the view after a compaction (summary, tool baseline), or null. */
  preamble(): Message | null {
    return this.#loadView().preamble;
  }

  /** The stored message whose request the preamble carries (the latest compaction cut inside a turn), or null. */
  carried(): Message | null {
    return this.#loadView().carried;
  }

  /** `messages()` opened by the preamble: what provider requests and tool-state derivations read. */
  view(): Message[] {
    const { preamble, native } = this.#loadView();
    if (!preamble) return this.messages();
    return native ? nativeView(preamble, this.messages()) : [preamble, ...this.messages()];
  }

  /** Seq of the first message of the view (0 = no compaction yet). */
  viewStart(): number {
    return this.#loadView().start;
  }

  /**
   * A page of the stored messages after seq `after`, oldest first (GET /messages): at most `limit`, and no more than
   * fit in PAGE_BUDGET_BYTES of stored parts (always one). Their sizes are read first, so messages past the page
   * are never loaded. `next`: the page's last seq when messages follow it.
   */
  page(after: number, limit: number): { items: Message[]; next: number | null } {
    const { rows, next } = seqPage<MessageRow>(this.#sql, "messages", "parts", after, limit, PAGE_BUDGET_BYTES);
    return { items: rows.map(toMessage), next };
  }

  /** Messages stored, the view's and the ones before it: counted once per instance, then kept by the writes. */
  count(): number {
    this.#count ??= one<{ n: number }>(this.#sql, "SELECT count(*) AS n FROM messages")?.n ?? 0;
    return this.#count;
  }

  last(): Message | null {
    const cached = this.#cache;
    // An empty view (compacted up to the end) still has a stored last message.
    if (cached && cached.length > 0) return cached[cached.length - 1] ?? null;
    const row = one<MessageRow>(this.#sql, "SELECT * FROM messages ORDER BY seq DESC LIMIT 1");
    return row ? toMessage(row) : null;
  }

  /**
   * A lower bound for the seq of the next message stored: after the newest one. A turn's JSON answer reads its
   * messages from here, so it never reads the history stored before it (`since(0)` reads it all, past the view).
   */
  nextSeq(): number {
    return (this.last()?.seq ?? 0) + 1;
  }

  /** Drops the in-memory copy, e.g. after a transaction that may have rolled back. */
  invalidate(): void {
    this.viewMoved();
    this.#calls.invalidate();
    this.#count = undefined;
  }

  /** A compaction record moved the view's start: the view is read again on next use (the messages are the same). */
  viewMoved(): void {
    this.#cache = null;
    this.#view = null;
    this.#viewSize = undefined;
  }

  #insert(role: Role, origin: Origin, turnId: string | null, parts: Part[]): Message {
    const created_at = nowIso();
    // The seq is chosen here, not by AUTOINCREMENT (whose sqlite_sequence update is a row written per
    // insert): one above the newest message and above the floor a `clear` left, so a seq never repeats.
    const row = one<{ seq: number } & StoredSize>(
      this.#sql,
      `INSERT INTO messages (seq, role, origin, turn_id, parts, created_at)
       VALUES (${HIGHEST_SEQ} + 1, ?, ?, ?, ?, ?) RETURNING seq, ${PARTS_SIZE}`,
      role,
      origin,
      turnId,
      JSON.stringify(parts),
      created_at,
    );
    const msg: Message = { seq: row?.seq ?? 0, role, origin, turn_id: turnId, parts, created_at };
    // The user wrote again: the request the preamble carries is an earlier one now (read again on next use, once).
    if (origin === "client" && this.#view?.carried) this.#view = null;
    this.#cache?.push(msg);
    this.#sized(msg, { bytes: row?.bytes ?? 0, chars: row?.chars ?? 0 });
    if (this.#count !== undefined) this.#count++;
    return msg;
  }

  /**
   * Writes completed assistant blocks of a step. The first call creates the
   * message, later calls append to it. New tool_use parts are registered as
   * `pending` calls in the same transaction as the history write.
   */
  appendAssistantParts(
    turnId: string,
    messageSeq: number | null,
    parts: Part[],
    executionOf: (name: string) => Execution,
  ): number {
    let seq: number;
    let offset = 0;
    if (messageSeq === null) {
      seq = this.#insert("assistant", "model", turnId, fitAssistant(parts)).seq;
    } else {
      const msg = this.#find(messageSeq);
      offset = msg.parts.length;
      msg.parts = fitAssistant([...msg.parts, ...parts]);
      const size = one<StoredSize>(
        this.#sql,
        `UPDATE messages SET parts = ? WHERE seq = ? RETURNING ${PARTS_SIZE}`,
        JSON.stringify(msg.parts),
        messageSeq,
      );
      this.#sized(msg, { bytes: size?.bytes ?? 0, chars: size?.chars ?? 0 }, this.#sizes.get(msg));
      seq = messageSeq;
    }
    this.#calls.register(turnId, seq, offset, parts, executionOf);
    return seq;
  }

  #find(seq: number): Message {
    const cached = this.messages().find((m) => m.seq === seq);
    if (!cached) throw new Error(`message ${seq} not found`);
    return cached;
  }

  /** The results stored for open calls (a paused step's), as the parts that carry them once the step closes. */
  storedResults(): ToolResultPart[] {
    return this.#calls.storedResults();
  }

  /** Open calls (not yet written to history), in tool_use order (`CallLedger.openCalls`). */
  openCalls(): ToolCallRow[] {
    return this.#calls.openCalls();
  }

  call(id: string): ToolCallRow | null {
    return this.#calls.call(id);
  }

  /** The stored call id a provider was sent as `id` in its own form, or null (`CallLedger.callIdAs`). */
  callIdAs(id: string, form: (stored: string) => string): string | null {
    return this.#calls.callIdAs(id, form);
  }

  hasToolUseId(id: string): boolean {
    return this.#calls.hasToolUseId(id);
  }

  /** What a `$tool` reference to an earlier call stands for, or why it is refused (`CallLedger.referencedValue`). */
  referencedValue(id: string): LookupResult {
    return this.#calls.referencedValue(id);
  }

  /**
   * Stores a pending call's result without writing history yet; false (nothing written) when the call already has
   * one (`CallLedger.storeResult`).
   */
  storeResult(...args: Parameters<CallLedger["storeResult"]>): boolean {
    return this.#calls.storeResult(...args);
  }

  /** True when every open call has a result (real, synthetic or skipped). */
  openCallsSettled(): boolean {
    return this.#calls.openCallsSettled();
  }

  /**
   * Answers every open call and writes one user message: the tool_results
   * first, in tool_use order, then `extra` (the user's own parts). A pending
   * call takes the result supplied with this message if any, else a synthetic
   * `is_error` result. Returns the message, which calls were synthesized and
   * which declarations the row could not hold.
   */
  closeOpenCalls(opts: CloseOptions): { message: Message | null; synthesized: string[]; undeclared: string[] } {
    const open = this.openCalls();
    const { parts, origin, synthesized, undeclared } = closingParts(open, opts, this.#calls);
    if (parts.length === 0) return { message: null, synthesized, undeclared };
    const message = this.#insert("user", origin, opts.turnId, parts);
    // No open call: the ledger read above already knows none is open.
    if (open.length > 0) this.#calls.answerOpen(message.seq);
    return { message, synthesized, undeclared };
  }

  /** Tool uses of a message, for executing a step's calls. */
  toolUsesOf(seq: number): ToolUsePart[] {
    return this.#find(seq).parts.filter((p): p is ToolUsePart => p.type === "tool_use");
  }

  /** Empties the history; the highest seq it held stays in meta (the floor), so later seqs are above it. */
  clear(): void {
    write(
      this.#sql,
      `INSERT OR REPLACE INTO meta (key, value) SELECT '${MESSAGES_FLOOR_KEY}', CAST(${HIGHEST_SEQ} AS TEXT)`,
    );
    write(this.#sql, "DELETE FROM messages");
    this.#calls.clear();
    clearCompactions(this.#sql);
    this.#count = 0;
    this.#cache = [];
    this.#viewSize = { bytes: 0, chars: 0 };
    this.#view = { start: 0, preamble: null, native: false, carried: null };
  }
}
