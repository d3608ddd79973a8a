// `useCatchUp`: a page open beside another tab (or an app, the API) shows the turns run there only once it reads
// the session again, and an idle page reads nothing by itself. So after the server took a message sent from here,
// and when the tab becomes visible again, the page (once settled: no answer streaming, nothing being read) reads
// the stored messages after the newest one it has read or checked (its head), and rejoins the session when they
// hold one it has not seen (missedTurn); when they hold none its head moves past them (checkAfter), so the next
// check reads only what was stored since. `missedTurn` and `checkAfter` are tested in plain vitest
// (test/unit/web/catch-up.test.ts).

import type { UIMessage } from "ai";
import { useCallback, useEffect, useRef, useState } from "react";
import type { Connection } from "./connection";
import { turnMessageId } from "./live-turns";
import { type MessagePage, messagesAfter } from "./session-reads";

/**
 * The seq of the first message of `page` (stored messages after the page's head) the page has not seen, or null
 * when there is none. It has seen those of the turns it streams (`live`: useChat's messages, a turn's
 * `msg_<turn id>`), and no other: one of a turn shown from the history it read is newer than that read (the turn
 * moved on, or was read half-written). Messages of no turn are left out.
 */
export function missedTurn(page: MessagePage, live: readonly Pick<UIMessage, "id">[]): number | null {
  for (const m of page.messages) {
    const turnId = m.turn_id;
    if (turnId !== null && !live.some((l) => l.id === turnMessageId(turnId))) return m.seq;
  }
  return null;
}

/**
 * Checks the stored messages after `head` (the seq of the newest one the page has read or checked) page by page
 * (`read`: messagesAfter), and resolves to the seq of the first one the page has not seen (missedTurn, with `live`
 * as it is when each page comes), or null when there is none. A page that holds none moves `head` to its last
 * message, so the next check starts after it; a full page (`next`) with none is followed by the next page, as it
 * holds only what the page streamed itself (and messages of no turn), not a turn it missed. A read of the whole
 * history that moved `head` meanwhile ends the check there: it decides the head.
 */
export async function checkAfter(
  read: (after: number) => Promise<MessagePage>,
  head: { current: number },
  live: () => readonly Pick<UIMessage, "id">[],
): Promise<number | null> {
  for (;;) {
    const from = head.current;
    const page = await read(from);
    const missed = missedTurn(page, live());
    if (missed !== null) return missed;
    const last = page.messages.at(-1)?.seq;
    if (head.current !== from || last === undefined) return null;
    head.current = last;
    if (page.next === null) return null;
  }
}

/**
 * Catches the page up with turns run elsewhere. `live`: useChat's messages; `settled`: whether it may read the
 * session again now; `rejoin` reads it again as a reload does; `head`: the seq of the newest stored message the
 * page read with its whole history, moved on by each check that found nothing missed (checkAfter). `taken` is
 * called for each message the server took from the page.
 */
export function useCatchUp(
  conn: Connection,
  live: readonly UIMessage[],
  settled: boolean,
  rejoin: () => Promise<unknown>,
  head: { current: number },
): { taken: () => void } {
  const liveNow = useRef(live);
  liveNow.current = live;
  // Whether a check is owed (made once the page is settled), and the first message of a turn a check found missed
  // (rejoined once the page is settled again, unless a read of the whole history reached it meanwhile).
  const [due, setDue] = useState(false);
  const [missedAt, setMissedAt] = useState<number | null>(null);
  useEffect(() => {
    const onVisible = () => {
      if (document.visibilityState === "visible") setDue(true);
    };
    document.addEventListener("visibilitychange", onVisible);
    return () => document.removeEventListener("visibilitychange", onVisible);
  }, []);
  useEffect(() => {
    if (!due || !settled) return;
    setDue(false);
    checkAfter(
      (after) => messagesAfter(conn, after),
      head,
      () => liveNow.current,
    ).then(
      (at) => {
        if (at !== null) setMissedAt(at);
      },
      // A check that failed keeps the head its pages moved: the next message taken or the tab visible again checks
      // again from there.
      () => {},
    );
  }, [due, settled, conn, head]);
  useEffect(() => {
    if (missedAt === null || !settled) return;
    setMissedAt(null);
    if (head.current < missedAt) void rejoin();
  }, [missedAt, settled, rejoin, head]);
  const taken = useCallback(() => setDue(true), []);
  return { taken };
}
