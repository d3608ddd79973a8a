// The calls a turn shows still open (waiting for an app or the person, or approved and held back): the entry whose
// approvals the person can answer (`answerableAt`), the open calls (`openCalls`), whether the session's state moved
// on from them (`pauseMovedOn`), and how a new message closed them (`closedCalls`, `withClosedCalls`). Pure, tested
// in plain vitest (test/unit/web/open-calls.test.ts).
import type { PausedStep } from "./from-history";
import type { Block, Entry, ToolBlock } from "./transcript";

/**
 * The entry whose approvals the person can still answer: the newest one with a call waiting for approval, when
 * no user message follows it (a newer message declined it). -1 when none.
 */
export function answerableAt(entries: Entry[]): number {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i] as Entry;
    if (e.role === "user") return -1;
    if (e.blocks.some((b) => b.kind === "tool" && b.state === "approval")) return i;
  }
  return -1;
}

/** How a call shows while its step waits: for an app, for the person, or approved and held back by another call. */
const OPEN_STATES: ReadonlySet<ToolBlock["state"]> = new Set(["client", "approval", "approved"]);

/**
 * The calls the newest turn shows still open (waiting for an app or the person, or approved and held back), by id,
 * with how each shows; none once a user message follows them (that message closed them).
 */
export function openCalls(entries: Entry[]): Map<string, ToolBlock["state"]> {
  const open = new Map<string, ToolBlock["state"]>();
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i] as Entry;
    if (e.role === "user") break;
    for (const b of e.blocks) if (b.kind === "tool" && OPEN_STATES.has(b.state)) open.set(b.id, b.state);
  }
  return open;
}

/**
 * Whether the session's state (its `pause`, null once the turn is not paused) no longer holds the calls the page
 * shows open (`openCalls`) as it shows them: the turn resumed or ended, an app answered one of its calls, or an
 * approval the page still offers was answered (another tab, the API, its TTL). A call approved here and held back
 * is not compared with its approval: the page sends its answers only once the step's are all given.
 */
export function pauseMovedOn(shown: ReadonlyMap<string, ToolBlock["state"]>, pause: PausedStep | null): boolean {
  if (shown.size === 0) return false;
  if (pause === null) return true;
  for (const [id, state] of shown) {
    const call = pause.calls.find((c) => c.id === id);
    if (call?.state !== "pending") return true;
    if (state !== "approval") continue;
    if (pause.approvals.find((a) => a.tool_call_id === id)?.status !== "pending") return true;
  }
  return false;
}

/**
 * The stored outcome of each of `ids` that has one in `stored` (entries read from the history): how a new message
 * closed the calls it superseded (the server's synthetic result, a declined approval), to show in their place.
 */
export function closedCalls(stored: Entry[], ids: Iterable<string>): Map<string, ToolBlock> {
  const wanted = new Set(ids);
  const closed = new Map<string, ToolBlock>();
  for (const e of stored) {
    for (const b of e.blocks) {
      if (b.kind === "tool" && wanted.has(b.id) && !OPEN_STATES.has(b.state) && b.state !== "running") {
        closed.set(b.id, b);
      }
    }
  }
  return closed;
}

/** `entries` with each call they still show open replaced by its stored outcome from `closed` (closedCalls). */
export function withClosedCalls(entries: Entry[], closed: ReadonlyMap<string, ToolBlock>): Entry[] {
  if (closed.size === 0) return entries;
  const shut = (b: Block): Block => (b.kind === "tool" && OPEN_STATES.has(b.state) ? closed.get(b.id) : undefined) ?? b;
  return entries.map((e) => ({ ...e, blocks: e.blocks.map(shut) }));
}
