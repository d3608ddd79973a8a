// Reconnecting to a running turn whose stream the page lost: one that dropped mid-answer (the body broke off), or
// one whose resumption (GET …/stream) failed in a way trying again can help (unreachable, a server error,
// rate-limited). The page reads the session again and resumes the turn after a wait, a few times in a row at most,
// then asks for a reload: `afterLostStream` decides (tested in plain vitest, test/unit/web/reconnect.test.ts),
// `useReconnect` waits and rejoins.
import { useCallback, useEffect, useRef, useState } from "react";
import { type ApiFailure, readRetryAfterS } from "./errors";

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

/** The chat's reconnecting: what a lost stream does, and what starts the count of lost streams over. */
export interface Reconnect {
  /**
   * A stream lost: one the server took whose body broke off (useChat's `isDisconnect`, where friendlyFetch does not
   * reach; no `failure`), or a running turn's resumption that failed. Rejoins after a wait, or says why not;
   * whether it will.
   */
  lost: (failure?: ApiFailure) => boolean;
  /** A stream ended normally: the streams lost in a row are counted from 0 again. */
  ended: () => void;
  /** The person sent or answered: counted from 0 again, and no rejoin waits any more. */
  reset: () => void;
  /** Whether a rejoin waits. */
  waiting: boolean;
}

/**
 * Rejoins (`rejoin`: reads the session again as a reload does) the turns whose stream the page lost, after a wait,
 * saying so with `setProblem`; `afterLostStream` bounds the tries in a row. useChat itself resumes only when a
 * hidden page becomes visible again.
 */
export function useReconnect(rejoin: () => Promise<boolean>, setProblem: (problem: string) => void): Reconnect {
  // The streams lost in a row.
  const lostStreams = useRef(0);
  const [reconnect, setReconnect] = useState<{ waitMs: number } | null>(null);
  const lost = useCallback(
    (failure?: ApiFailure): boolean => {
      const next = afterLostStream(lostStreams.current + 1, failure);
      if (next === null) return false;
      lostStreams.current++;
      setProblem(next.notice);
      if (next.waitMs !== null) setReconnect({ waitMs: next.waitMs });
      return next.waitMs !== null;
    },
    [setProblem],
  );
  // A lost stream rejoins once its wait is over: the stored history and the turn resumed.
  useEffect(() => {
    if (reconnect === null) return;
    const timer = setTimeout(() => {
      setReconnect(null);
      void rejoin();
    }, reconnect.waitMs);
    return () => clearTimeout(timer);
  }, [reconnect, rejoin]);
  const ended = () => {
    lostStreams.current = 0;
  };
  const reset = () => {
    lostStreams.current = 0;
    setReconnect(null);
  };
  return { lost, ended, reset, waiting: reconnect !== null };
}
