// `useFollowPause`: while the page shows a paused turn, it reads the session's state again (backing off, one read
// at a time, only while the tab is visible), so a turn moved on elsewhere (an app, another tab, the API) shows.
import { useEffect, useRef } from "react";
import { type Connection, sessionPath } from "./connection";
import { friendlyFetch, READ_FIRST_WAIT_MS, READ_MAX_WAIT_MS, readRetryAfterS } from "./errors";
import type { PausedStep } from "./from-history";
import { pauseMovedOn } from "./open-calls";
import { authHeaders } from "./session-reads";
import type { ToolBlock } from "./transcript";

/**
 * Follows the paused turn the page shows while `active`: `open` is how it shows the turn's open calls (openCalls).
 * An app, another tab or the API may answer them, and the turn then moves on where this page cannot see it (a
 * paused turn has no stream to keep open: GET …/stream ends at the pause, and answers 204 until the turn runs
 * again). So the session's state is read after a second, then after each wait twice as long (at most 30 s), one
 * read at a time and only while the tab is visible (a tab visible again reads at once); `movedOn` runs once the
 * state no longer holds those calls open as the page shows them (pauseMovedOn); it resolves whether the page
 * caught up. A read that trying again cannot help (an expired link, a deleted session: readRetryAfterS) stops the
 * following and goes to `failed`, to be shown; a rate-limited one waits at least its Retry-After.
 */
export function useFollowPause(
  conn: Connection,
  open: ReadonlyMap<string, ToolBlock["state"]>,
  active: boolean,
  movedOn: () => Promise<boolean>,
  failed: (e: Error) => void,
): void {
  const shown = useRef(open);
  shown.current = open;
  const onMoved = useRef(movedOn);
  onMoved.current = movedOn;
  const onFailed = useRef(failed);
  onFailed.current = failed;
  // The wait, kept across the effect's runs: catching up (movedOn) makes the effect stop and run again with the
  // same open calls when it failed (its history read refused), and starting over at a second would read twice a
  // second for ever. It starts over only when the open calls shown change or the page caught up.
  const backoff = useRef({ key: "", waitMs: READ_FIRST_WAIT_MS });
  // A new read schedule only when what is shown open changes, not on every render.
  const key = active ? [...open].map(([id, state]) => `${id}:${state}`).join(" ") : "";
  useEffect(() => {
    if (key === "") return;
    const stop = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (backoff.current.key !== key) backoff.current = { key, waitMs: READ_FIRST_WAIT_MS };
    const wait = backoff.current;
    let reading = false;
    const later = (atLeastMs = 0) => {
      timer = setTimeout(read, Math.max(wait.waitMs, atLeastMs));
      wait.waitMs = Math.min(wait.waitMs * 2, READ_MAX_WAIT_MS);
    };
    const read = () => {
      timer = undefined;
      if (reading || document.visibilityState !== "visible") return;
      reading = true;
      friendlyFetch(sessionPath(conn), { headers: authHeaders(conn), signal: stop.signal })
        .then((res) => res.json() as Promise<{ pause?: PausedStep | null }>)
        .then(
          (state) => {
            if (stop.signal.aborted) return;
            if (!pauseMovedOn(shown.current, state.pause ?? null)) return later();
            // rejoin() settles with whether it read the session; it never rejects.
            void onMoved.current().then((caughtUp) => {
              if (caughtUp) wait.waitMs = READ_FIRST_WAIT_MS;
            });
          },
          // A read that failed (unreachable, a server error, rate-limited) is tried again after the next, longer
          // wait (a rate limit's Retry-After at least); one refused for good is shown, and not tried again.
          (e: Error) => {
            if (stop.signal.aborted) return;
            const retryAfterS = readRetryAfterS(e);
            if (retryAfterS === null) onFailed.current(e);
            else later(retryAfterS * 1000);
          },
        )
        .finally(() => {
          reading = false;
        });
    };
    const onVisibility = () => {
      clearTimeout(timer);
      timer = undefined;
      if (document.visibilityState !== "visible") return;
      wait.waitMs = READ_FIRST_WAIT_MS;
      read();
    };
    document.addEventListener("visibilitychange", onVisibility);
    later();
    return () => {
      stop.abort();
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [key, conn]);
}
