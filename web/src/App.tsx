// The chat app: one Switchboard session driven by the AI SDK's useChat over POST /v1/sessions/{id}/chat,
// authorised by a session token (chatTransport). This file is the view, and wires the hooks, each one idea in a
// file of its own. Earlier turns come from the stored history (useHistoryRead); a turn still streaming
// after a reload is resumed by useChat's own `resume: true` (GET {chat endpoint}/{chatId}/stream, useAwaitedTurn). A
// tool call that needs a person's approval shows Approve / Deny, answered the AI SDK way: `addToolApprovalResponse`,
// sent by useChat itself once every approval of the step is answered (chat-request.ts `approvalSender`). A paused
// turn it shows is followed by reading the session's state again (useFollowPause), so one moved on elsewhere shows
// (useRejoin). A lost stream is rejoined (useReconnect), and turns run in another tab are caught up with
// (useCatchUp); a send that failed goes back (useSendFailure).
import { useChat } from "@ai-sdk/react";
import { type FormEvent, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useAwaitedTurn } from "./awaited-turn";
import type { CarriedAnswer } from "./carried-answers";
import { useCatchUp } from "./catch-up";
import { approvalSender } from "./chat-request";
import { chatTransport, type ResumeAnswer } from "./chat-transport";
import { type Connection, readConnection, sessionPath } from "./connection";
import { type Answer, EntryView } from "./entry-view";
import { friendlyFetch } from "./errors";
import { followLinks } from "./follow-links";
import { useFollowPause } from "./follow-pause";
import { fromUiMessages } from "./from-live";
import { useHistoryRead } from "./history-read";
import { withoutLiveTurns } from "./live-turns";
import { takeOpenApprovals } from "./open-approvals";
import { answerableAt, openCalls, withClosedCalls } from "./open-calls";
import { useProviderRetry } from "./provider-retry";
import { useReconnect } from "./reconnect";
import { useRejoin } from "./rejoin";
import { RetryRead } from "./retry-read";
import { useSendFailure } from "./send-failure";
import { authHeaders, type SessionHistory } from "./session-reads";
import { useSupersededCalls } from "./superseded-calls";
import type { Entry } from "./transcript";
import { outcomeNotice, type TurnOutcome, withOutcomes } from "./turn-outcomes";
import { useTypedReasons } from "./typed-reasons";

function Chat({ conn }: { conn: Connection }) {
  const base = sessionPath(conn);
  const [problem, setProblem] = useState<string | null>(null);
  // How useChat's resumption (GET …/stream) was answered, and the turn a read of the session found running, which
  // that resumption should bring (useAwaitedTurn checks its answer).
  const [resumeAnswer, setResumeAnswer] = useState<ResumeAnswer | null>(null);
  const [awaited, setAwaited] = useState<string | null>(null);
  // Whether the server took the newest send (chatTransport's `taken`).
  const taken = useRef(false);
  // Called when a resumption finds no stream (204) or fails (set once `rejoin` exists, below).
  const noStream = useRef(() => {});
  // Called when the server took a message sent (set below, where the calls it supersedes are known).
  const sendTaken = useRef(() => {});
  const transport = useMemo(
    () =>
      chatTransport(conn, {
        resumed: (answer) => {
          setResumeAnswer(answer);
          if (answer.failure || answer.status === 204) noStream.current();
        },
        taken: () => {
          taken.current = true;
          sendTaken.current();
        },
      }),
    [conn],
  );
  // Each turn's outcome line when it did not simply answer (by turn id): told by the stream's transient `data-turn`
  // part, which useChat hands to onData only, and by each read of the session.
  const [outcomes, setOutcomes] = useState<ReadonlyMap<string, string>>(new Map());
  const noteOutcome = useCallback(
    (turnId: string, text: string) => setOutcomes((m) => new Map(m).set(turnId, text)),
    [],
  );
  // Whether the turn streaming said it failed: the error that follows is said under the turn (useSendFailure).
  const turnFailed = useRef(false);
  // Sends the approval answers this page gave, each once (chat-request.ts says why); a failed request lets its
  // answers go again.
  const approvals = useMemo(() => approvalSender(), []);
  const { messages, sendMessage, setMessages, status, error, clearError, addToolApprovalResponse, resumeStream } =
    useChat({
      id: conn.session,
      transport,
      resume: true,
      sendAutomaticallyWhen: approvals.shouldSend,
      // A stream that dropped after the server took its request (`isDisconnect`: the body broke off, where
      // friendlyFetch does not reach) is rejoined after a wait (useReconnect); one that ends normally starts the
      // count of lost streams over.
      onFinish: ({ isDisconnect, isError, isAbort }) => {
        if (isError) approvals.forget();
        if (isDisconnect) reconnect.lost();
        else if (!isError && !isAbort) reconnect.ended();
      },
      onData: (part) => {
        if (part.type === "data-provider-retry") {
          providerRetry.retrying(part.data);
        } else if (part.type === "data-turn") {
          const turn = part.data as { turn_id: string } & TurnOutcome;
          const text = outcomeNotice(turn);
          if (text) noteOutcome(turn.turn_id, text);
          // The error chunk that follows is this turn's failure, said under the turn: not an alert, not an unsent message.
          if (turn.status === "failed") turnFailed.current = true;
        }
      },
    });
  // The stored entries the page shows (null until the session is read); the seq of the newest stored message the
  // page read with the whole history, or a catch-up check found nothing missed up to (catch-up.ts reads past it);
  // the turns whose stored entries a live message continues (an approval answered from the stored history).
  const [earlier, setEarlier] = useState<Entry[] | null>(null);
  const head = useRef(0);
  const [seeded, setSeeded] = useState<ReadonlySet<string>>(new Set());
  // A read of the session shown: its stored entries (`stored`: less what moved to useChat), head and outcome lines.
  const showStored = useCallback(
    (h: SessionHistory, stored: Entry[] = h.entries) => {
      setEarlier(stored);
      head.current = h.head;
      for (const o of h.outcomes) noteOutcome(o.turnId, o.text);
    },
    [noteOutcome],
  );
  const [draft, setDraft] = useState("");
  const firstRead = useHistoryRead(
    conn,
    (h) => {
      showStored(h);
      setAwaited(h.liveTurn);
    },
    setProblem,
  );

  const busy = status === "submitted" || status === "streaming";
  const live = fromUiMessages(messages);
  const providerRetry = useProviderRetry(messages, status);

  // While the stored history is read again (useRejoin, useAwaitedTurn): sending waits, or the history would hold the
  // message too.
  const [rereading, setRereading] = useState(false);
  // What the newest send is: a message's text (`sending`), or approval answers (`answering`).
  const sending = useRef<string | null>(null);
  const answering = useRef(false);
  // The approvals this page answered since its last send: the only ones a failed answer reopens (an approval
  // approved elsewhere, seeded answered from the pause, stays answered), and the ones a rejoin carries.
  const answeredHere = useRef(new Set<string>());
  const superseded = useSupersededCalls(conn, setProblem);
  const { supersede } = superseded;
  // Hands one answer to useChat as this page's own: useChat sends it with the step's others once all are given.
  const giveAnswer = useCallback(
    (a: CarriedAnswer) => {
      sending.current = null;
      answering.current = true;
      supersede([]);
      answeredHere.current.add(a.id);
      approvals.gave(a.id);
      taken.current = false;
      Promise.resolve(addToolApprovalResponse(a)).catch((err: Error) => setProblem(err.message));
    },
    [addToolApprovalResponse, approvals, supersede],
  );
  const liveNow = useRef(messages);
  liveNow.current = messages;
  const rejoin = useRejoin({
    conn,
    live: liveNow,
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
  });

  // A resumption useChat starts by itself (the page visible again after its stream broke mid-answer) that finds
  // no stream leaves the broken answer as it was: the turn ended meanwhile, so rejoin to show how it went. Any
  // other resumption (the page's first, rejoin's) starts with no live messages; useAwaitedTurn checks its answer.
  noStream.current = () => {
    if (liveNow.current.at(-1)?.role === "assistant") void rejoin();
  };

  const reconnect = useReconnect(rejoin, setProblem);
  const attributed = useSendFailure({
    status,
    error,
    sending,
    answering,
    taken,
    answeredHere,
    turnFailed,
    setMessages,
    setDraft,
    rejoin,
  });
  useAwaitedTurn({
    conn,
    awaited,
    setAwaited,
    resumeAnswer,
    lost: reconnect.lost,
    showStored,
    setRereading,
    setProblem,
  });

  // The stored entries (less the turns useChat streams live), then the live ones; each turn's outcome line after it;
  // the calls a message sent from here superseded as the server closed them.
  const shownEntries = withClosedCalls(
    withOutcomes(withoutLiveTurns(earlier ?? [], messages, seeded), live, outcomes),
    superseded.closings,
  );
  const open = openCalls(shownEntries);
  const followed = useCallback(() => rejoin(true), [rejoin]);
  const followFailed = useCallback((e: Error) => setProblem(e.message), []);
  const settled = earlier !== null && !busy && !rereading && awaited === null && !reconnect.waiting;
  useFollowPause(conn, open, settled, followed, followFailed);
  // Turns another tab ran meanwhile show once a message is taken or the tab is visible again.
  const catchUp = useCatchUp(conn, messages, settled, followed, head);

  sendTaken.current = () => {
    catchUp.taken();
    superseded.taken();
  };

  const send = (e: FormEvent) => {
    e.preventDefault();
    const text = draft.trim();
    // Not before the stored history is shown (or while it is read again): it would hold this message too.
    if (!text || busy || earlier === null || rereading) return;
    clearError();
    setProblem(null);
    setDraft("");
    reconnect.reset();
    sending.current = text;
    answering.current = false;
    taken.current = false;
    supersede([...open.keys()]);
    sendMessage({ text }).catch((err: Error) => setProblem(err.message));
  };

  const answer: Answer = (id, approved, reason) => {
    clearError();
    setProblem(null);
    reconnect.reset();
    giveAnswer({ id, approved, ...(reason ? { reason } : {}) });
  };

  // An approval still open from before this page was loaded is not in useChat's messages yet: its calls move
  // there (takeOpenApprovals) and it is answered like a live one, so the resumed turn streams in.
  const answerStored: Answer = (id, approved, reason) => {
    const { earlier: rest, seed, turnId } = takeOpenApprovals(earlier ?? []);
    if (!seed) return;
    if (turnId) setSeeded((s) => new Set(s).add(turnId));
    setEarlier(rest);
    setMessages([seed]);
    answer(id, approved, reason);
  };

  const stop = () => {
    friendlyFetch(`${base}/cancel`, { method: "POST", headers: authHeaders(conn) }).catch((err: Error) =>
      setProblem(err.message),
    );
  };

  const shown = problem ?? (error && error !== attributed ? error.message : null);
  const liveIds = new Set(live.map((e) => e.id));
  const askAt = answerableAt(shownEntries);
  const reasons = useTypedReasons();
  return (
    <main>
      <header>
        <h1>Switchboard</h1>
        <span className="session">
          session <code>{conn.session}</code>
        </span>
        <span className={`status ${status}`} data-status={status}>
          {busy ? "answering…" : "ready"}
        </span>
      </header>
      {earlier === null && firstRead.failed === null ? <p className="loading">Loading the conversation…</p> : null}
      {earlier === null && firstRead.failed ? (
        <p className="loading">
          The conversation could not be read.{" "}
          {firstRead.failed.retryAfterS === null ? null : (
            <RetryRead key={firstRead.tries} afterS={firstRead.failed.retryAfterS} retry={firstRead.retry} />
          )}
        </p>
      ) : null}
      <ol className="transcript">
        {shownEntries.map((e, i) => (
          <EntryView
            key={e.id}
            entry={e}
            answer={i === askAt ? (liveIds.has(e.id) ? answer : answerStored) : undefined}
            waiting={busy}
            reasons={reasons}
          />
        ))}
      </ol>
      {providerRetry.line && busy ? (
        <p className="notice" role="status">
          {providerRetry.line}
        </p>
      ) : null}
      {shown ? (
        <p className="error" role="alert">
          {shown}
        </p>
      ) : null}
      <form onSubmit={send}>
        <input
          aria-label="Message"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          placeholder="Ask something…"
          autoComplete="off"
        />
        {busy ? (
          <button type="button" onClick={stop}>
            Stop
          </button>
        ) : (
          <button type="submit" disabled={!draft.trim() || earlier === null || rereading}>
            Send
          </button>
        )}
      </form>
    </main>
  );
}

function Connect() {
  const [session, setSession] = useState("");
  const [token, setToken] = useState("");
  // The link this makes is opened as any other opened in this tab (followLinks, in App).
  const go = (e: FormEvent) => {
    e.preventDefault();
    location.hash = new URLSearchParams({ session, token }).toString();
  };
  return (
    <main>
      <h1>Switchboard</h1>
      <p>
        Open a session link (locally, the one <code>npm start</code> prints), or enter a session id and a session token
        (minted with <code>POST /v1/sessions/&#123;id&#125;/tokens</code>; never paste an API key into a browser).
      </p>
      <form className="connect" onSubmit={go}>
        <input
          aria-label="Session id"
          value={session}
          onChange={(e) => setSession(e.target.value)}
          placeholder="session id"
        />
        <input
          aria-label="Session token"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          placeholder="session token"
        />
        <button type="submit" disabled={!session || !token}>
          Open
        </button>
      </form>
    </main>
  );
}

export function App() {
  const [conn] = useState(() => readConnection(location, sessionStorage, history));
  useEffect(() => followLinks(window), []);
  return conn ? <Chat conn={conn} /> : <Connect />;
}
