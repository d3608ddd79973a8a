// `useRejoin`: the page, out of date (an approval it showed was answered elsewhere, a send found a turn running, a
// broken stream's turn ended unseen, a lost stream, a paused turn moved on, a turn run in another tab), reads the
// session again as a reload does: the stored history in place of the live messages, the running turn resumed, and
// the approval answers it gave and has not sent carried across.
import type { UseChatHelpers } from "@ai-sdk/react";
import type { UIMessage } from "ai";
import { type Dispatch, type SetStateAction, useCallback, useRef } from "react";
import { type CarriedAnswer, carriedAnswers } from "./carried-answers";
import type { ResumeAnswer } from "./chat-transport";
import type { Connection } from "./connection";
import { takeOpenApprovals } from "./open-approvals";
import { readPatiently } from "./read-patiently";
import { loadHistory, type SessionHistory } from "./session-reads";
import type { Entry } from "./transcript";

/** What a rejoin reads and sets of the chat; every function is one that keeps its identity across renders. */
export interface RejoinOptions {
  conn: Connection;
  /** useChat's messages as they are now. */
  live: { readonly current: UIMessage[] };
  setMessages: UseChatHelpers<UIMessage>["setMessages"];
  resumeStream: UseChatHelpers<UIMessage>["resumeStream"];
  clearError: UseChatHelpers<UIMessage>["clearError"];
  /** The approvals this page answered since its last send: a rejoin carries their unsent answers, then forgets them. */
  answeredHere: { current: Set<string> };
  /** Gives one answer to useChat as this page's own. */
  giveAnswer: (a: CarriedAnswer) => void;
  /** Shows a read's stored entries (`stored`: less what moved to useChat), its head and its outcome lines. */
  showStored: (h: SessionHistory, stored: Entry[]) => void;
  /** The turns whose stored entries a live message continues. */
  setSeeded: Dispatch<SetStateAction<ReadonlySet<string>>>;
  /** The turn the read found running, which useChat's resumed stream should bring. */
  setAwaited: Dispatch<SetStateAction<string | null>>;
  /** Whether the stored history is being read again (sending waits meanwhile). */
  setRereading: Dispatch<SetStateAction<boolean>>;
  setResumeAnswer: Dispatch<SetStateAction<ResumeAnswer | null>>;
  setProblem: Dispatch<SetStateAction<string | null>>;
}

/**
 * Reads the session again as a reload does: the stored history in place of the live messages and the running turn
 * resumed (its answer checked by useAwaitedTurn). The refusal that sent it here is no longer news once the session
 * is read again: its alert goes (useChat's resumption would clear it only when a turn is still running). A rejoin
 * the page asks for by itself (`followed`: following a paused turn, catching up) resolves no refusal: it clears
 * only the alert of a rejoin that failed before, not an unrelated one (a failed Stop, a failed read). The answers
 * this page gave and has not sent (useChat sends a step's answers together) are carried: those to approvals still
 * waiting are given again, the way an approval of the stored history is answered (answerStored), and sent once the
 * step's are all given; one to an approval no longer waiting goes, the server's outcome shows. Resolves whether the
 * session was read: one asked for by a refusal or a lost stream reads patiently (readPatiently), the follow has its
 * own waits.
 */
export function useRejoin(options: RejoinOptions): (followed?: boolean) => Promise<boolean> {
  const { conn, live, setMessages, resumeStream, clearError, answeredHere, giveAnswer, showStored } = options;
  const { setSeeded, setAwaited, setRereading, setResumeAnswer, setProblem } = options;
  const rejoinFailure = useRef<string | null>(null);
  return useCallback(
    (followed = false): Promise<boolean> => {
      setRereading(true);
      setResumeAnswer(null);
      return (followed ? loadHistory(conn) : readPatiently(() => loadHistory(conn)))
        .then(
          (h) => {
            if (followed) setProblem((p) => (p === rejoinFailure.current ? null : p));
            else {
              clearError();
              setProblem(null);
            }
            rejoinFailure.current = null;
            const { earlier: rest, seed, turnId } = takeOpenApprovals(h.entries);
            const carried = carriedAnswers(live.current, answeredHere.current, seed);
            answeredHere.current = new Set();
            const seeding = seed !== null && carried.length > 0;
            setMessages(seeding ? [seed] : []);
            setSeeded(seeding && turnId ? new Set([turnId]) : new Set());
            showStored(h, seeding ? rest : h.entries);
            setAwaited(h.liveTurn);
            if (h.liveTurn) resumeStream().catch((e: Error) => setProblem(e.message));
            for (const a of carried) giveAnswer(a);
            return true;
          },
          (e: Error) => {
            rejoinFailure.current = e.message;
            setProblem(e.message);
            return false;
          },
        )
        .finally(() => setRereading(false));
    },
    [
      conn,
      live,
      setMessages,
      resumeStream,
      clearError,
      answeredHere,
      giveAnswer,
      showStored,
      setSeeded,
      setAwaited,
      setRereading,
      setResumeAnswer,
      setProblem,
    ],
  );
}
