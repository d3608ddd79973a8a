/**
 * The HTTP layer's one error type. `ApiError` is what routes throw and
 * `app.onError` renders as the contract's JSON; `apiError` maps an ErrorInfo
 * from below (a session's refusal, a D1 call D1 failed) to its status.
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorInfo } from "../model/errors";

/** The one error type routes throw; `app.onError` renders it as the contract's JSON. */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: string;
  readonly headers: Record<string, string>;

  constructor(status: ContentfulStatusCode, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

interface ErrorBody {
  error: { code: string; message: string };
}

export function errorBody(code: string, message: string): ErrorBody {
  return { error: { code, message } };
}

/**
 * The status of each code a session object refuses with (docs/API.md). A code
 * not listed is a conflict with the session's state: 409.
 */
const STATUS: Readonly<Record<string, ContentfulStatusCode>> = {
  invalid_request: 400,
  insufficient_scope: 403,
  not_found: 404,
  unknown_approval: 404,
  unknown_tool_use: 404,
  message_too_large: 413,
  schema_too_large: 413,
  agent_mismatch: 409,
  agent_missing: 409,
  approval_already_answered: 409,
  approval_expired: 409,
  approval_mismatch: 409,
  approval_required: 409,
  approval_signature_mismatch: 409,
  idempotency_conflict: 409,
  late_result: 409,
  no_active_turn: 409,
  not_client_tool: 409,
  not_compacted: 409,
  nothing_to_retry: 409,
  turn_in_progress: 409,
  run_queue_full: 429,
  session_unreadable: 500,
  database_unavailable: 503,
};

/** The HTTP status of an ErrorInfo's code. */
export function statusOf(code: string): ContentfulStatusCode {
  return STATUS[code] ?? 409;
}

/**
 * Retry-After (seconds) of a code that asks the caller to come back later. A full run queue drains as the session's
 * turns end, which no one can time; a minute is what the rate limiter's binding asks too. D1 out of reach
 * (d1/unavailable.ts) is asked again after 5 s, as the directory's caches ask it again (directory.ts).
 */
const RETRY_AFTER_S: Readonly<Record<string, number>> = { run_queue_full: 60, database_unavailable: 5 };

/** An ErrorInfo (a failed Result from below) as the ApiError that renders it. */
export function apiError(info: ErrorInfo): ApiError {
  const wait = RETRY_AFTER_S[info.code];
  return new ApiError(
    statusOf(info.code),
    info.code,
    info.message,
    wait === undefined ? {} : { "retry-after": String(wait) },
  );
}
