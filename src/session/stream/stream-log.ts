/**
 * A session's resumable SSE output (`StreamLog`): UI chunks become numbered frames, handed to the open client
 * streams (`Subscribers`) from memory and written to the `stream_log` table in batches; a stream opened after a
 * Last-Event-ID replays the log from there, a page of rows at a time, and then follows live. Frame ids never
 * repeat, across crashes, clears and the rebuild of a broken object too. The sweep keeps the logs of the newest
 * turns. `fitRow` fits one chunk to the row budget.
 */
import { cutText, fitJson, jsonBytes, splitText, utf8Bytes } from "../../storage/fit";
import { STREAM_ROW_BUDGET_BYTES } from "../../storage/limits";
import { metaValue, setMeta } from "../../storage/meta";
import { all, one, write } from "../../storage/sql";
import { Subscribers } from "./subscribers";
import type { UiChunk } from "./ui-chunks";

/** A replay reads this many rows (each at most STREAM_ROW_BUDGET_BYTES) at a time, the next once the client took them. */
export const REPLAY_PAGE_ROWS = 2;
/** Stream logs of this many most recent turns are kept for replay. */
const KEEP_TURNS = 3;
/** Frames are delivered at once but written to SQLite at most this long after they were sent. */
const PERSIST_MS = 100;
/** A batch is written early once its JSON reaches this size (rows stay far below SQLite's 2 MB). */
const PERSIST_BYTES = 512 * 1024;
/**
 * After a crash, frames delivered from memory but never written may have
 * used ids above the stored head: new ids start this far above it.
 */
const CRASH_GAP = 1 << 20;
/** meta key: the highest frame id handed out before the last `clear` or rebuild (ids never repeat). */
const FLOOR_KEY = "stream_log_floor";

/**
 * One chunk as rows under the stream-row budget: a long delta is split over
 * several deltas (lossless: the client concatenates them); any other chunk
 * keeps its shape with its long strings cut (marker with the original size).
 */
function fitRow(chunk: UiChunk): UiChunk[] {
  if (jsonBytes(chunk) <= STREAM_ROW_BUDGET_BYTES) return [chunk];
  const room = STREAM_ROW_BUDGET_BYTES - 200;
  if (chunk.type === "text-delta" || chunk.type === "reasoning-delta") {
    return splitText(chunk.delta, room).map((delta) => ({ ...chunk, delta }));
  }
  if (chunk.type === "tool-input-delta") {
    return splitText(chunk.inputTextDelta, room).map((inputTextDelta) => ({ ...chunk, inputTextDelta }));
  }
  const fitted = fitJson(chunk, STREAM_ROW_BUDGET_BYTES);
  if (fitted && typeof fitted === "object") return [fitted as UiChunk];
  // A payload whose structure alone is too large (say, a huge array) becomes its cut JSON text.
  const c: Record<string, unknown> = { ...chunk };
  for (const k of ["output", "input", "data"]) if (k in c) c[k] = cutText(JSON.stringify(c[k]), room);
  return [c as unknown as UiChunk];
}

/** A chunk as the frames it is sent and stored as: each with its JSON and that JSON's size in bytes. */
function serialized(chunk: UiChunk): Array<{ chunk: UiChunk; json: string; bytes: number }> {
  const json = JSON.stringify(chunk);
  const bytes = utf8Bytes(json);
  if (bytes <= STREAM_ROW_BUDGET_BYTES) return [{ chunk, json, bytes }];
  return fitRow(chunk).map((c) => {
    const j = JSON.stringify(c);
    return { chunk: c, json: j, bytes: utf8Bytes(j) };
  });
}

/**
 * The bounded, resumable stream log: every (coalesced) UI chunk of a turn is a
 * frame with an id, the SSE event id. Live subscribers receive each frame the
 * moment it is appended (from memory), so the first text delta never waits
 * for storage; frames are written to SQLite in batches — one row per batch,
 * at most PERSIST_MS after the first unwritten frame, and at once when the
 * turn ends or pauses — so a short text turn costs one row, not one per frame.
 *
 * A row holds consecutive frames as a JSON array, and its `id` is the id of
 * its last frame (rows written before batching hold one chunk object, id =
 * frame id). Replay reads the rows, then the unwritten frames in memory, so
 * replay-then-follow has no gaps and no duplicates. Ids never repeat: the
 * newest row or the floor `clear` leaves in `meta` holds the highest id
 * written, and after a crash (frames sent but not written) new ids jump by
 * CRASH_GAP (see `afterCrash`).
 */
export class StreamLog {
  /** The open client streams, which read the frames they missed back from this log. */
  readonly #subscribers: Subscribers;
  /** Next frame id; read from storage on first use. */
  #next: number | null = null;
  /** The highest frame id in a row (or the floor): no row holds a higher one. Set with `#next`. */
  #written = 0;
  /** Frames sent and not yet in a row, each with its JSON (serialized once: sent, measured and written as is). */
  #unwritten: Array<{ id: number; turnId: string; chunk: UiChunk; json: string; bytes: number }> = [];
  #unwrittenBytes = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;

  readonly #sql: SqlStorage;
  /** `pingMs`: the keep-alive interval of the open streams (`STREAM_PING_MS` when not given). */
  constructor(sql: SqlStorage, pingMs?: number) {
    this.#sql = sql;
    this.#subscribers = new Subscribers(
      {
        page: (turnId, after) => this.page(turnId, after, REPLAY_PAGE_ROWS),
        lastFrame: (turnId) => this.#lastFrame(turnId),
      },
      pingMs,
    );
  }

  /** The highest id ever written: the newest row (the newest turns' rows are never swept), or the floor `clear` left. */
  #stored(): number {
    const floor = Number(metaValue(this.#sql, FLOOR_KEY) ?? 0);
    const max = one<{ m: number | null }>(this.#sql, "SELECT max(id) AS m FROM stream_log")?.m ?? 0;
    return Math.max(floor, max);
  }

  /** Highest id handed out so far (0 when none); frames appended later have larger ids. */
  head(): number {
    if (this.#next === null) {
      this.#written = this.#stored();
      this.#next = this.#written + 1;
    }
    return this.#next - 1;
  }

  /** On wake-up after a crash mid-turn: ids the lost instance may have sent unwritten are never reused. */
  afterCrash(): void {
    this.#written = this.#stored();
    this.#next = this.#written + CRASH_GAP + 1;
  }

  append(turnId: string, chunks: UiChunk[]): void {
    // Each frame fits a row on its own (fitRow); `persist` splits a batch so no row exceeds the budget.
    const fitted = chunks.flatMap(serialized);
    const first = this.head() + 1;
    fitted.forEach(({ chunk, json, bytes }, i) => {
      const id = first + i;
      this.#unwritten.push({ id, turnId, chunk, json, bytes });
      this.#unwrittenBytes += bytes;
      this.#subscribers.broadcast(turnId, id, chunk, json);
    });
    this.#next = first + fitted.length;
    if (this.#unwrittenBytes >= PERSIST_BYTES) this.persist();
    else this.#timer ??= setTimeout(() => this.persist(), PERSIST_MS);
  }

  /**
   * Writes the unwritten frames: one row per run of consecutive frames of one turn, a run cut
   * early so its JSON array stays under STREAM_ROW_BUDGET_BYTES.
   */
  persist(): void {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    const frames = this.#unwritten;
    this.#unwritten = [];
    this.#unwrittenBytes = 0;
    let batch: typeof frames = [];
    let batchBytes = 2; // the array's brackets
    const flush = () => {
      const last = batch[batch.length - 1];
      if (!last) return;
      write(
        this.#sql,
        "INSERT INTO stream_log (id, turn_id, chunk) VALUES (?, ?, ?)",
        last.id,
        last.turnId,
        `[${batch.map((f) => f.json).join(",")}]`,
      );
      this.#written = Math.max(this.#written, last.id);
      batch = [];
      batchBytes = 2;
    };
    for (const f of frames) {
      const full = batchBytes + f.bytes + 1 > STREAM_ROW_BUDGET_BYTES;
      if (batch.length > 0 && (batch[0]?.turnId !== f.turnId || full)) flush();
      batch.push(f);
      batchBytes += f.bytes + 1;
    }
    flush();
  }

  /**
   * Frames of `turnId` after `after`: those of at most `limit` stored rows and, when no stored row is left, the
   * unwritten ones; `more` when stored rows may be left (read them from the last frame's id).
   */
  page(turnId: string, after: number, limit: number): { frames: Array<{ id: number; chunk: UiChunk }>; more: boolean } {
    // From at or above the newest row (a turn that has just started, say) only unwritten frames can follow.
    const none = this.#next !== null && after >= this.#written;
    const rows = none
      ? []
      : all<{ id: number; chunk: string }>(
          this.#sql,
          "SELECT id, chunk FROM stream_log WHERE turn_id = ? AND id > ? ORDER BY id LIMIT ?",
          turnId,
          after,
          limit,
        );
    const stored = rows.flatMap((r) => {
      const parsed = JSON.parse(r.chunk) as UiChunk | UiChunk[];
      const chunks = Array.isArray(parsed) ? parsed : [parsed];
      return chunks.map((chunk, i) => ({ id: r.id - chunks.length + 1 + i, chunk }));
    });
    const more = rows.length === limit;
    const pending = more
      ? []
      : this.#unwritten.filter((f) => f.turnId === turnId).map((f) => ({ id: f.id, chunk: f.chunk }));
    return { frames: [...stored, ...pending].filter((f) => f.id > after), more };
  }

  /** Every chunk of `turnId` after `after` in order, stored and unwritten, read REPLAY_PAGE_ROWS rows at a time. */
  *chunks(turnId: string, after: number): Generator<UiChunk> {
    for (let from = after; ; ) {
      const { frames, more } = this.page(turnId, from, REPLAY_PAGE_ROWS);
      for (const f of frames) yield f.chunk;
      const last = frames[frames.length - 1];
      if (!more || last === undefined) return;
      from = last.id;
    }
  }

  /** The turn of the first stored frame after `after` (reads one row at most); null when no row holds one. */
  turnAfter(after: number): string | null {
    return (
      one<{ turn_id: string }>(this.#sql, "SELECT turn_id FROM stream_log WHERE id > ? ORDER BY id LIMIT 1", after)
        ?.turn_id ?? null
    );
  }

  /** Whether `turnId` has a frame after `after` (reads one row at most). */
  has(turnId: string, after: number): boolean {
    return this.page(turnId, after, 1).frames.length > 0;
  }

  /**
   * Replays frames of `turnId` after `after`, then follows live when `live`; otherwise ends with [DONE] after the
   * turn's last frame as of now (`until`), whatever a segment resuming it writes later. The
   * replay goes a page of rows at a time, the next read once the client has taken the last, so an unread stream
   * holds one page, not the turn's log. The last page (the unwritten frames with it) and joining the live frames
   * happen in one synchronous step, so no frame can be sent or written between the replay and the follow.
   * `replayed`: applied to each frame read back (stored or unwritten), not to the live ones.
   */
  open(
    turnId: string,
    after: number,
    live: boolean,
    replayed: (chunk: UiChunk) => UiChunk = (chunk) => chunk,
  ): ReadableStream<Uint8Array> {
    return this.#subscribers.open(turnId, after, live, replayed);
  }

  /** The id of `turnId`'s last frame so far, written or not (0 when it has none). */
  #lastFrame(turnId: string): number {
    const stored =
      one<{ m: number | null }>(this.#sql, "SELECT max(id) AS m FROM stream_log WHERE turn_id = ?", turnId)?.m ?? 0;
    return this.#unwritten.reduce((m, f) => (f.turnId === turnId ? Math.max(m, f.id) : m), stored);
  }

  /** Writes what is unwritten and ends every live stream of the turn (turn finished or paused). */
  end(turnId: string): void {
    this.persist();
    this.#subscribers.end(turnId);
  }

  /**
   * The storage was wiped (a DELETE, an idle expiry, a rebuild): the open streams are dropped, the unwritten
   * frames and their write forgotten, and the next id read again from the (new) storage on first use.
   */
  reset(): void {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    this.#unwritten = [];
    this.#unwrittenBytes = 0;
    this.#next = null;
    this.#written = 0;
    this.#subscribers.reset();
  }

  /** Keeps the logs of the newest turns only. */
  sweep(): void {
    write(
      this.#sql,
      `DELETE FROM stream_log WHERE turn_id NOT IN (SELECT id FROM turns ORDER BY rowid DESC LIMIT ?)`,
      KEEP_TURNS,
    );
  }

  clear(): void {
    this.persist();
    // Ids never repeat: the head survives the rows as a floor.
    this.continueAbove(this.head());
    write(this.#sql, "DELETE FROM stream_log");
  }

  /**
   * New frames get ids above `head` (the floor): after `clear`, and after a rebuild wiped the storage of a session
   * that goes on (its clients may hold a Last-Event-ID from before it), with `head` read before the wipe.
   */
  continueAbove(head: number): void {
    setMeta(this.#sql, FLOOR_KEY, String(head));
    this.#next = null;
  }
}
