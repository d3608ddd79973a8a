// `useAwaitedTurn`: the turn a read of the session found running, which useChat's resumption (GET …/stream) should
// bring. A resumed stream shows the turn itself; one that brings none (the turn paused or ended before the
// resumption asked for it, or the resumption failed) leaves the turn's stored messages unread, so they are read now.
import { type Dispatch, type SetStateAction, useEffect } from "react";
import type { ResumeAnswer } from "./chat-transport";
import type { Connection } from "./connection";
import type { ApiFailure } from "./errors";
import { loadHistory, type SessionHistory } from "./session-reads";

/** The awaited turn and how its resumption was answered, and what the check reads and sets of the chat. */
export interface AwaitedTurnOptions {
  conn: Connection;
  /** The turn the read found running (null: none awaited). */
  awaited: string | null;
  setAwaited: Dispatch<SetStateAction<string | null>>;
  /** How useChat's resumption was answered (null: not yet). */
  resumeAnswer: ResumeAnswer | null;
  /** Rejoins after a lost stream, or says why not; whether it will (useReconnect). */
  lost: (failure?: ApiFailure) => boolean;
  /** Shows a read's stored entries, its head and its outcome lines. */
  showStored: (h: SessionHistory) => void;
  setRereading: Dispatch<SetStateAction<boolean>>;
  setProblem: Dispatch<SetStateAction<string | null>>;
}

/**
 * Once the resumption of an awaited turn is answered: a resumed stream (200) shows the turn itself, and
 * withoutLiveTurns keeps a later history read from showing it twice. One that brought no stream (204) or failed
 * has its stored messages read now; one that failed in a way trying again can help (a server error, unreachable)
 * is rejoined instead, as a dropped stream is, until the turn streams or has ended (`lost` bounds the tries).
 */
export function useAwaitedTurn(options: AwaitedTurnOptions): void {
  const { conn, awaited, setAwaited, resumeAnswer, lost, showStored, setRereading, setProblem } = options;
  useEffect(() => {
    if (awaited === null || resumeAnswer === null) return;
    setAwaited(null);
    const { status, failure } = resumeAnswer;
    if (status !== 204 && status >= 200 && status < 300) return;
    if (failure && lost(failure)) return;
    setRereading(true);
    loadHistory(conn, true)
      .then(showStored, (e: Error) => setProblem(e.message))
      .finally(() => setRereading(false));
  }, [awaited, resumeAnswer, conn, lost, showStored, setAwaited, setRereading, setProblem]);
}
