// `useFollowPause`: while the page shows a paused turn, it reads the session's state again (backing off, one read
// at a time, only while the tab is visible), so a turn moved on elsewhere (an app, another tab, the API) shows.
import { useEffect, useRef } from "react";
import { type Connection, sessionPath } from "./connection";
import { friendlyFetch } from "./errors";
import { authHeaders } from "./session-reads";
import { type PausedStep, pauseMovedOn, type ToolBlock } from "./transcript";

/** The first wait before a paused turn's state is read again, and the longest (each wait doubles). */
const FOLLOW_FIRST_MS = 1000;
const FOLLOW_MAX_MS = 30_000;

/**
 * Follows the paused turn the page shows while `active`: `open` is how it shows the turn's open calls (openCalls).
 * An app, another tab or the API may answer them, and the turn then moves on where this page cannot see it (a
 * paused turn has no stream to keep open: GET …/stream ends at the pause, and answers 204 until the turn runs
 * again). So the session's state is read after a second, then after each wait twice as long (at most 30 s), one
 * read at a time and only while the tab is visible (a tab visible again reads at once); `movedOn` runs once the
 * state no longer holds those calls open as the page shows them (pauseMovedOn).
 */
export function useFollowPause(
  conn: Connection,
  open: ReadonlyMap<string, ToolBlock["state"]>,
  active: boolean,
  movedOn: () => void,
): void {
  const shown = useRef(open);
  shown.current = open;
  const onMoved = useRef(movedOn);
  onMoved.current = movedOn;
  // A new read schedule only when what is shown open changes, not on every render.
  const key = active ? [...open].map(([id, state]) => `${id}:${state}`).join(" ") : "";
  useEffect(() => {
    if (key === "") return;
    const stop = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let waitMs = FOLLOW_FIRST_MS;
    let reading = false;
    const later = () => {
      timer = setTimeout(read, waitMs);
      waitMs = Math.min(waitMs * 2, FOLLOW_MAX_MS);
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
            if (pauseMovedOn(shown.current, state.pause ?? null)) onMoved.current();
            else later();
          },
          // A read that failed (unreachable, rate-limited) is tried again after the next, longer wait.
          () => {
            if (!stop.signal.aborted) later();
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
      waitMs = FOLLOW_FIRST_MS;
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
