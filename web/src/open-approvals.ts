// Approvals handed back to useChat to be answered the live way: one left open in the stored history from before the
// page loaded (`takeOpenApprovals`), and one this page answered whose answer never reached the server
// (`reopenApprovals`). Pure, tested in plain vitest (test/unit/web/open-approvals.test.ts).
import type { DynamicToolUIPart, UIMessage } from "ai";
import { turnMessageId } from "./live-turns";
import type { Entry, ToolBlock } from "./transcript";

/**
 * An approval left open from before the page loaded, handed to useChat so it is answered the live way and
 * the resumed turn streams in: when the newest stored entry has a call waiting for approval, its calls of the
 * paused step become one assistant UI message (their `seed` parts, as useChat holds them live: the resumed
 * segment answers each of them) and leave the stored transcript. Its id is the one the server's stream gives
 * the turn's assistant message (`msg_<turn id>`), so useChat continues that message with the resumed segment
 * instead of starting another.
 */
export function takeOpenApprovals(entries: Entry[]): {
  earlier: Entry[];
  seed: UIMessage | null;
  turnId: string | null;
} {
  const last = entries.at(-1);
  const blocks = last?.blocks ?? [];
  const paused = blocks.filter((b): b is ToolBlock & { seed: DynamicToolUIPart } => b.kind === "tool" && !!b.seed);
  if (!last || !paused.some((b) => b.state === "approval")) return { earlier: entries, seed: null, turnId: null };
  const rest = blocks.filter((b) => !paused.includes(b as (typeof paused)[number]));
  const earlier = rest.length > 0 ? [...entries.slice(0, -1), { ...last, blocks: rest }] : entries.slice(0, -1);
  const seed: UIMessage = {
    id: last.turnId ? turnMessageId(last.turnId) : `${last.id}-approvals`,
    role: "assistant",
    parts: paused.map((b) => b.seed),
  };
  return { earlier, seed, turnId: last.turnId ?? null };
}

/**
 * The approvals this page answered (`answered`, by approval id) open again (`approval-requested`, as the request
 * came), for when the answer never reached the server: the approval still waits there, so it gets its buttons back.
 * Any other `approval-responded` part stays as it is: one approved elsewhere (seeded from the pause) is approved on
 * the server, and reopening it would let a Deny here be overridden by the approval already stored.
 */
export function reopenApprovals(messages: UIMessage[], answered: ReadonlySet<string>): UIMessage[] {
  return messages.map((m) => ({
    ...m,
    parts: m.parts.map((p) => {
      if (p.type !== "dynamic-tool" || p.state !== "approval-responded" || !answered.has(p.approval.id)) return p;
      const { approved: _approved, reason: _reason, ...asked } = p.approval;
      return { ...p, state: "approval-requested" as const, approval: asked };
    }),
  }));
}
