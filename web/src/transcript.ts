// The one shape the app renders: a transcript of entries (`Entry`, each a list of `Block`s), built from either the stored
// history (from-history.ts) or the live useChat messages (from-live.ts), and what the two builders share so a call
// reads the same either way: the compaction notice, a declined call's line, a result's text, approved calls held
// back. Pure, as are the builders and what works on their entries (turn-outcomes.ts, open-calls.ts,
// open-approvals.ts, live-turns.ts), each tested in plain vitest (test/unit/web/).
import type { DynamicToolUIPart } from "ai";

export type Block =
  | { kind: "text"; text: string }
  | {
      kind: "tool";
      id: string;
      name: string;
      /**
       * `approval`: waiting for the person to approve or deny (useChat part state `approval-requested`).
       * `client`: a client tool's call, waiting for an app to send its result (this page runs no client tool).
       * `approved`: approved, and not run yet because a call beside it still waits (`heldBy`): the server runs
       * the step's calls once every answer is in; a new message closes it unrun.
       */
      state: "running" | "done" | "error" | "approval" | "denied" | "client" | "approved";
      /**
       * What an `approved` call waits for: another approval of its step (`approval`: the page sends the step's
       * answers together, once all are given), else a `client` call of its step (an app's result).
       */
      heldBy?: "approval" | "client";
      input: unknown;
      output: string;
      /**
       * The approval to answer (state `approval`), why the call needs one and, for a call with `$tool` references,
       * the arguments it runs with (`resolvedInput`, the approval's `resolved_input`): what the person approves.
       */
      approval?: { id: string; reason: string; resolvedInput?: unknown };
      /** A call of the paused step, as useChat holds it live: what takeOpenApprovals hands to useChat. */
      seed?: DynamicToolUIPart;
    }
  | { kind: "notice"; text: string };

export type ToolBlock = Extract<Block, { kind: "tool" }>;

export interface Entry {
  id: string;
  role: "user" | "assistant";
  blocks: Block[];
  /** The turn a stored message was written by (null for live entries and messages of no turn). */
  turnId?: string | null;
}

/** The notice where a compaction's summary took over, stored or live. */
export const COMPACTION_NOTICE = "Earlier conversation was summarised to keep the session within the model's context.";

/** The line a declined call shows, live and after a reload alike: "Declined", with the reason when one was given. */
export function declinedLine(reason: string | undefined): string {
  return `Declined${reason ? `: ${reason}` : ""}`;
}

/** A tool result's value as the call shows it: a string as it is, a JSON value pretty-printed. */
export function outputText(output: unknown): string {
  return typeof output === "string" ? output : JSON.stringify(output, null, 2);
}

/**
 * One entry's blocks with its approved calls shown as they are: held back (`approved`) while another call of the
 * step waits, for the person (`approval`: useChat sends the step's answers together, once all are given, and the
 * server runs none of its calls before) or for an app (`client`: the server needs its result first); running
 * otherwise (the resumed turn runs them now).
 */
export function heldBack(blocks: Block[]): Block[] {
  const waits = (state: ToolBlock["state"]) => blocks.some((b) => b.kind === "tool" && b.state === state);
  const heldBy = waits("approval") ? "approval" : waits("client") ? "client" : null;
  return blocks.map((b) =>
    b.kind === "tool" && b.state === "approved" ? (heldBy ? { ...b, heldBy } : { ...b, state: "running" }) : b,
  );
}
