// `useHistoryRead`: the session's history read when the chat opens, and read again when the person asks (Retry). A
// read that failed leaves the conversation unloaded (not shown empty, and no send: the session's history is
// unknown), and says whether Retry can help and after how long.
import { useEffect, useRef, useState } from "react";
import type { Connection } from "./connection";
import { readRetryAfterS } from "./errors";
import { loadHistory, type SessionHistory } from "./session-reads";

/** How the first read went, and how the person reads again. */
export interface HistoryRead {
  /** Why the last try failed: `retryAfterS` is null when trying again cannot help. Null while reading and once read. */
  failed: { retryAfterS: number | null } | null;
  /** How many times the person asked to read again (each try has its own Retry button). */
  tries: number;
  /** Reads again (the Retry button). */
  retry: () => void;
}

/**
 * Reads the session of `conn` and hands the read to `read`; a failed read's sentence goes to `setProblem`, which a
 * read that succeeds (and a new try) clears.
 */
export function useHistoryRead(
  conn: Connection,
  read: (h: SessionHistory) => void,
  setProblem: (problem: string | null) => void,
): HistoryRead {
  const [tries, setTries] = useState(0);
  const [failed, setFailed] = useState<{ retryAfterS: number | null } | null>(null);
  const onRead = useRef(read);
  onRead.current = read;
  // biome-ignore lint/correctness/useExhaustiveDependencies: `tries` is what Retry changes, to read again
  useEffect(() => {
    loadHistory(conn).then(
      (h) => {
        setProblem(null);
        setFailed(null);
        onRead.current(h);
      },
      (e: Error) => {
        setFailed({ retryAfterS: readRetryAfterS(e) });
        setProblem(e.message);
      },
    );
  }, [conn, setProblem, tries]);
  const retry = () => {
    setFailed(null);
    setProblem(null);
    setTries((n) => n + 1);
  };
  return { failed, tries, retry };
}
