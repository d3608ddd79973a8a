// `useProviderRetry`: the line the chat shows while the model provider is being retried, told by the stream's
// transient `data-provider-retry` part (which useChat hands to onData only). It goes once the answer moves on (a new
// part after the retry), not at the end of the whole turn, and once the answer is not streaming any more.
import type { ChatStatus, UIMessage } from "ai";
import { useCallback, useEffect, useRef, useState } from "react";

/** The retry line (null: none), and how a `data-provider-retry` part's data sets it. */
export interface ProviderRetry {
  line: string | null;
  retrying: (data: unknown) => void;
}

/** The retry line of the chat whose useChat `messages` and `status` these are. */
export function useProviderRetry(messages: UIMessage[], status: ChatStatus): ProviderRetry {
  const [line, setLine] = useState<string | null>(null);
  // How many parts the newest message had when the retry line appeared: it goes once the answer moves on.
  const partsAtRetry = useRef(0);
  const partsNow = useRef(0);
  partsNow.current = messages.at(-1)?.parts.length ?? 0;
  useEffect(() => {
    if (line !== null && (messages.at(-1)?.parts.length ?? 0) > partsAtRetry.current) setLine(null);
  }, [messages, line]);
  useEffect(() => {
    if (status !== "submitted" && status !== "streaming") setLine(null);
  }, [status]);
  const retrying = useCallback((data: unknown) => {
    const attempt = (data as { attempt?: number } | null)?.attempt;
    partsAtRetry.current = partsNow.current;
    setLine(`The model provider is busy; retrying${attempt ? ` (attempt ${attempt})` : ""}…`);
  }, []);
  return { line, retrying };
}
