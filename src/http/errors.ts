import type { ContentfulStatusCode } from "hono/utils/http-status";

/** The one error type routes throw; `app.onError` renders it as the contract's JSON. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export interface ErrorBody {
  error: { code: string; message: string };
}

export function errorBody(code: string, message: string): ErrorBody {
  return { error: { code, message } };
}

/** Failure half of the result unions the session DO returns over RPC. */
export interface Failure {
  ok: false;
  status: ContentfulStatusCode;
  code: string;
  message: string;
}

export function fail(status: ContentfulStatusCode, code: string, message: string): Failure {
  return { ok: false, status, code, message };
}

export function toApiError(f: Failure): ApiError {
  return new ApiError(f.status, f.code, f.message);
}
