/**
 * The `tool_calls` ledger that keeps invariant P: `CallLedger` registers every tool_use a step stores as a pending
 * call, keeps each call's result until the user message that carries it answers the call, and reads what the tool
 * phase, client results and `$tool` references ask of a call. It knows whether any call is open without reading
 * the table each time. Methods only run SQL, so callers compose them in transactions; `HistoryStore` composes it
 * with the messages (`appendAssistantParts`, `closeOpenCalls`).
 */
import type { Part, ToolResultContent, ToolResultPart } from "../../model/message";
import { resultText } from "../../model/message";
import { markedSizes } from "../../storage/fit";
import { all, nowIso, one, write } from "../../storage/sql";
import type { LookupResult } from "../../tools/refs/index";
import { boundResultContent } from "./truncate";

export type CallState = "pending" | "resolved" | "synthesized" | "skipped";
export type Execution = "http" | "client" | "builtin" | "mcp" | "unknown";

export interface ToolCallRow {
  id: string;
  message_seq: number;
  idx: number;
  turn_id: string | null;
  name: string;
  execution: Execution;
  state: CallState;
  result: string | null;
  is_error: number;
  answered_seq: number | null;
  /** 1 once its result was told on the turn's stream as its step ran (the tool phase stored it). */
  announced: number;
  /**
   * 1 when its result is not all the tool returned: cut for storage (its text ends with a truncation marker), or cut
   * before it was stored by the tool that returned it (`ToolOutcome.cut`). No reference may pass it.
   */
  cut: number;
  [key: string]: string | number | null;
}

/** The text a `$tool` reference reads of a result: its text blocks only (a tool_reference that loaded a tool is not). */
function referencedText(content: ToolResultContent): string {
  return typeof content === "string" ? content : resultText(content.filter((b) => b.type === "text"));
}

/** A call's stored result as the tool_result part that carries it. */
export function storedResultPart(call: ToolCallRow): ToolResultPart {
  return {
    type: "tool_result",
    tool_use_id: call.id,
    content: JSON.parse(call.result ?? '""') as ToolResultContent,
    is_error: call.is_error === 1,
  };
}

/**
 * The `tool_calls` rows. A call is "open" until its result is written to history (`answered_seq IS NULL`); open
 * calls only ever belong to the newest assistant message, because every write of a user message answers all of
 * them first (`HistoryStore.closeOpenCalls`).
 */
export class CallLedger {
  /**
   * True when no call is open, false when one may be, undefined when unknown (a new instance, a rollback):
   * set by every read and write of `answered_seq`, so a session that is not mid-tool-call does not read the
   * ledger at each admission.
   */
  #noneOpen: boolean | undefined = undefined;

  readonly #sql: SqlStorage;
  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  /**
   * Registers the tool_use parts of `parts` as `pending` calls of message `messageSeq`, numbered from `offset` (the
   * parts the message held before them).
   */
  register(
    turnId: string,
    messageSeq: number,
    offset: number,
    parts: Part[],
    executionOf: (name: string) => Execution,
  ): void {
    const at = nowIso();
    parts.forEach((part, i) => {
      if (part.type !== "tool_use") return;
      this.#noneOpen = false;
      write(
        this.#sql,
        `INSERT INTO tool_calls (id, message_seq, idx, turn_id, name, execution, state, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
        part.id,
        messageSeq,
        offset + i,
        turnId,
        part.name,
        executionOf(part.name),
        at,
        at,
      );
    });
  }

  /** The results stored for open calls (a paused step's), as the parts that carry them once the step closes. */
  storedResults(): ToolResultPart[] {
    return this.openCalls()
      .filter((c) => c.result !== null)
      .map(storedResultPart);
  }

  /** Open calls (not yet written to history), in tool_use order. Uses the partial index only. */
  openCalls(): ToolCallRow[] {
    if (this.#noneOpen === true) return [];
    const rows = all<ToolCallRow>(
      this.#sql,
      "SELECT * FROM tool_calls WHERE answered_seq IS NULL ORDER BY message_seq, idx",
    );
    this.#noneOpen = rows.length === 0;
    return rows;
  }

  call(id: string): ToolCallRow | null {
    return one<ToolCallRow>(this.#sql, "SELECT * FROM tool_calls WHERE id = ?", id);
  }

  /**
   * The stored call id a provider was sent as `id` in its own form (`form`: e.g. Anthropic's, for another
   * provider's ids with characters it refuses), or null. Only ids holding such characters can differ.
   */
  callIdAs(id: string, form: (stored: string) => string): string | null {
    const odd = all<{ id: string }>(this.#sql, "SELECT id FROM tool_calls WHERE id GLOB '*[^a-zA-Z0-9_-]*'");
    return odd.find((r) => form(r.id) === id)?.id ?? null;
  }

  hasToolUseId(id: string): boolean {
    return one(this.#sql, "SELECT 1 AS x FROM tool_calls WHERE id = ?", id) !== null;
  }

  /**
   * What a `$tool` reference to an earlier call stands for: its result's text as JSON when it parses (a scalar too),
   * else the text. Refused when the call has no result to pass, or a cut result (a head and a marker: its JSON would
   * not parse, and its text is not what the tool returned), with the sizes its storage marker names when it was cut
   * for storage.
   */
  referencedValue(id: string): LookupResult {
    const call = this.call(id);
    if (!call) return { ok: false, reason: "unknown" };
    if (call.state === "pending") return { ok: false, reason: "pending" };
    if (call.state !== "resolved" || call.is_error === 1) return { ok: false, reason: "failed" };
    const text = referencedText(JSON.parse(call.result ?? '""') as ToolResultContent);
    if (call.cut === 1) return { ok: false, reason: "cut", stored: markedSizes(text) };
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch {
      return { ok: true, value: text };
    }
  }

  /**
   * Stores a pending call's result without writing history yet (siblings may still be running); false (nothing
   * written) when the call already has one. `announced`: the caller tells it on the turn's stream now. `cut`: the
   * tool already cut `content` before returning it (`ToolOutcome.cut`); it is stored as cut, as one cut here is.
   */
  storeResult(
    id: string,
    state: Exclude<CallState, "pending">,
    content: ToolResultContent,
    isError: boolean,
    opts: { announced?: boolean; cut?: boolean } = {},
  ): boolean {
    const stored = boundResultContent(content);
    // Cut, not only merged into one text block to fit: its text now ends with a marker.
    const cut = opts.cut === true || (stored !== content && markedSizes(referencedText(stored)) !== null);
    const written = write(
      this.#sql,
      "UPDATE tool_calls SET state = ?, result = ?, is_error = ?, announced = ?, cut = ?, updated_at = ? WHERE id = ? AND state = 'pending'",
      state,
      JSON.stringify(stored),
      isError ? 1 : 0,
      opts.announced ? 1 : 0,
      cut ? 1 : 0,
      nowIso(),
      id,
    );
    return written > 0;
  }

  /** Replaces the result a call has, whatever its state, with the synthetic error `content` (recovery's last resort). */
  synthesize(id: string, content: string): void {
    write(
      this.#sql,
      "UPDATE tool_calls SET state = 'synthesized', result = ?, is_error = 1, cut = 0, updated_at = ? WHERE id = ?",
      JSON.stringify(content),
      nowIso(),
      id,
    );
  }

  /** True when every open call has a result (real, synthetic or skipped). */
  openCallsSettled(): boolean {
    if (this.#noneOpen === true) return true;
    return one(this.#sql, "SELECT 1 AS x FROM tool_calls WHERE answered_seq IS NULL AND state = 'pending'") === null;
  }

  /** Marks every open call answered by message `seq`, the user message that carries their results. */
  answerOpen(seq: number): void {
    write(this.#sql, "UPDATE tool_calls SET answered_seq = ? WHERE answered_seq IS NULL", seq);
    this.#noneOpen = true;
  }

  /** Forgets whether any call is open, e.g. after a transaction that may have rolled back. */
  invalidate(): void {
    this.#noneOpen = undefined;
  }

  /** Deletes every call (the history was emptied). */
  clear(): void {
    write(this.#sql, "DELETE FROM tool_calls");
    this.#noneOpen = true;
  }
}
