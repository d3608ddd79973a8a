// `readPatiently`: a read the page makes by itself (the history after a message was taken), made again quietly
// after a failure that trying again can help, as the follow of a paused turn does; only a final failure reaches the
// page. Tested in plain vitest (test/unit/web/read-patiently.test.ts).
import { READ_FIRST_WAIT_MS, READ_MAX_WAIT_MS, readRetryAfterS } from "./errors";

/** Resolves after `ms`, and then once the tab is visible (a hidden tab reads nothing). */
function laterWhileVisible(ms: number): Promise<void> {
  return new Promise((resolve) => {
    setTimeout(() => {
      if (document.visibilityState === "visible") return resolve();
      const onVisible = () => {
        if (document.visibilityState !== "visible") return;
        document.removeEventListener("visibilitychange", onVisible);
        resolve();
      };
      document.addEventListener("visibilitychange", onVisible);
    }, ms);
  });
}

/**
 * Runs `read` until it succeeds, and resolves with what it read. A failure that trying again can help (unreachable,
 * a server error, rate-limited: readRetryAfterS) is not reported: `read` runs again after a second, then after each
 * wait twice as long (at most 30 s), a rate limit's Retry-After at least, one read at a time and only while the tab
 * is visible. Rejects with the first failure that trying again cannot help (an expired link, a deleted session).
 * `wait` is how it waits (tests pass their own).
 */
export async function readPatiently<T>(
  read: () => Promise<T>,
  wait: (ms: number) => Promise<void> = laterWhileVisible,
): Promise<T> {
  let waitMs = READ_FIRST_WAIT_MS;
  for (;;) {
    try {
      return await read();
    } catch (e) {
      const retryAfterS = readRetryAfterS(e);
      if (retryAfterS === null) throw e;
      await wait(Math.max(waitMs, retryAfterS * 1000));
      waitMs = Math.min(waitMs * 2, READ_MAX_WAIT_MS);
    }
  }
}
