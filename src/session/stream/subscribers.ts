/**
 * The open client streams of a session object (`Subscribers`): each follows one turn, replaying the frames it
 * missed a page at a time from the stream log and then the live frames as they are sent, or ending at the turn's
 * last frame; frames sent in one task go out as one write, those that only open or close something wait for the
 * next frame. An object holds at most MAX_SUBSCRIBERS such streams (opening one more probes the others and drops
 * the oldest), a client too far behind is dropped, and a stream quiet for the ping interval gets a keep-alive
 * comment from the one timer of all open streams.
 */
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

/** What subscribers read back from the stream log. */
interface Replay {
  /**
   * The next page of `turnId`'s frames after `after` (a few stored rows, or the unwritten frames once no stored row
   * is left); `more` when stored rows may be left (read them from the last frame's id).
   */
  page(turnId: string, after: number): { frames: Array<{ id: number; chunk: UiChunk }>; more: boolean };
  /** The id of `turnId`'s last frame so far, written or not (0 when it has none). */
  lastFrame(turnId: string): number;
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
 * The set of a session object's open client streams and the turns they follow. The stream log hands each frame to
 * `broadcast` as it is sent and calls `end` when a turn ends or pauses; a stream reads what it missed through the
 * log's `Replay`.
 */
export class Subscribers {
  /** Subscribers of each turn that follow it live (or will, once caught up). */
  #subs = new Map<string, Set<Subscriber>>();
  /** Every stream not finished yet, oldest first (a Set keeps insertion order): at most MAX_SUBSCRIBERS. */
  #open = new Set<Subscriber>();
  /** The one keep-alive timer of all open streams: set while one is open, due when the quietest has been quiet for `#pingMs`. */
  #pingTimer: ReturnType<typeof setTimeout> | null = null;
  /** A probe of the open streams at the cap is under way (`#trim`): streams opened meanwhile wait for its outcome. */
  #probing = false;

  readonly #log: Replay;
  readonly #pingMs: number;
  constructor(log: Replay, pingMs = STREAM_PING_MS) {
    this.#log = log;
    this.#pingMs = pingMs;
  }

  /**
   * A stream of `turnId`'s frames after `after`: it follows live when `live`, else it ends with [DONE] after the
   * turn's last frame as of now (`until`). The last page of the replay and joining the live frames happen in one
   * synchronous step, so no frame can be sent between the two. `replayed`: applied to each frame read back, not to
   * the live ones.
   */
  open(
    turnId: string,
    after: number,
    live: boolean,
    replayed: (chunk: UiChunk) => UiChunk,
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
      until: live ? Number.POSITIVE_INFINITY : this.#log.lastFrame(turnId),
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

  /** Frame `id` of `turnId` was sent (`json`: its chunk's JSON): every live stream of the turn that caught up gets it. */
  broadcast(turnId: string, id: number, chunk: UiChunk, json: string): void {
    const set = this.#subs.get(turnId);
    if (!set) return;
    const frame = sseFrameJson(id, json);
    const quiet = QUIET.has(chunk.type);
    for (const sub of set) {
      if (sub.catchingUp) continue;
      sub.lastId = id;
      this.#write(sub, frame, quiet);
    }
  }

  /** Ends every live stream of the turn (turn finished or paused; its frames are all written). */
  end(turnId: string): void {
    const set = this.#subs.get(turnId);
    if (!set) return;
    this.#subs.delete(turnId);
    let last: number | undefined;
    for (const sub of set) {
      // One still replaying reads the frames up to this end from the log and ends there (not in a segment that
      // resumes the turn later under the same id).
      if (sub.catchingUp) sub.until = last ??= this.#log.lastFrame(turnId);
      else this.#close(sub);
    }
  }

  /**
   * The session's storage was wiped (a DELETE, an idle expiry, a rebuild): every stream still being written to is
   * dropped (its client sees it end with an error, and a resume finds no session), and no keep-alive is due. A
   * stream whose end is already written is only let go: its client reads it to that end.
   */
  reset(): void {
    for (const sub of this.#open) {
      if (sub.closing) this.#forget(sub);
      else this.#drop(sub);
    }
    this.#subs.clear();
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
    let page: ReturnType<Replay["page"]>;
    try {
      page = this.#log.page(sub.turnId, sub.lastId);
    } catch {
      // The log could not be read (its table gone with a wipe, say): the client resumes, or learns the session is gone.
      this.#drop(sub);
      return;
    }
    const { frames, more } = page;
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
