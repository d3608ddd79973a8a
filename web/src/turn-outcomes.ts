// How a turn ended, as a line under it: `outcomeNotice` (stopped, failed, cut off, ended by a limit), the lines of the
// turns a history read lists (`outcomeNotices`), and where each shows among the entries (`withOutcomes`). Pure,
// tested in plain vitest (test/unit/web/turn-outcomes.test.ts).
import { turnMessageId } from "./live-turns";
import type { Block, Entry } from "./transcript";

/** How a turn ended, as the stream's `data-turn` part and `last_turn` of GET /v1/sessions/{id} say it. */
export interface TurnOutcome {
  status: string;
  finish_reason?: string | null;
  error?: { message?: string } | null;
}

/**
 * The line the transcript shows under a turn that did not simply answer: stopped, failed, cut off by a
 * restart, or ended by a limit. Null for a plain answer and for a turn that is not over.
 */
export function outcomeNotice(o: TurnOutcome): string | null {
  if (o.status === "cancelled") return "Stopped.";
  if (o.status === "failed") return `The answer failed${o.error?.message ? `: ${o.error.message}` : "."}`;
  if (o.status === "interrupted") return "The answer was cut off: the session restarted while it ran.";
  if (o.status !== "completed") return null;
  if (o.finish_reason === "max_steps") return "Stopped at the agent's step limit.";
  if (o.finish_reason === "max_tokens") return "The answer was cut off at the model's output limit.";
  if (o.finish_reason === "refusal") return "The model declined to answer.";
  return null;
}

/** The outcome lines of turns that did not simply answer, by turn id, in order (a turn listed twice once). */
export function outcomeNotices(
  turns: ReadonlyArray<{ id: string } & TurnOutcome>,
): Array<{ turnId: string; text: string }> {
  const seen = new Set<string>();
  const out: Array<{ turnId: string; text: string }> = [];
  for (const t of turns) {
    const text = outcomeNotice(t);
    if (seen.has(t.id) || !text) continue;
    seen.add(t.id);
    out.push({ turnId: t.id, text });
  }
  return out;
}

/**
 * The stored entries, then the live ones, with each turn's outcome line (by turn id) after the turn's last entry,
 * stored (its `turnId`) or live (its `msg_<turn id>`). A turn with no entry of its own (it failed before the
 * model wrote anything, or a retry that wrote nothing) gets one where it sits in time: after the stored entries,
 * before the live ones (notices come from stored state or from a live turn, which has its message).
 */
export function withOutcomes(stored: Entry[], live: Entry[], notices: ReadonlyMap<string, string>): Entry[] {
  const out = [...stored, ...live];
  let liveStart = stored.length;
  for (const [turnId, text] of notices) {
    const notice: Block = { kind: "notice", text };
    let at = -1;
    out.forEach((e, i) => {
      if (e.turnId === turnId || e.id === turnMessageId(turnId)) at = i;
    });
    const entry = out[at];
    if (entry && entry.role === "assistant") {
      out[at] = { ...entry, blocks: [...entry.blocks, notice] };
      continue;
    }
    const where = at === -1 ? liveStart : at + 1;
    out.splice(where, 0, { id: `outcome-${turnId}`, role: "assistant", blocks: [notice], turnId });
    if (where <= liveStart) liveStart++;
  }
  return out;
}
