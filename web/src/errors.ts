// Turns the API's JSON errors ({"error": {"code", "message"}}) and network failures into sentences a
// person understands. `friendlyFetch` is the fetch the chat transport uses, so useChat's `error` reads well.

/** An API failure: the HTTP status, the contract's error code and a sentence for people. */
export class ApiFailure extends Error {
  readonly status: number;
  readonly code: string;
  /** The response's Retry-After, in whole seconds; null when it had none. */
  readonly retryAfterS: number | null;

  constructor(status: number, code: string, message: string, retryAfterS: number | null = null) {
    super(message);
    this.name = "ApiFailure";
    this.status = status;
    this.code = code;
    this.retryAfterS = retryAfterS;
  }
}

/**
 * The sentence shown for an error response (status, code, the API's message, Retry-After in seconds). `reading`:
 * the request only read (a GET): its rate limit is not about messages sent.
 */
export function describeFailure(
  status: number,
  code: string,
  message: string,
  retryAfterS: number | null,
  reading = false,
): string {
  switch (code) {
    case "token_expired":
      return "Your session link has expired. Ask for a new one.";
    case "unauthorized":
      return "This link is not valid (or the key that issued it was revoked). Ask for a new one.";
    case "insufficient_scope":
    case "forbidden":
      return "This link does not allow that. Ask for a link with the right permissions.";
    case "rate_limited": {
      const wait = retryAfterS ?? 60;
      return `${reading ? "Too many requests" : "Too many messages at once"}. Try again in ${wait} second${wait === 1 ? "" : "s"}.`;
    }
    case "turn_in_progress":
      return "The assistant is still answering. Wait for it to finish, or stop it.";
    case "not_found":
      return "This conversation does not exist (it may have been deleted).";
    default:
      if (status >= 500) return "The server had a problem. Try again in a moment.";
      return message || `The request failed (${status}).`;
  }
}

async function failureOf(res: Response, reading: boolean): Promise<ApiFailure> {
  let code = "http_error";
  let message = "";
  try {
    const body = (await res.json()) as { error?: { code?: string; message?: string } };
    code = body.error?.code ?? code;
    message = body.error?.message ?? "";
  } catch {
    // Not JSON: keep the generic sentence.
  }
  const retryAfter = Number(res.headers.get("retry-after"));
  const retryAfterS = Number.isFinite(retryAfter) && retryAfter > 0 ? Math.ceil(retryAfter) : null;
  return new ApiFailure(
    res.status,
    code,
    describeFailure(res.status, code, message, retryAfterS, reading),
    retryAfterS,
  );
}

/** fetch that throws an ApiFailure with a readable message for any non-2xx response or network error. */
export async function friendlyFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(input, init);
  } catch (e) {
    if ((e as Error).name === "AbortError") throw e;
    throw new ApiFailure(0, "network_error", "Cannot reach the server. Check your connection and try again.");
  }
  if (!res.ok) throw await failureOf(res, (init?.method ?? "GET") === "GET");
  return res;
}

/**
 * Whether a failed read (the session's state or a history page) is worth trying again, and after how many
 * seconds: an unreachable server, a server error or a rate limit (its Retry-After, else at once); null when
 * trying again cannot help (an expired or refused link, a deleted session, a bad request).
 */
export function readRetryAfterS(e: unknown): number | null {
  // Anything else broke while the answer was read (a dropped connection): worth another try too.
  if (!(e instanceof ApiFailure)) return 0;
  if (e.status !== 0 && e.status !== 429 && e.status < 500) return null;
  return e.retryAfterS ?? 0;
}

/**
 * The first wait before a read the page makes by itself (following a paused turn, the history after a message was
 * taken) is made again, and the longest: each wait is twice the one before.
 */
export const READ_FIRST_WAIT_MS = 1000;
export const READ_MAX_WAIT_MS = 30_000;
