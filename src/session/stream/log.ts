import { cutText, fitJson, jsonBytes, splitText } from "../../storage/fit";
import { STREAM_ROW_BUDGET_BYTES } from "../../storage/limits";
import { all, one, run } from "../../storage/sql";
import { sseDone, sseFrame } from "./sse";
import type { UiChunk } from "./ui-chunks";

const encoder = new TextEncoder();

/** A client falling this many bytes behind is dropped; it resumes with Last-Event-ID. */
const MAX_SUBSCRIBER_BACKLOG = 4 * 1024 * 1024;
/** Stream logs of this many most recent turns are kept for replay. */
const KEEP_TURNS = 3;

/**
 * One chunk as rows under the stream-row budget: a long delta is split over
 * several deltas (lossless: the client concatenates them); any other chunk
 * keeps its shape with its long strings cut (marker with the original size).
 */
export function fitRow(chunk: UiChunk): UiChunk[] {
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

interface Subscriber {
  writer: WritableStreamDefaultWriter<Uint8Array>;
  backlog: number;
  /** The id of the last frame this subscriber was sent (its resume position). */
  lastId: number;
}

/**
 * The bounded, resumable stream log: every (coalesced) UI chunk of a turn is a
 * row whose id is the SSE event id. Live subscribers receive exactly the rows
 * as they are written, so replay-then-follow has no gaps and no duplicates.
 */
export class StreamLog {
  #subs = new Map<string, Set<Subscriber>>();

  constructor(private readonly sql: SqlStorage) {}

  /** Highest id written so far (0 when empty); rows written later have larger ids. */
  head(): number {
    return one<{ m: number | null }>(this.sql, "SELECT max(id) AS m FROM stream_log")?.m ?? 0;
  }

  append(turnId: string, chunks: UiChunk[]): void {
    for (const chunk of chunks.flatMap(fitRow)) {
      const row = one<{ id: number }>(
        this.sql,
        "INSERT INTO stream_log (turn_id, chunk) VALUES (?, ?) RETURNING id",
        turnId,
        JSON.stringify(chunk),
      );
      if (row) this.#broadcast(turnId, row.id, chunk);
    }
  }

  rows(turnId: string, after: number): Array<{ id: number; chunk: UiChunk }> {
    return all<{ id: number; chunk: string }>(
      this.sql,
      "SELECT id, chunk FROM stream_log WHERE turn_id = ? AND id > ? ORDER BY id",
      turnId,
      after,
    ).map((r) => ({ id: r.id, chunk: JSON.parse(r.chunk) as UiChunk }));
  }

  /**
   * Replays rows of `turnId` after `after`, then follows live when `live`;
   * otherwise ends with [DONE]. Runs synchronously up to the subscription, so
   * no row can be written between the replay and the follow.
   */
  open(turnId: string, after: number, live: boolean): ReadableStream<Uint8Array> {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const sub: Subscriber = { writer: writable.getWriter(), backlog: 0, lastId: after };
    for (const r of this.rows(turnId, after)) this.#send(turnId, sub, r.id, r.chunk);
    if (live) {
      let set = this.#subs.get(turnId);
      if (!set) {
        set = new Set();
        this.#subs.set(turnId, set);
      }
      set.add(sub);
    } else {
      this.#close(turnId, sub);
    }
    return readable;
  }

  /** Ends every live stream of the turn (turn finished or paused). */
  end(turnId: string): void {
    const set = this.#subs.get(turnId);
    if (!set) return;
    this.#subs.delete(turnId);
    for (const sub of set) this.#close(turnId, sub);
  }

  subscriberCount(turnId: string): number {
    return this.#subs.get(turnId)?.size ?? 0;
  }

  /** Keeps the logs of the newest turns only. */
  sweep(): void {
    run(
      this.sql,
      `DELETE FROM stream_log WHERE turn_id NOT IN (SELECT id FROM turns ORDER BY ord DESC LIMIT ?)`,
      KEEP_TURNS,
    );
  }

  clear(): void {
    run(this.sql, "DELETE FROM stream_log");
  }

  #broadcast(turnId: string, id: number, chunk: UiChunk): void {
    const set = this.#subs.get(turnId);
    if (!set) return;
    const frame = sseFrame(id, chunk);
    for (const sub of set) {
      sub.lastId = id;
      this.#write(turnId, sub, frame);
    }
  }

  #send(turnId: string, sub: Subscriber, id: number, chunk: UiChunk): void {
    sub.lastId = id;
    this.#write(turnId, sub, sseFrame(id, chunk));
  }

  #write(turnId: string, sub: Subscriber, text: string): void {
    const bytes = encoder.encode(text);
    sub.backlog += bytes.byteLength;
    if (sub.backlog > MAX_SUBSCRIBER_BACKLOG) {
      this.#drop(turnId, sub);
      return;
    }
    sub.writer.write(bytes).then(
      () => {
        sub.backlog -= bytes.byteLength;
      },
      () => this.#drop(turnId, sub),
    );
  }

  #close(turnId: string, sub: Subscriber): void {
    this.#write(turnId, sub, sseDone(sub.lastId));
    sub.writer.close().catch(() => this.#drop(turnId, sub));
  }

  #drop(turnId: string, sub: Subscriber): void {
    this.#subs.get(turnId)?.delete(sub);
    sub.writer.abort("subscriber dropped").catch(() => {});
  }
}
