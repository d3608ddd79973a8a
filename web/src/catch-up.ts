// `useCatchUp`: a page open beside another tab (or an app, the API) shows the turns run there only once it reads
// the session again, and an idle page reads nothing by itself. So after the server took a message sent from here,
// and when the tab becomes visible again, the page (once settled: no answer streaming, nothing being read) reads
// the stored messages after the newest one it has read (its head), and rejoins the session when they hold one it
// has not seen (missedTurn). `missedTurn` is tested in plain vitest (test/unit/web/catch-up.test.ts).

import type { UIMessage } from "ai";
import { useCallback, useEffect, useRef, useState } from "react";
import type { Connection } from "./connection";
import { type MessagePage, messagesAfter } from "./session-reads";
import { turnMessageId } from "./transcript";

/**
 * The seq of the first message of `page` (the stored messages after the page's head) the page has not seen, or
 * null when there is none. It has seen those of the turns it streams (`live`: useChat's messages, a turn's
 * `msg_<turn id>`), and no other: one of a turn shown from the history it read is newer than that read (the turn
 * moved on, or was read half-written). A page that is not the last (`next`) counts as missed at its first message:
 * what follows it is unknown. Messages of no turn are left out.
 */
export function missedTurn(page: MessagePage, live: readonly Pick<UIMessage, "id">[]): number | null {
  if (page.next !== null && page.messages.length > 0) return page.messages[0]?.seq ?? null;
  for (const m of page.messages) {
    const turnId = m.turn_id;
    if (turnId !== null && !live.some((l) => l.id === turnMessageId(turnId))) return m.seq;
  }
  return null;
}

/**
 * Catches the page up with turns run elsewhere. `live`: useChat's messages; `settled`: whether it may read the
 * session again now; `rejoin` reads it again as a reload does; `head`: the seq of the newest stored message the
 * page read with its whole history. `taken` is called for each message the server took from the page.
 */
export function useCatchUp(
  conn: Connection,
  live: readonly UIMessage[],
  settled: boolean,
  rejoin: () => Promise<unknown>,
  head: { readonly current: number },
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
    messagesAfter(conn, head.current).then(
      (page) => {
        const at = missedTurn(page, liveNow.current);
        if (at !== null) setMissedAt(at);
      },
      // A check that failed changes nothing: the next message taken or the tab visible again checks again.
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
