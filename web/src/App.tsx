// The chat app: one Switchboard session driven by the AI SDK's useChat over POST /v1/sessions/{id}/chat,
// authorised by a session token. Earlier turns come from the stored history; a turn still streaming after a
// reload is resumed by useChat's own `resume: true` (GET {chat endpoint}/{chatId}/stream).
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport } from "ai";
import { type FormEvent, useEffect, useMemo, useState } from "react";
import { type Connection, readConnection, sessionPath } from "./connection";
import { friendlyFetch } from "./errors";
import { type Block, type Entry, fromHistory, fromUiMessages, type StoredMessage } from "./transcript";

function authHeaders(conn: Connection): Record<string, string> {
  return { authorization: `Bearer ${conn.token}` };
}

/** Every stored message of the session, page by page, and the turn still streaming (if any). */
async function loadHistory(conn: Connection): Promise<Entry[]> {
  const base = sessionPath(conn);
  const state = (await (await friendlyFetch(base, { headers: authHeaders(conn) })).json()) as {
    last_turn: { id: string; status: string } | null;
  };
  const liveTurn = state.last_turn?.status === "running" ? state.last_turn.id : null;
  const messages: StoredMessage[] = [];
  let after = 0;
  for (;;) {
    const res = await friendlyFetch(`${base}/messages?after=${after}&limit=500`, { headers: authHeaders(conn) });
    const page = (await res.json()) as { messages: StoredMessage[]; next: number | null };
    messages.push(...page.messages);
    if (page.next === null || page.messages.length === 0) break;
    after = page.next;
  }
  return fromHistory(messages, liveTurn);
}

function BlockView({ block }: { block: Block }) {
  if (block.kind === "text") return <p className="text">{block.text}</p>;
  if (block.kind === "notice") return <p className="notice">{block.text}</p>;
  return (
    <details className={`tool ${block.state}`} data-tool={block.name} data-state={block.state} open>
      <summary>
        {block.state === "running" ? "⏳" : block.state === "done" ? "✓" : "✗"} {block.name}
      </summary>
      <pre className="input" title="input">
        {JSON.stringify(block.input, null, 2)}
      </pre>
      {block.output ? (
        <pre className="output" title="result">
          {block.output}
        </pre>
      ) : null}
    </details>
  );
}

function EntryView({ entry }: { entry: Entry }) {
  return (
    <li className={`entry ${entry.role}`} data-role={entry.role}>
      {entry.blocks.map((b, i) => (
        <BlockView key={b.kind === "tool" ? b.id : `${b.kind}${i}`} block={b} />
      ))}
    </li>
  );
}

function Chat({ conn }: { conn: Connection }) {
  const base = sessionPath(conn);
  const transport = useMemo(
    () => new DefaultChatTransport({ api: `${base}/chat`, headers: authHeaders(conn), fetch: friendlyFetch }),
    [base, conn],
  );
  const { messages, sendMessage, status, error, clearError } = useChat({ id: conn.session, transport, resume: true });
  const [earlier, setEarlier] = useState<Entry[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [draft, setDraft] = useState("");

  useEffect(() => {
    loadHistory(conn).then(setEarlier, (e: Error) => {
      setEarlier([]);
      setProblem(e.message);
    });
  }, [conn]);

  const busy = status === "submitted" || status === "streaming";
  const live = fromUiMessages(messages);

  const send = (e: FormEvent) => {
    e.preventDefault();
    const text = draft.trim();
    // Not before the stored history is shown: it would already hold this new message (shown twice).
    if (!text || busy || earlier === null) return;
    clearError();
    setProblem(null);
    setDraft("");
    sendMessage({ text }).catch((err: Error) => setProblem(err.message));
  };

  const stop = () => {
    friendlyFetch(`${base}/cancel`, { method: "POST", headers: authHeaders(conn) }).catch((err: Error) =>
      setProblem(err.message),
    );
  };

  const shown = problem ?? error?.message ?? null;
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
      {earlier === null ? <p className="loading">Loading the conversation…</p> : null}
      <ol className="transcript">
        {(earlier ?? []).map((e) => (
          <EntryView key={e.id} entry={e} />
        ))}
        {live.map((e) => (
          <EntryView key={e.id} entry={e} />
        ))}
      </ol>
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
          <button type="submit" disabled={!draft.trim() || earlier === null}>
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
  const go = (e: FormEvent) => {
    e.preventDefault();
    location.hash = new URLSearchParams({ session, token }).toString();
    location.reload();
  };
  return (
    <main>
      <h1>Switchboard</h1>
      <p>
        Open the link <code>npm start</code> prints, or enter a session id and a session token (minted with{" "}
        <code>POST /v1/sessions/&#123;id&#125;/tokens</code>; never paste an API key into a browser).
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
  const [conn] = useState(() => readConnection(location.hash, sessionStorage));
  return conn ? <Chat conn={conn} /> : <Connect />;
}
