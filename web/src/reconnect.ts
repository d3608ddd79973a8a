// Reconnecting to a running turn whose stream the page lost: one that dropped mid-answer (the body broke off), or
// one whose resumption (GET …/stream) failed in a way trying again can help (unreachable, a server error,
// rate-limited). The page reads the session again and resumes the turn after a wait, a few times in a row at most,
// then asks for a reload. Tested in plain vitest (test/unit/web/reconnect.test.ts).
import { readRetryAfterS } from "./errors";

/** What the page says while it rejoins a turn whose stream it lost, and once it stops trying. */
export const RECONNECTING = "The connection dropped; reconnecting…";
export const RECONNECT_GAVE_UP = "The connection dropped again. Reload the page to see the rest of the answer.";

/** Rejoins in a row after lost streams before the page stops trying by itself. */
const MAX_RECONNECTS = 3;

/**
 * How long to wait before rejoining a turn whose stream was lost (`lost`: how many in a row, this one included),
 * or null: stop trying. A session object drops its oldest stream when a ninth opens (or one that fell too far
 * behind), so tabs that all rejoined by themselves would drop one another for ever: a few tries, each later than
 * the one before, let the answer through or stop.
 */
export function reconnectDelayMs(lost: number): number | null {
  return lost >= 1 && lost <= MAX_RECONNECTS ? 1000 * lost : null;
}

/**
 * What the page does about the `lost`th stream lost in a row: `failure` is why its resumption failed (none: the
 * stream broke off mid-answer). It rejoins after `waitMs` (a rate limit's Retry-After at least), saying `notice`
 * meanwhile, or stops trying (`waitMs` null) and asks for a reload; null: trying again cannot help (an expired link,
 * a deleted session), and the failure itself says why.
 */
export function afterLostStream(lost: number, failure?: unknown): { waitMs: number | null; notice: string } | null {
  const retryAfterS = readRetryAfterS(failure);
  if (retryAfterS === null) return null;
  const waitMs = reconnectDelayMs(lost);
  if (waitMs === null) return { waitMs: null, notice: RECONNECT_GAVE_UP };
  return { waitMs: Math.max(waitMs, retryAfterS * 1000), notice: RECONNECTING };
}
