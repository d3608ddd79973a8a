/**
 * The one error shape (ErrorInfo) and the one result union (Result) of the
 * service. Code below the HTTP layer returns or stores ErrorInfo; the HTTP
 * layer alone maps a code to a status (src/http/errors.ts). A result union
 * branches on `ok`.
 */

/** What went wrong: a stable machine-readable `code`, a message for people, and whether retrying may help. */
export interface ErrorInfo {
  code: string;
  message: string;
  retryable?: boolean;
}

/** The failure half of a Result. */
export interface Failure {
  ok: false;
  error: ErrorInfo;
}

/** Success with its fields, or a Failure; branch on `ok`. */
export type Result<T extends object = object> = ({ ok: true } & T) | Failure;

/** A Failure with `code` and `message`. */
export function failure(code: string, message: string): Failure {
  return { ok: false, error: { code, message } };
}
