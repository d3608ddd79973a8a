// The chat app: one Switchboard session driven by the AI SDK's useChat over POST /v1/sessions/{id}/chat,
// authorised by a session token. Earlier turns come from the stored history; a turn still streaming after a
// reload is resumed by useChat's own `resume: true` (GET {chat endpoint}/{chatId}/stream). A tool call that
// needs a person's approval shows Approve / Deny, answered the AI SDK way: `addToolApprovalResponse`, sent by
// useChat itself once every approval of the step is answered (chat-request.ts `approvalSender`). A paused turn
// it shows is followed by reading the session's state again (useFollowPause), so one moved on elsewhere shows. A
// lost stream is rejoined (reconnect.ts), and turns run in another tab are caught up with (catch-up.ts).
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport } from "ai";
import { type FormEvent, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { type CarriedAnswer, carriedAnswers } from "./carried-answers";
import { useCatchUp } from "./catch-up";
import { approvalSender, newestMessageOnly } from "./chat-request";
import { type Connection, readConnection, sessionPath } from "./connection";
import { type Answer, EntryView } from "./entry-view";
import { ApiFailure, friendlyFetch, readRetryAfterS } from "./errors";
import { followLinks } from "./follow-links";
import { useFollowPause } from "./follow-pause";
import { fromUiMessages } from "./from-live";
import { withoutLiveTurns } from "./live-turns";
import { reopenApprovals, takeOpenApprovals } from "./open-approvals";
import { answerableAt, closedCalls, openCalls, withClosedCalls } from "./open-calls";
import { readPatiently } from "./read-patiently";
import { afterLostStream } from "./reconnect";
import { RetryRead } from "./retry-read";
import { authHeaders, loadHistory } from "./session-reads";
import type { Entry, ToolBlock } from "./transcript";
import { outcomeNotice, type TurnOutcome, withOutcomes } from "./turn-outcomes";
import { useTypedReasons } from "./typed-reasons";

/**
 * Refusals of an answer that mean what it answered is no longer open: another answer got there first (this tab,
 * another, the API), or the approval expired (declined by its agent's approval_ttl_s).
 */
const NO_LONGER_OPEN = new Set(["approval_already_answered", "approval_expired", "late_result"]);

function Chat({ conn }: { conn: Connection }) {
  const base = sessionPath(conn);
  // How useChat's resumption (GET …/stream) was answered: 204 = no turn streaming any more; the failure and its
  // status (0: unreachable) when it failed.
  const [resumeAnswer, setResumeAnswer] = useState<{ status: number; failure?: ApiFailure } | null>(null);
  // Whether the server took the newest send (its POST answered 2xx): useChat's status cannot tell, since it stays
  // "submitted" until the first visible chunk.
  const taken = useRef(false);
  // Called when a resumption finds no stream (204) or fails (set once `rejoin` exists, below).
  const noStream = useRef(() => {});
  // Called when the server took a message sent (set below, where the calls it supersedes are known).
  const sendTaken = useRef(() => {});
  const transport = useMemo(() => {
    const watched: typeof fetch = async (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      const method = init?.method ?? "GET";
      const resuming = method === "GET" && url.endsWith("/stream");
      let res: Response;
      try {
        res = await friendlyFetch(input, init);
      } catch (e) {
        if (resuming && e instanceof ApiFailure) {
          setResumeAnswer({ status: e.status, failure: e });
          noStream.current();
        }
        throw e;
      }
      if (resuming) setResumeAnswer({ status: res.status });
      if (resuming && res.status === 204) noStream.current();
      if (method === "POST" && url.endsWith("/chat") && res.ok) {
        taken.current = true;
        sendTaken.current();
      }
      return res;
    };
    return new DefaultChatTransport({
      api: `${base}/chat`,
      headers: authHeaders(conn),
      fetch: watched,
      prepareSendMessagesRequest: newestMessageOnly,
    });
  }, [base, conn]);
  // Each turn's outcome line when it did not simply answer (by turn id), and the provider-retry line while
  // the model provider is being retried. Both arrive as transient data parts, which useChat hands to onData only.
  const [outcomes, setOutcomes] = useState<ReadonlyMap<string, string>>(new Map());
  const noteOutcome = useCallback(
    (turnId: string, text: string) => setOutcomes((m) => new Map(m).set(turnId, text)),
    [],
  );
  const [retrying, setRetrying] = useState<string | null>(null);
  // How many parts the newest message had when the retry line appeared: it goes once the answer moves on.
  const partsAtRetry = useRef(0);
  const partsNow = useRef(0);
  const turnFailed = useRef(false);
  // A stream that dropped after the server took its request (useChat's `isDisconnect`: the body broke off, where
  // friendlyFetch does not reach), or a running turn's resumption that failed, is rejoined after a wait (lostStream,
  // below); `lostStreams` counts them in a row (reconnect.ts bounds it), back to 0 once a stream ends normally or
  // the person sends. useChat itself resumes only when a hidden page becomes visible again.
  const lostStreams = useRef(0);
  // Sends the approval answers this page gave, each once (chat-request.ts says why); a failed request lets its
  // answers go again.
  const approvals = useMemo(() => approvalSender(), []);
  const [reconnect, setReconnect] = useState<{ waitMs: number } | null>(null);
  const { messages, sendMessage, setMessages, status, error, clearError, addToolApprovalResponse, resumeStream } =
    useChat({
      id: conn.session,
      transport,
      resume: true,
      sendAutomaticallyWhen: approvals.shouldSend,
      onFinish: ({ isDisconnect, isError, isAbort }) => {
        if (isError) approvals.forget();
        if (isDisconnect) lostStream();
        else if (!isError && !isAbort) lostStreams.current = 0;
      },
      onData: (part) => {
        if (part.type === "data-provider-retry") {
          const attempt = (part.data as { attempt?: number } | null)?.attempt;
          partsAtRetry.current = partsNow.current;
          setRetrying(`The model provider is busy; retrying${attempt ? ` (attempt ${attempt})` : ""}…`);
        } else if (part.type === "data-turn") {
          const turn = part.data as { turn_id: string } & TurnOutcome;
          const text = outcomeNotice(turn);
          if (text) noteOutcome(turn.turn_id, text);
          // The error chunk that follows is this turn's failure, said under the turn: not an alert, not an unsent message.
          if (turn.status === "failed") turnFailed.current = true;
        }
      },
    });
  const [earlier, setEarlier] = useState<Entry[] | null>(null);
  // The seq of the newest stored message the page read with the whole history, or a catch-up check found nothing
  // missed up to (catch-up.ts reads past it).
  const head = useRef(0);
  const [problem, setProblem] = useState<string | null>(null);
  // Rejoins after a wait (the `reconnect` effect, below), or says why not; resolves whether it will (reconnect.ts).
  const lostStream = useCallback((failure?: ApiFailure): boolean => {
    const next = afterLostStream(lostStreams.current + 1, failure);
    if (next === null) return false;
    lostStreams.current++;
    setProblem(next.notice);
    if (next.waitMs !== null) setReconnect({ waitMs: next.waitMs });
    return next.waitMs !== null;
  }, []);
  const [draft, setDraft] = useState("");
  // The turn the state read found running: useChat's resumed stream should bring it (checked below).
  const [awaited, setAwaited] = useState<string | null>(null);
  // Turns whose stored entries a live message continues (an approval answered from the stored history).
  const [seeded, setSeeded] = useState<ReadonlySet<string>>(new Set());
  // Calls a message sent from this page superseded, by id, as the server closed them (closedCalls).
  const [closings, setClosings] = useState<ReadonlyMap<string, ToolBlock>>(new Map());

  // A first read that failed leaves the conversation unloaded (not shown empty, and no send: the session's
  // history is unknown); `readFailed` says whether Retry can help and after how long. `reads` counts the tries.
  const [reads, setReads] = useState(0);
  const [readFailed, setReadFailed] = useState<{ retryAfterS: number | null } | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `reads` is what Retry changes, to read again
  useEffect(() => {
    loadHistory(conn).then(
      (h) => {
        setProblem(null);
        setReadFailed(null);
        setEarlier(h.entries);
        head.current = h.head;
        setAwaited(h.liveTurn);
        for (const o of h.outcomes) noteOutcome(o.turnId, o.text);
      },
      (e: Error) => {
        setReadFailed({ retryAfterS: readRetryAfterS(e) });
        setProblem(e.message);
      },
    );
  }, [conn, noteOutcome, reads]);
  const retryRead = () => {
    setReadFailed(null);
    setProblem(null);
    setReads((n) => n + 1);
  };

  const busy = status === "submitted" || status === "streaming";
  const live = fromUiMessages(messages);
  partsNow.current = messages.at(-1)?.parts.length ?? 0;
  // The retry line goes once the answer moves on (a new part after the retry), not at the end of the whole turn.
  useEffect(() => {
    if (retrying !== null && (messages.at(-1)?.parts.length ?? 0) > partsAtRetry.current) setRetrying(null);
  }, [messages, retrying]);

  // While the stored history is read again (below): sending waits, or the history would hold the message too.
  const [rereading, setRereading] = useState(false);
  // What the newest send is: a message's text (`sending`), or approval answers (`answering`).
  const sending = useRef<string | null>(null);
  const answering = useRef(false);
  // The approvals this page answered since its last send: the only ones a failed answer reopens (an approval
  // approved elsewhere, seeded answered from the pause, stays answered), and the ones a rejoin carries (below).
  const answeredHere = useRef(new Set<string>());
  // The calls shown open when a message is sent (sendTaken, below).
  const superseded = useRef<string[]>([]);
  // Hands one answer to useChat as this page's own: useChat sends it with the step's others once all are given.
  const giveAnswer = useCallback(
    (a: CarriedAnswer) => {
      sending.current = null;
      answering.current = true;
      superseded.current = [];
      answeredHere.current.add(a.id);
      approvals.gave(a.id);
      taken.current = false;
      Promise.resolve(addToolApprovalResponse(a)).catch((err: Error) => setProblem(err.message));
    },
    [addToolApprovalResponse, approvals],
  );
  const liveNow = useRef(messages);
  liveNow.current = messages;
  // The page is out of date (an approval it showed was answered elsewhere, a send found a turn running, or a
  // broken stream's turn ended unseen): read
  // the session again as a reload does, the stored history in place of the live messages and the running turn
  // resumed (its answer checked below). The refusal that sent it here is no longer news once the session is read
  // again: its alert goes (useChat's resumption would clear it only when a turn is still running). A rejoin the
  // page asks for by itself (`followed`: following a paused turn, catching up) resolves no refusal: it clears only
  // the alert of a rejoin that failed before, not an unrelated one (a failed Stop, a failed read). The answers this
  // page gave and has not sent (useChat sends a step's answers together) are carried: those to approvals still
  // waiting are given again, the way an approval of the stored history is answered (answerStored), and sent once
  // the step's are all given; one to an approval no longer waiting goes, the server's outcome shows. Resolves
  // whether the session was read: one asked for by a refusal or a lost stream reads patiently (readPatiently), the
  // follow has its own waits.
  const rejoinFailure = useRef<string | null>(null);
  const rejoin = useCallback(
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
            const carried = carriedAnswers(liveNow.current, answeredHere.current, seed);
            answeredHere.current = new Set();
            const seeding = seed !== null && carried.length > 0;
            setMessages(seeding ? [seed] : []);
            setSeeded(seeding && turnId ? new Set([turnId]) : new Set());
            setEarlier(seeding ? rest : h.entries);
            head.current = h.head;
            for (const o of h.outcomes) noteOutcome(o.turnId, o.text);
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
    [conn, noteOutcome, setMessages, resumeStream, clearError, giveAnswer],
  );

  // A resumption useChat starts by itself (the page visible again after its stream broke mid-answer) that finds
  // no stream leaves the broken answer as it was: the turn ended meanwhile, so rejoin to show how it went. Any
  // other resumption (the page's first, rejoin's) starts with no live messages; its answer is checked below.
  noStream.current = () => {
    if (liveNow.current.at(-1)?.role === "assistant") void rejoin();
  };

  // A dropped stream (onFinish above) rejoins once its wait is over: the stored history and the turn resumed.
  useEffect(() => {
    if (reconnect === null) return;
    const timer = setTimeout(() => {
      setReconnect(null);
      void rejoin();
    }, reconnect.waitMs);
    return () => clearTimeout(timer);
  }, [reconnect, rejoin]);

  // A send the server never took (refused, rate-limited or unreachable before its answer began): useChat keeps
  // the message it added, which would show as sent although nothing stored it. It leaves the transcript and its
  // text goes back to the draft. An approval answer it never took leaves the approval open: its buttons come
  // back (useChat shows it answered). One refused because the approval was answered elsewhere (or the call has
  // its result already) means the page is out of date: it rejoins the session. So does a send refused because a
  // turn is running (another tab or the API started it or answered its approval): its text still goes back to
  // the draft, and the running turn is resumed and shown, with its Stop button.
  // A turn that failed (its `data-turn` part said so) is said under the turn, which outlasts the alert;
  // `attributed` is its error, not shown again as an alert.
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
    if (status !== "submitted" && status !== "streaming") setRetrying(null);
    // Only leaving "submitted" ends a send: send() clears an earlier error first, and useChat's "ready" from that
    // renders before its "submitted" (sendMessage awaits first), so this must not forget the text on the way in.
    if (lastStatus.current === "submitted" && status !== "submitted") {
      sending.current = null;
      answering.current = false;
      answeredHere.current = new Set();
    }
    lastStatus.current = status;
  }, [status, setMessages, error, rejoin]);

  // A turn the state read found running but that paused or ended before useChat's resumption asked for it
  // comes back as no stream (204), and a resumption that failed brings none either: its stored messages were left
  // out, so read them now. One that failed in a way trying again can help (a server error, unreachable) is
  // rejoined instead, as a dropped stream is, until the turn streams or has ended (lostStream bounds the tries).
  // A resumed stream (200) shows the turn itself; withoutLiveTurns keeps a later history read from showing it twice.
  useEffect(() => {
    if (awaited === null || resumeAnswer === null) return;
    setAwaited(null);
    const { status, failure } = resumeAnswer;
    if (status !== 204 && status >= 200 && status < 300) return;
    if (failure && lostStream(failure)) return;
    setRereading(true);
    loadHistory(conn, true)
      .then(
        (h) => {
          setEarlier(h.entries);
          head.current = h.head;
          for (const o of h.outcomes) noteOutcome(o.turnId, o.text);
        },
        (e: Error) => setProblem(e.message),
      )
      .finally(() => setRereading(false));
  }, [awaited, resumeAnswer, conn, noteOutcome, lostStream]);

  // The stored entries (less the turns useChat streams live), then the live ones; each turn's outcome line after it;
  // the calls a message sent from here superseded as the server closed them.
  const shownEntries = withClosedCalls(
    withOutcomes(withoutLiveTurns(earlier ?? [], messages, seeded), live, outcomes),
    closings,
  );
  const open = openCalls(shownEntries);
  const followed = useCallback(() => rejoin(true), [rejoin]);
  const followFailed = useCallback((e: Error) => setProblem(e.message), []);
  const settled = earlier !== null && !busy && !rereading && awaited === null && reconnect === null;
  useFollowPause(conn, open, settled, followed, followFailed);
  // Turns another tab ran meanwhile show once a message is taken or the tab is visible again.
  const catchUp = useCatchUp(conn, messages, settled, followed, head);

  // The calls shown open when a message is sent: the server closes them as it takes it (their results are stored
  // with the message, "no result was provided before the next user message", open approvals declined), and no
  // stream tells it, so once it is taken they show as the history has them.
  sendTaken.current = () => {
    catchUp.taken();
    const ids = superseded.current;
    superseded.current = [];
    if (ids.length === 0) return;
    // Made again quietly while it fails for a while (readPatiently); only a final failure is an alert.
    readPatiently(() => loadHistory(conn, true)).then(
      (h) => setClosings((c) => new Map([...c, ...closedCalls(h.entries, ids)])),
      (e: Error) => setProblem(e.message),
    );
  };

  const send = (e: FormEvent) => {
    e.preventDefault();
    const text = draft.trim();
    // Not before the stored history is shown (or while it is read again): it would hold this message too.
    if (!text || busy || earlier === null || rereading) return;
    clearError();
    setProblem(null);
    setDraft("");
    lostStreams.current = 0;
    setReconnect(null);
    sending.current = text;
    answering.current = false;
    taken.current = false;
    superseded.current = [...open.keys()];
    sendMessage({ text }).catch((err: Error) => setProblem(err.message));
  };

  const answer: Answer = (id, approved, reason) => {
    clearError();
    setProblem(null);
    lostStreams.current = 0;
    setReconnect(null);
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
      {earlier === null && readFailed === null ? <p className="loading">Loading the conversation…</p> : null}
      {earlier === null && readFailed ? (
        <p className="loading">
          The conversation could not be read.{" "}
          {readFailed.retryAfterS === null ? null : (
            <RetryRead key={reads} afterS={readFailed.retryAfterS} retry={retryRead} />
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
      {retrying && busy ? (
        <p className="notice" role="status">
          {retrying}
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
