/**
 * Types and constants of runs (turns a session's alarm starts, not a client; docs/API.md): the stored
 * `RunSpec`, the public `RunView`, and the callback retry schedule (`callbackDelay`, attempt and resume limits,
 * how many finished runs are kept, how many may wait in a session's queue).
 */
import type { ErrorInfo } from "../../model/errors";
import type { JsonObject } from "../../model/json";
import type { Part } from "../../model/message";
import type { OpenApproval } from "../approval-store";

/** Public run states (docs/API.md): a run is one turn started by the session's alarm, not by a client. */
export type RunStatus = "queued" | "running" | "awaiting_approval" | "completed" | "failed";

/** Statuses of a run not yet ended. */
export const OPEN_RUN_STATUSES: readonly RunStatus[] = ["queued", "running", "awaiting_approval"];

export type CallbackStatus = "pending" | "delivered" | "failed";

/** What the worker hands the session: everything needed to start the run later, from the alarm. */
export interface RunSpec {
  id: string;
  agent: string;
  input: Part[];
  json_schema?: JsonObject;
  callback_url?: string;
  /** The `webhook-id` (or Idempotency-Key) the run was created with, if any. */
  webhook_id?: string;
  created_at: string;
}

export interface RunOutput {
  /** Text of the final assistant message (capped). */
  output: string;
  finish_reason: string | null;
  usage: Record<string, number>;
  structured_result?: unknown;
}

export interface CallbackAttempt {
  attempt: number;
  at: string;
  /** HTTP status of the answer; null when none arrived (network error, timeout, refused URL). */
  status: number | null;
  error: string | null;
}

/** `GET /v1/runs/{id}` */
export interface RunView {
  run_id: string;
  agent: string;
  session_id: string;
  status: RunStatus;
  turn_id: string | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  /** Times the run was started again after its session restarted mid-turn. */
  resumes: number;
  /** The final text, finish reason and usage; the structured result is `structured_result`, not repeated here. */
  result?: Omit<RunOutput, "structured_result">;
  structured_result?: unknown;
  /** While `awaiting_approval`: what a person must answer (POST /v1/sessions/{session_id}/tool-approvals). */
  approvals?: OpenApproval[];
  error?: ErrorInfo;
  callback?: {
    url: string;
    status: CallbackStatus;
    attempts: CallbackAttempt[];
    next_attempt_at: string | null;
  };
}

/** Callbacks: the first attempt when the run ends, then retries with capped exponential backoff. */
export const CALLBACK_MAX_ATTEMPTS = 6;
const CALLBACK_BASE_DELAY_MS = 10_000;
export const CALLBACK_MAX_DELAY_MS = 15 * 60_000;
export const CALLBACK_TIMEOUT_MS = 10_000;
/** A run interrupted by a restart is started again at most this many times, then fails. */
export const MAX_RESUMES = 2;
/** Finished runs kept per session (older ones are swept when a run is queued). */
export const RUNS_KEPT = 1000;
/**
 * Queued runs a session holds at most; another is refused (`429 run_queue_full`) until one starts. A session
 * blocked for long (a turn awaiting an approval with no TTL) would otherwise keep queueing webhook runs, up to
 * 1 MiB of input each, without bound.
 */
export const MAX_QUEUED_RUNS = 100;

/** Delay before attempt `n + 1` after attempt `n` failed: 10 s, 30 s, 90 s, 270 s, 810 s, capped at 15 min, +0–10 % jitter. */
export function callbackDelay(attempt: number, jitter = Math.random()): number {
  const base = Math.min(CALLBACK_BASE_DELAY_MS * 3 ** (attempt - 1), CALLBACK_MAX_DELAY_MS);
  return Math.round(base * (1 + 0.1 * jitter));
}
