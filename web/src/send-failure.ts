// `useSendFailure`: what the page makes of useChat's error at the end of a send. A send the server never took
// (refused, rate-limited or unreachable before its answer began) goes back: a message's text to the draft, approval
// answers to their buttons, or, when the page is out of date, a rejoin. A turn that failed is said under the turn,
// which outlasts an alert: its error is not shown again as one.
import type { UseChatHelpers } from "@ai-sdk/react";
import type { ChatStatus, UIMessage } from "ai";
import { type Dispatch, type SetStateAction, useEffect, useRef, useState } from "react";
import { ApiFailure } from "./errors";
import { reopenApprovals } from "./open-approvals";

/**
 * Refusals of an answer that mean what it answered is no longer open: another answer got there first (this tab,
 * another, the API), or the approval expired (declined by its agent's approval_ttl_s).
 */
const NO_LONGER_OPEN = new Set(["approval_already_answered", "approval_expired", "late_result"]);

/** The newest send as the page marked it, useChat's status and error, and what a send that failed sets. */
export interface SendFailureOptions {
  status: ChatStatus;
  error: Error | undefined;
  /** The newest send's text (null: it was not a message). */
  sending: { current: string | null };
  /** Whether the newest send is approval answers. */
  answering: { current: boolean };
  /** Whether the server took the newest send (chatTransport's `taken`). */
  taken: { readonly current: boolean };
  /** The approvals this page answered since its last send: the only ones a failed answer reopens. */
  answeredHere: { current: Set<string> };
  /** Whether the turn streaming said it failed (its `data-turn` part): the error that follows is the turn's. */
  turnFailed: { current: boolean };
  setMessages: UseChatHelpers<UIMessage>["setMessages"];
  setDraft: Dispatch<SetStateAction<string>>;
  /** Reads the session again as a reload does (useRejoin). */
  rejoin: () => Promise<boolean>;
}

/**
 * Watches useChat's status for the end of each send, and returns the error a failed turn's line says
 * (`attributed`), not to be shown again as an alert. A send the server never took leaves the message useChat
 * added, which would show as sent although nothing stored it: it leaves the transcript and its text goes back to
 * the draft. An approval answer it never took leaves the approval open: its buttons come back (useChat shows it
 * answered). One refused because the approval was answered elsewhere (or the call has its result already) means
 * the page is out of date: it rejoins the session. So does a send refused because a turn is running (another tab or
 * the API started it or answered its approval): its text still goes back to the draft, and the running turn is
 * resumed and shown, with its Stop button.
 */
export function useSendFailure(options: SendFailureOptions): Error | null {
  const { status, error, sending, answering, taken, answeredHere, turnFailed, setMessages, setDraft, rejoin } = options;
  const lastStatus = useRef(status);
  const [attributed, setAttributed] = useState<Error | null>(null);
  useEffect(() => {
    const text = sending.current;
    const untaken = lastStatus.current === "submitted" && status === "error" && !taken.current;
    if (status === "error" && turnFailed.current) {
      turnFailed.current = false;
      setAttributed(error ?? null);
    } else if (untaken && text !== null) {
      setMessages((ms) => (ms[ms.length - 1]?.role === "user" ? ms.slice(0, -1) : ms));
      setDraft((d) => d || text);
      if (error instanceof ApiFailure && error.code === "turn_in_progress") void rejoin();
    } else if (untaken && answering.current) {
      if (error instanceof ApiFailure && NO_LONGER_OPEN.has(error.code)) void rejoin();
      else setMessages((ms) => reopenApprovals(ms, answeredHere.current));
    }
    // Only leaving "submitted" ends a send: send() clears an earlier error first, and useChat's "ready" from that
    // renders before its "submitted" (sendMessage awaits first), so this must not forget the text on the way in.
    if (lastStatus.current === "submitted" && status !== "submitted") {
      sending.current = null;
      answering.current = false;
      answeredHere.current = new Set();
    }
    lastStatus.current = status;
  }, [status, error, sending, answering, taken, answeredHere, turnFailed, setMessages, setDraft, rejoin]);
  return attributed;
}
