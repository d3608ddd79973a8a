/**
 * A turn's writer to the stream log (`TurnOutput`): `emit` encodes each TurnEvent to UI chunks and appends
 * them, structural chunks at once and deltas batched for up to DELTA_FLUSH_MS; `close` flushes and ends the
 * turn's live streams; `takeOver` goes on with a turn whose writer writes no more. An optional callback fires once
 * the first row of the provider's answer is out.
 */

import type { TurnStatus } from "../../model/turn";
import { unavailable } from "../history/close-open-calls";
import { coalesce } from "../stream/coalesce";
import { leftOpen } from "../stream/left-open";
import type { StreamLog } from "../stream/stream-log";
import type { TurnEvent, UiFinishReason } from "../stream/turn-events";
import type { UiChunk } from "../stream/ui-chunks";
import { UiEncoder } from "../stream/ui-encoder";

/** Deltas wait at most this long before they are written, so one row carries many tokens. */
const DELTA_FLUSH_MS = 25;

const DELTAS = new Set(["text-delta", "reasoning-delta", "tool-input-delta"]);

/**
 * The turn's way out to clients: TurnEvents → UI chunks → coalesced rows in
 * the stream log (which fans them out live). Structural chunks are written at
 * once; deltas are batched.
 */
export class TurnOutput {
  readonly #encoder: UiEncoder;
  #pending: UiChunk[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  #lastFlush = 0;
  #lastRowsWereDeltas = false;
  rowsWritten = 0;
  deltaChars = 0;

  readonly #streamLog: StreamLog;
  readonly #turnId: string;
  #onFirstContent: (() => void) | null;
  /** Chunks of a provider event are among those pending. */
  #providerPending = false;
  /**
   * `onFirstContent`: called once, right after the first row holding any chunk of the provider's answer has been
   * written (a delta, or a tool call's opener when its arguments are empty). `serverRuns`: which tools the session
   * runs itself (UiEncoder: their parts carry `providerExecuted`).
   */
  constructor(
    streamLog: StreamLog,
    turnId: string,
    onFirstContent: (() => void) | null = null,
    serverRuns?: (toolName: string) => boolean,
  ) {
    this.#encoder = new UiEncoder(serverRuns);
    this.#turnId = turnId;
    this.#streamLog = streamLog;
    this.#onFirstContent = onFirstContent;
  }

  emit(ev: TurnEvent): void {
    const chunks = this.#encoder.push(ev);
    if (chunks.length === 0) return;
    this.#pending.push(...chunks);
    if (ev.type === "provider") this.#providerPending = true;
    if (ev.type === "provider" && ev.event.type === "text_delta") this.deltaChars += ev.event.text.length;
    // Leading edge: a delta after a quiet spell (e.g. the first token) goes out at once;
    // deltas that follow within the window are batched into one row.
    const batching = this.#lastRowsWereDeltas && Date.now() - this.#lastFlush < DELTA_FLUSH_MS;
    if (chunks.every((c) => DELTAS.has(c.type)) && batching) {
      this.#timer ??= setTimeout(() => this.flush(), DELTA_FLUSH_MS);
    } else {
      this.flush();
    }
  }

  /**
   * Takes the turn over from the writer of its frames so far, which writes no more (a lost instance, a runner that
   * could not write its end, a paused segment): the turn's logged frames from `logStart` are read, and what they
   * leave open is closed first (UiEncoder `continueFrom`); from then on only calls those frames started get outcomes.
   */
  takeOver(logStart: number, reason: string): void {
    const left = leftOpen(this.#streamLog.chunks(this.#turnId, logStart));
    this.#pending.push(...this.#encoder.continueFrom(left, reason));
    this.flush();
  }

  /**
   * Writes every frame sent so far to the stream log's table now, deltas still batched included: called in the
   * synchronous block that stores what those frames show (a completed tool call), so both are committed together
   * and no stored call can lack its frames after a crash.
   */
  persist(): void {
    this.flush();
    this.#streamLog.persist();
  }

  flush(): void {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    if (this.#pending.length === 0) return;
    this.#lastFlush = Date.now();
    this.#lastRowsWereDeltas = this.#pending.every((c) => DELTAS.has(c.type));
    const content = this.#providerPending;
    const rows = coalesce(this.#pending);
    this.#pending = [];
    this.#providerPending = false;
    this.#streamLog.append(this.#turnId, rows);
    this.rowsWritten += rows.length;
    if (content && this.#onFirstContent) {
      const call = this.#onFirstContent;
      this.#onFirstContent = null;
      call();
    }
  }

  /**
   * How the turn (or its segment) ended, as clients read it: the `data-turn` status part, then the error chunk of a
   * failed turn, then the finish. The status part goes first: useChat stops reading at an error chunk, and this
   * part is how it learns the turn failed rather than its connection.
   */
  end(
    turnId: string,
    status: TurnStatus,
    reason: string,
    finish: UiFinishReason,
    error: { code: string; message: string } | null,
  ): void {
    this.emit({
      type: "data",
      name: "turn",
      data: {
        turn_id: turnId,
        status,
        finish_reason: reason,
        ...(error ? { error: { code: error.code, message: error.message } } : {}),
      },
      transient: true,
    });
    if (error) this.emit({ type: "turn_error", code: error.code, message: error.message });
    this.emit({ type: "turn_finish", status, finish_reason: finish });
  }

  /**
   * The calls a turn's end closed, as clients read them: declined approvals' calls (`tool-output-denied`) and
   * synthesized results (`tool-output-error`), so no client keeps a call spinning or sends an answered approval
   * again. A declined call is told once, as denied, even when its result was synthesized too (recovery). First the
   * message gets its empty last step (`no_more_steps`): the turn runs no more.
   */
  closedCalls(declined: ReadonlyArray<{ call_id: string }>, synthesized: readonly string[], reason: string): void {
    this.emit({ type: "no_more_steps" });
    const denied = new Set(declined.map((row) => row.call_id));
    for (const id of denied) this.emit({ type: "tool_denied", tool_use_id: id });
    for (const id of synthesized) {
      if (denied.has(id)) continue;
      // `earlier`: the call may be of an earlier segment of the turn, which the client holds.
      this.emit({ type: "tool_output", tool_use_id: id, content: unavailable(reason), is_error: true, earlier: true });
    }
  }

  /** Flushes and ends every live stream of the turn. */
  close(): void {
    this.flush();
    this.#streamLog.end(this.#turnId);
  }
}
