/**
 * Human approval of consequential tool calls (which calls need one is
 * `approval-policy.ts`): the durable `approvals` table and the session's
 * signing key. The signature that binds an approval to its session, call and
 * exact input is made in `approval-signature.ts`; the checks an answer passes
 * before anything is written, and the declines, are in `approval-answers.ts`.
 *
 * A call that needs approval stays `pending` in the `tool_calls` ledger; its
 * approval row is `pending → approved | declined`. A declined call gets its
 * `is_error` result at once; an approved one runs when the turn resumes (all
 * answers in), exactly once: `executed_at` is set in the transaction before it
 * runs. Nothing here lives only in memory, so a restart changes nothing.
 */

import type { JsonObject } from "../model/json";
import { fitJson } from "../storage/fit";
import { RESOLVED_INPUT_BUDGET_BYTES } from "../storage/limits";
import { all, nowIso, one, write } from "../storage/sql";
import { importKeyText, newKeyText, type Signed, signApproval, verifyApproval } from "./approval-signature";
import { removeJob } from "./scheduler";

export type ApprovalStatus = "pending" | "approved" | "declined";

export interface ApprovalRow {
  id: string;
  call_id: string;
  turn_id: string;
  name: string;
  input: string;
  resolved_input: string | null;
  reason: string;
  signature: string;
  status: ApprovalStatus;
  decided_reason: string | null;
  decided_by: string | null;
  requested_at: string;
  decided_at: string | null;
  expires_at: number | null;
  executed_at: string | null;
  /** 1 once the decision was told on the turn's stream by the segment that paused (turn-runner.ts `#announceDecided`). */
  announced: number;
  [key: string]: string | number | null;
}

/** An open approval as `GET /v1/sessions/{id}`, turn results and run callbacks show it. */
export interface OpenApproval {
  approval_id: string;
  tool_call_id: string;
  name: string;
  input: JsonObject;
  /** The arguments the call runs with, its `$tool` references resolved (only when it has any). */
  resolved_input?: JsonObject;
  reason: string;
  signature: string;
  requested_at: string;
  expires_at: string | null;
}

/** One answer, from `/tool-approvals` or a useChat `approval-responded` part. */
export interface ApprovalAnswer {
  approval_id: string;
  approved: boolean;
  reason?: string;
  /** useChat echoes the signature, the call id and the input it showed; all must match. */
  signature?: string;
  tool_call_id?: string;
  input?: unknown;
}

/**
 * Who answered (`approvals.decided_by`, the events' `by`): a person through `key:<api key id>`, `token:<jti>`,
 * `admin` or `webhook:<webhook-id>` (a run's approvals route), or the service itself: `admission` (a new message
 * or retry), `cancel`, `clear` (the session was cleared: in its events only, the rows go in the same transaction),
 * `failure` (the turn failed), `recovery` (a restart) or `ttl` (expired).
 */
export type Actor = string;

export const MOVED_ON = "the user moved on";
export const EXPIRED = "the approval expired";

/**
 * An approval's `resolved_input` as the person is shown it, stored and streamed alike: within
 * RESOLVED_INPUT_BUDGET_BYTES (long strings cut, with a marker); one whose structure alone is larger is left out
 * (undefined), the input as written still shows the references.
 */
export function shownResolved(resolved: JsonObject): JsonObject | undefined {
  const fitted = fitJson(resolved, RESOLVED_INPUT_BUDGET_BYTES);
  return typeof fitted === "object" && fitted !== null && !Array.isArray(fitted) ? (fitted as JsonObject) : undefined;
}

/** The stored `resolved_input` (shownResolved), null when there is none to show. */
function resolvedColumn(resolved: JsonObject | undefined): string | null {
  const shown = resolved === undefined ? undefined : shownResolved(resolved);
  return shown === undefined ? null : JSON.stringify(shown);
}

/**
 * The `approvals` table and the session's signing key. The key is 32 random
 * bytes made on first use and kept in `meta`: it never leaves the object, so
 * signatures cannot be made elsewhere, and it survives restarts and deploys
 * (an approval may wait a week) without depending on any rotating secret.
 */
export class ApprovalStore {
  #key: Promise<CryptoKey> | null = null;
  /**
   * True when the table is known to hold no row (most sessions never ask a person), undefined when unknown (a
   * new instance, a rollback): then `pending` and `onOpenCalls`, read at every admission, read nothing.
   */
  #empty: boolean | undefined = undefined;

  readonly #sql: SqlStorage;
  readonly #session: () => string;
  constructor(sql: SqlStorage, session: () => string) {
    this.#session = session;
    this.#sql = sql;
  }

  #signingKey(): Promise<CryptoKey> {
    if (!this.#key) {
      let raw = one<{ value: string }>(this.#sql, "SELECT value FROM meta WHERE key = 'approval_key'")?.value;
      if (!raw) {
        raw = newKeyText();
        write(this.#sql, "INSERT OR IGNORE INTO meta (key, value) VALUES ('approval_key', ?)", raw);
        raw = one<{ value: string }>(this.#sql, "SELECT value FROM meta WHERE key = 'approval_key'")?.value ?? raw;
      }
      this.#key = importKeyText(raw);
    }
    return this.#key;
  }

  /** What a signature of this session binds for an approval. */
  #signed(approvalId: string, callId: string, name: string, input: unknown): Signed {
    return { session: this.#session(), approvalId, callId, name, input };
  }

  sign(approvalId: string, callId: string, name: string, input: unknown): Promise<string> {
    return signApproval(() => this.#signingKey(), this.#signed(approvalId, callId, name, input));
  }

  /** Constant-time check of a presented signature (`verifyApproval`). */
  verify(signature: string, approvalId: string, callId: string, name: string, input: unknown): Promise<boolean> {
    return verifyApproval(() => this.#signingKey(), signature, this.#signed(approvalId, callId, name, input));
  }

  get(id: string): ApprovalRow | null {
    return one<ApprovalRow>(this.#sql, "SELECT * FROM approvals WHERE id = ?", id);
  }

  byCall(callId: string): ApprovalRow | null {
    return one<ApprovalRow>(this.#sql, "SELECT * FROM approvals WHERE call_id = ?", callId);
  }

  create(a: {
    id: string;
    call_id: string;
    turn_id: string;
    name: string;
    input: JsonObject;
    resolved_input?: JsonObject | undefined;
    reason: string;
    signature: string;
    expires_at: number | null;
  }): void {
    this.#empty = false;
    write(
      this.#sql,
      `INSERT INTO approvals (id, call_id, turn_id, name, input, resolved_input, reason, signature, status, requested_at,
         expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT (call_id) DO NOTHING`,
      a.id,
      a.call_id,
      a.turn_id,
      a.name,
      JSON.stringify(a.input),
      resolvedColumn(a.resolved_input),
      a.reason,
      a.signature,
      nowIso(),
      a.expires_at,
    );
  }

  /**
   * Drops what this store knows of its table and key without reading them (a rollback, a wipe). The key goes too:
   * a wipe deletes it from `meta` (a rollback may undo its first write), and a session made again under the same
   * id must sign with the key stored for it, or its signatures fail once the object restarts.
   */
  invalidate(): void {
    this.#empty = undefined;
    this.#key = null;
  }

  #none(): boolean {
    this.#empty ??= one(this.#sql, "SELECT 1 AS x FROM approvals LIMIT 1") === null;
    return this.#empty;
  }

  /** Pending approvals, oldest first. */
  pending(): ApprovalRow[] {
    if (this.#none()) return [];
    return all<ApprovalRow>(this.#sql, "SELECT * FROM approvals WHERE status = 'pending' ORDER BY requested_at, id");
  }

  /** Approvals of calls still open (the current pause): what a resumed segment must deliver. */
  onOpenCalls(): ApprovalRow[] {
    if (this.#none()) return [];
    return all<ApprovalRow>(
      this.#sql,
      `SELECT a.* FROM approvals a JOIN tool_calls c ON c.id = a.call_id
       WHERE c.answered_seq IS NULL ORDER BY c.message_seq, c.idx`,
    );
  }

  /**
   * True when the paused turn may continue: every open call without a result
   * is an approved call waiting to write (nothing awaits a person or a client).
   */
  readyToResume(): boolean {
    return (
      one(
        this.#sql,
        `SELECT 1 AS x FROM tool_calls c WHERE c.answered_seq IS NULL AND c.state = 'pending'
         AND NOT EXISTS (SELECT 1 FROM approvals a WHERE a.call_id = c.id AND a.status = 'approved')`,
      ) === null
    );
  }

  /** Records a decision (and drops its expiry job); SQL only. False when it was no longer pending (nothing written). */
  decide(id: string, status: "approved" | "declined", reason: string | null, by: Actor): boolean {
    removeJob(this.#sql, "approval", id);
    return (
      write(
        this.#sql,
        `UPDATE approvals SET status = ?, decided_reason = ?, decided_by = ?, decided_at = ?
         WHERE id = ? AND status = 'pending'`,
        status,
        reason,
        by,
        nowIso(),
        id,
      ) > 0
    );
  }

  /**
   * Closes every pending approval without answering its call (SQL only): for
   * recovery, where `closeOpenCalls` then gives the call the restart's
   * synthetic result, and for `clear`, whose transaction deletes the calls.
   * Returns the approvals closed.
   */
  closeAll(reason: string, by: Actor): ApprovalRow[] {
    const open = this.pending();
    for (const row of open) this.decide(row.id, "declined", reason, by);
    return open;
  }

  /** Marks decisions as told on the turn's stream (SQL only): the resumed segment leaves them out. */
  markAnnounced(ids: string[]): void {
    for (const id of ids) write(this.#sql, "UPDATE approvals SET announced = 1 WHERE id = ?", id);
  }

  /** Claims approved calls for execution; returns the ids claimed (each at most once, ever). */
  claim(ids: string[]): string[] {
    const at = nowIso();
    return ids.filter(
      (id) =>
        write(
          this.#sql,
          "UPDATE approvals SET executed_at = ? WHERE id = ? AND status = 'approved' AND executed_at IS NULL",
          at,
          id,
        ) > 0,
    );
  }

  clear(): void {
    write(this.#sql, "DELETE FROM approvals");
    this.#empty = true;
  }
}

export function openView(row: ApprovalRow): OpenApproval {
  return {
    approval_id: row.id,
    tool_call_id: row.call_id,
    name: row.name,
    input: JSON.parse(row.input) as JsonObject,
    ...(row.resolved_input === null ? {} : { resolved_input: JSON.parse(row.resolved_input) as JsonObject }),
    reason: row.reason,
    signature: row.signature,
    requested_at: row.requested_at,
    expires_at: row.expires_at === null ? null : new Date(row.expires_at).toISOString(),
  };
}
