/**
 * A session's resumable SSE output (`StreamLog`): UI chunks become numbered frames, sent to live subscribers
 * from memory and written to the `stream_log` table in batches; a reader replays after a Last-Event-ID, a page of
 * rows at a time as it reads, and then follows live; an object holds at most MAX_SUBSCRIBERS such streams, and a
 * stream quiet for the ping interval gets a keep-alive comment. Frame ids never repeat, across crashes and clears
 * too. `fitRow` fits one chunk to the row budget.
 */
import { cutText, fitJson, jsonBytes, splitText, utf8Bytes } from "../../storage/fit";
import { STREAM_ROW_BUDGET_BYTES } from "../../storage/limits";
import { all, one, write } from "../../storage/sql";
import { SSE_PING, sseDone, sseFrame, sseFrameJson } from "./sse";
import type { UiChunk } from "./ui-chunks";

const encoder = new TextEncoder();

/**
 * Frames that open or close a message, a step or a text part and show nothing by themselves: a subscriber gets
 * them with the next frame (the opening ones with the first text delta, the closing ones with the turn's
 * `finish`), so they do not cross to the client as stream chunks of their own. Every other frame goes out in the
 * task it is sent in, and ending a subscriber's stream sends what it holds.
 */
const QUIET: ReadonlySet<string> = new Set([
  "start",
  "start-step",
  "text-start",
  "reasoning-start",
  "text-end",
  "reasoning-end",
  "finish-step",
]);

/** A client falling this many bytes behind is dropped; it resumes with Last-Event-ID. */
const MAX_SUBSCRIBER_BACKLOG = 4 * 1024 * 1024;
/**
 * Streams one session object holds at once (live, replaying, or ended and not yet read), across its turns: opening
 * one more first probes the others (keep-alives) and forgets those whose client has gone, then drops the oldest if
 * still over, which resumes with Last-Event-ID. Each may pin its backlog and a replay page, so this many (one more
 * while a probe runs) stay far below the object's 128 MB (9 × (4 MiB + 1 MiB)); a refusal instead would leave a
 * turn that has just started without its answer, and stale connections could lock the live client out.
 */
export const MAX_SUBSCRIBERS = 8;
/**
 * A stream that was sent nothing for this long gets a keep-alive comment (`SSE_PING`), so a proxy that cuts idle
 * connections does not cut it during a long tool call, an MCP call, a provider's keep-alives or a compaction.
 * Proxies commonly allow 60 s. `SWITCHBOARD_STREAM_PING_MS` sets it.
 */
export const STREAM_PING_MS = 15_000;
/**
 * The longest the probe at the cap waits for its keep-alives to be taken or refused: a client that is there but
 * reads nothing yet keeps its place once this has passed.
 */
const PROBE_MS = 1_000;
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
/** meta key: the highest frame id handed out before the last `clear` (ids never repeat). */
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

interface Subscriber {
  turnId: string;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  backlog: number;
  /** The id of the last frame this subscriber was sent (its resume position). */
  lastId: number;
  /**
   * Frames sent in the current task (and quiet frames held since) not yet handed to the writer: they go out as one
   * write when the task's microtasks run (a write crosses to the worker as one stream chunk, and each costs the
   * runtime work).
   */
  queued: string;
  /** A flush of `queued` is scheduled. */
  flushing: boolean;
  /** The next flush carries the replay of a resume (what the client missed, which is not falling behind). */
  replayNext: boolean;
  /** Bytes of that replay the reader has not taken yet: they do not count against MAX_SUBSCRIBER_BACKLOG. */
  replay: number;
  /** Still replaying stored rows page by page from `lastId`: live frames are not sent to it, it reads them later. */
  catchingUp: boolean;
  /**
   * The id of the turn's last frame once there is nothing live to follow (the turn ended or paused, or was not
   * running), Infinity while it runs: the replay sends frames up to it and ends there. A turn resumed after a pause
   * writes on under the same turn id, and a stream of the paused turn ends at its pause, not in the resumed segment.
   */
  until: number;
  /** How a frame read back from the log is sent (what changed since it was first sent); live frames go as they are. */
  replayed: (chunk: UiChunk) => UiChunk;
  /** When the last write was handed to the writer (or the stream opened), in ms: the keep-alive's clock. */
  wroteAt: number;
  /** Its end was written and its writer closed: nothing more is written to it, keep-alives included. */
  closing: boolean;
  /** The last write handed to the writer: settles once the reader took it, or once it failed and `sub` was dropped. */
  written: Promise<void>;
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
  /** Subscribers of each turn that follow it live (or will, once caught up). */
  #subs = new Map<string, Set<Subscriber>>();
  /** Every stream not finished yet, oldest first (a Set keeps insertion order): at most MAX_SUBSCRIBERS. */
  #open = new Set<Subscriber>();
  /** Next frame id; read from storage on first use. */
  #next: number | null = null;
  /** The highest frame id in a row (or the floor): no row holds a higher one. Set with `#next`. */
  #written = 0;
  /** Frames sent and not yet in a row, each with its JSON (serialized once: sent, measured and written as is). */
  #unwritten: Array<{ id: number; turnId: string; chunk: UiChunk; json: string; bytes: number }> = [];
  #unwrittenBytes = 0;
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** The one keep-alive timer of all open streams: set while one is open, due when the quietest has been quiet for `#pingMs`. */
  #pingTimer: ReturnType<typeof setTimeout> | null = null;
  /** A probe of the open streams at the cap is under way (`#trim`): streams opened meanwhile wait for its outcome. */
  #probing = false;

  readonly #sql: SqlStorage;
  readonly #pingMs: number;
  constructor(sql: SqlStorage, pingMs = STREAM_PING_MS) {
    this.#sql = sql;
    this.#pingMs = pingMs;
  }

  /** The highest id ever written: the newest row (the newest turns' rows are never swept), or the floor `clear` left. */
  #stored(): number {
    const floor = Number(
      one<{ value: string }>(this.#sql, "SELECT value FROM meta WHERE key = ?", FLOOR_KEY)?.value ?? 0,
    );
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
      this.#broadcast(turnId, id, json, QUIET.has(chunk.type));
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
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const sub: Subscriber = {
      turnId,
      writer: writable.getWriter(),
      backlog: 0,
      lastId: after,
      queued: "",
      flushing: false,
      replayNext: false,
      replay: 0,
      catchingUp: true,
      until: live ? Number.POSITIVE_INFINITY : this.#lastFrame(turnId),
      replayed,
      wroteAt: Date.now(),
      closing: false,
      written: Promise.resolve(),
    };
    // A probe already holds one stream over the cap: this one may not add another while it runs.
    if (this.#probing) this.#dropOldest(MAX_SUBSCRIBERS);
    this.#open.add(sub);
    this.#pingTimer ??= setTimeout(() => this.#ping(), this.#pingMs);
    // Finished (read to its end) or cancelled by the client: it no longer counts.
    sub.writer.closed.then(
      () => this.#forget(sub),
      () => this.#drop(sub),
    );
    if (live) {
      let set = this.#subs.get(turnId);
      if (!set) {
        set = new Set();
        this.#subs.set(turnId, set);
      }
      set.add(sub);
    }
    this.#catchUp(sub);
    this.#trim();
    return readable;
  }

  /**
   * Over MAX_SUBSCRIBERS: a hang-up is noticed only when something is written to the stream, so first every open
   * stream gets a keep-alive, and once those writes are taken or refused (at most PROBE_MS) the refused ones are
   * gone; only then, if still over, the oldest are dropped. The new stream is served meanwhile (one over the cap
   * for that long at most: one opened during the probe drops the oldest at once).
   */
  #trim(): void {
    if (this.#probing || this.#open.size <= MAX_SUBSCRIBERS) return;
    this.#probing = true;
    const taken = [...this.#open].flatMap((sub) => {
      if (sub.closing) return [];
      sub.queued += SSE_PING;
      this.#flush(sub);
      // The second is taken only once the stream's carrier has passed the first on: by then a hang-up is known.
      sub.queued += SSE_PING;
      this.#flush(sub);
      return sub.written;
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, PROBE_MS);
    });
    void Promise.race([Promise.all(taken), waited]).then(() => {
      clearTimeout(timer);
      this.#probing = false;
      this.#dropOldest(MAX_SUBSCRIBERS);
    });
  }

  /** Drops the oldest open streams until at most `keep` are left. */
  #dropOldest(keep: number): void {
    for (const old of this.#open) {
      if (this.#open.size <= keep) break;
      this.#drop(old);
    }
  }

  /**
   * The keep-alive timer fired: every stream quiet for `#pingMs` gets a comment, and the timer is set for when the
   * quietest of them will have been; not at all when only ended streams are left (they get nothing more).
   */
  #ping(): void {
    this.#pingTimer = null;
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (const sub of this.#open) {
      if (sub.closing) continue;
      if (now - sub.wroteAt >= this.#pingMs) {
        sub.queued += SSE_PING;
        this.#flush(sub);
      }
      // A stream the keep-alive found too far behind was dropped.
      if (this.#open.has(sub)) next = Math.min(next, sub.wroteAt + this.#pingMs);
    }
    if (next !== Number.POSITIVE_INFINITY) this.#pingTimer = setTimeout(() => this.#ping(), next - now);
  }

  /**
   * Sends the next page of a replay; after the last, the subscriber follows live, or ends at its `until` when
   * nothing is live.
   */
  #catchUp(sub: Subscriber): void {
    if (!this.#open.has(sub)) return;
    const { frames, more } = this.page(sub.turnId, sub.lastId, REPLAY_PAGE_ROWS);
    const owed = frames.filter((f) => f.id <= sub.until);
    if (owed.length > 0) sub.replayNext = true;
    for (const f of owed) this.#send(sub, f.id, sub.replayed(f.chunk));
    if (more && sub.lastId < sub.until) {
      // The page goes out now, quiet frames included; its write resolving (the client took it) reads the next.
      this.#flush(sub);
      return;
    }
    sub.catchingUp = false;
    if (sub.lastId >= sub.until) this.#close(sub);
    // The log ran out before the turn's last frame: its rows were deleted while it replayed (a sweep, a clear).
    // A [DONE] would pass for the turn's end; dropped, the client resumes and gets what is left.
    else if (sub.until !== Number.POSITIVE_INFINITY) this.#drop(sub);
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
    const set = this.#subs.get(turnId);
    if (!set) return;
    this.#subs.delete(turnId);
    let last: number | undefined;
    for (const sub of set) {
      // One still replaying reads the frames up to this end from the log and ends there (not in a segment that
      // resumes the turn later under the same id).
      if (sub.catchingUp) sub.until = last ??= this.#lastFrame(turnId);
      else this.#close(sub);
    }
  }

  subscriberCount(turnId: string): number {
    return this.#subs.get(turnId)?.size ?? 0;
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
    // Ids never repeat: the head survives the rows as a floor (the only write of it).
    write(this.#sql, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", FLOOR_KEY, String(this.head()));
    write(this.#sql, "DELETE FROM stream_log");
  }

  #broadcast(turnId: string, id: number, json: string, quiet: boolean): void {
    const set = this.#subs.get(turnId);
    if (!set) return;
    const frame = sseFrameJson(id, json);
    for (const sub of set) {
      if (sub.catchingUp) continue;
      sub.lastId = id;
      this.#write(sub, frame, quiet);
    }
  }

  #send(sub: Subscriber, id: number, chunk: UiChunk): void {
    sub.lastId = id;
    this.#write(sub, sseFrame(id, chunk), QUIET.has(chunk.type));
  }

  #write(sub: Subscriber, text: string, quiet: boolean): void {
    sub.queued += text;
    if (quiet || sub.flushing) return;
    sub.flushing = true;
    queueMicrotask(() => this.#flush(sub));
  }

  #flush(sub: Subscriber): void {
    sub.flushing = false;
    const text = sub.queued;
    if (text === "") return;
    sub.queued = "";
    sub.wroteAt = Date.now();
    const bytes = encoder.encode(text);
    // A resume's replay is owed to the client whatever its size (more than the limit after a long turn): only what
    // piles up behind it counts, or a client that fell behind could never catch up again.
    const replay = sub.replayNext;
    sub.replayNext = false;
    sub.backlog += bytes.byteLength;
    if (replay) sub.replay = bytes.byteLength;
    else if (sub.backlog - sub.replay > MAX_SUBSCRIBER_BACKLOG) {
      this.#drop(sub);
      return;
    }
    sub.written = sub.writer.write(bytes).then(
      () => {
        sub.backlog -= bytes.byteLength;
        if (!replay) return;
        sub.replay = 0;
        if (sub.catchingUp) this.#catchUp(sub);
      },
      () => this.#drop(sub),
    );
  }

  #close(sub: Subscriber): void {
    this.#write(sub, sseDone(sub.lastId), false);
    this.#flush(sub);
    sub.closing = true;
    sub.writer.close().catch(() => this.#drop(sub));
  }

  /** `sub` no longer counts (false when it did not); the keep-alive timer stops with the last open stream. */
  #forget(sub: Subscriber): boolean {
    if (!this.#open.delete(sub)) return false;
    if (this.#open.size === 0 && this.#pingTimer) {
      clearTimeout(this.#pingTimer);
      this.#pingTimer = null;
    }
    return true;
  }

  #drop(sub: Subscriber): void {
    if (!this.#forget(sub)) return;
    sub.queued = "";
    this.#subs.get(sub.turnId)?.delete(sub);
    sub.writer.abort("subscriber dropped").catch(() => {});
  }
}
