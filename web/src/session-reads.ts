// The session's reads the app makes with its token: `loadHistory` (the state, then every stored message page by
// page, with the compactions and ended turns each page lists), `messagesAfter` (one such page) and `authHeaders`.
import { type Connection, sessionPath } from "./connection";
import { friendlyFetch } from "./errors";
import { type CompactionMarker, fromHistory, type PausedStep, type StoredMessage } from "./from-history";
import type { Entry } from "./transcript";
import { outcomeNotices, type TurnOutcome } from "./turn-outcomes";

export function authHeaders(conn: Connection): Record<string, string> {
  return { authorization: `Bearer ${conn.token}` };
}

/** A page of GET …/messages: `next` is null once no newer message is stored. */
export interface MessagePage {
  messages: StoredMessage[];
  next: number | null;
  compactions?: CompactionMarker[];
  turns?: Array<{ id: string } & TurnOutcome>;
}

/** The stored messages after seq `after`, one page (it also ends at the server's byte budget). */
export async function messagesAfter(conn: Connection, after: number): Promise<MessagePage> {
  const res = await friendlyFetch(`${sessionPath(conn)}/messages?after=${after}&limit=500`, {
    headers: authHeaders(conn),
  });
  return (await res.json()) as MessagePage;
}

/** A read of the whole session (loadHistory). */
export interface SessionHistory {
  entries: Entry[];
  liveTurn: string | null;
  outcomes: Array<{ turnId: string; text: string }>;
  head: number;
}

/**
 * Every stored message of the session, page by page, with the compactions each page lists; the turn still
 * streaming when the state was read (its model messages are left out: the resumed stream shows them, unless
 * `keepLive`), the outcome line of the last turn when it did not simply answer (stopped, failed, cut off), and
 * `head`, the seq of the newest message read (0 when none).
 */
export async function loadHistory(conn: Connection, keepLive = false): Promise<SessionHistory> {
  const base = sessionPath(conn);
  const state = (await (await friendlyFetch(base, { headers: authHeaders(conn) })).json()) as {
    last_turn: ({ id: string } & TurnOutcome) | null;
    pause?: PausedStep | null;
  };
  const liveTurn = state.last_turn?.status === "running" ? state.last_turn.id : null;
  const messages: StoredMessage[] = [];
  const compactions: CompactionMarker[] = [];
  // Every ended turn the pages list, then the newest (which may have written no message, so no page lists it).
  const turns: Array<{ id: string } & TurnOutcome> = [];
  let after = 0;
  for (;;) {
    const page = await messagesAfter(conn, after);
    messages.push(...page.messages);
    compactions.push(...(page.compactions ?? []));
    turns.push(...(page.turns ?? []));
    if (page.next === null || page.messages.length === 0) break;
    after = page.next;
  }
  return {
    entries: fromHistory(messages, keepLive ? null : liveTurn, state.pause ?? null, compactions),
    liveTurn,
    outcomes: outcomeNotices(state.last_turn ? [...turns, state.last_turn] : turns),
    head: messages.at(-1)?.seq ?? 0,
  };
}
