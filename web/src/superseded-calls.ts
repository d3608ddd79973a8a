// `useSupersededCalls`: the calls shown open when a message is sent from this page. The server closes them as it
// takes the message (their results are stored with it, "no result was provided before the next user message", open
// approvals declined), and no stream tells it: so once it is taken they show as the history has them.
import { type Dispatch, type SetStateAction, useCallback, useRef, useState } from "react";
import type { Connection } from "./connection";
import { closedCalls } from "./open-calls";
import { readPatiently } from "./read-patiently";
import { loadHistory } from "./session-reads";
import type { ToolBlock } from "./transcript";

/** The calls superseded, as the server closed them, and what marks and closes them. */
export interface SupersededCalls {
  /** By id, as the history has them (withClosedCalls shows them in place). */
  closings: ReadonlyMap<string, ToolBlock>;
  /** The newest send supersedes the calls of `ids` (none for approval answers). */
  supersede: (ids: string[]) => void;
  /** The server took the newest send: its superseded calls are read as it closed them. */
  taken: () => void;
}

/** The superseded calls of the chat of `conn`; a read that finally fails goes to `setProblem`. */
export function useSupersededCalls(
  conn: Connection,
  setProblem: Dispatch<SetStateAction<string | null>>,
): SupersededCalls {
  const [closings, setClosings] = useState<ReadonlyMap<string, ToolBlock>>(new Map());
  const superseded = useRef<string[]>([]);
  const supersede = useCallback((ids: string[]) => {
    superseded.current = ids;
  }, []);
  const taken = () => {
    const ids = superseded.current;
    superseded.current = [];
    if (ids.length === 0) return;
    // Made again quietly while it fails for a while (readPatiently); only a final failure is an alert.
    readPatiently(() => loadHistory(conn, true)).then(
      (h) => setClosings((c) => new Map([...c, ...closedCalls(h.entries, ids)])),
      (e: Error) => setProblem(e.message),
    );
  };
  return { closings, supersede, taken };
}
