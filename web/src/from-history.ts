// `fromHistory`: the stored history (GET /v1/sessions/{id}/messages, canonical parts) → the transcript, with the
// paused step's calls as the session's state shows them (its `pause`) and each compaction's notice where its summary
// took over; and the shapes of what it reads (`StoredMessage`, `PausedStep`, `CompactionMarker`). A reloaded call
// reads as it did live. Pure, tested in plain vitest (test/unit/web/from-history.test.ts).
import type { DynamicToolUIPart } from "ai";
// The server's own definitions (src/model/ imports nothing): a declined call's wording, a result's value and its
// text, so a reloaded call shows what it did live.
import { readDeclined } from "../../src/model/declined";
import { resultValue } from "../../src/model/json";
import { resultText, type ToolResultContent } from "../../src/model/message";
import { toolBlock } from "./from-live";
import {
  type Block,
  COMPACTION_NOTICE,
  declinedLine,
  type Entry,
  heldBack,
  outputText,
  type ToolBlock,
} from "./transcript";

/** A stored message as GET /v1/sessions/{id}/messages returns it (only the fields the app reads). */
export interface StoredMessage {
  seq: number;
  role: "user" | "assistant";
  origin: string;
  turn_id: string | null;
  parts: Array<{ type: string; [key: string]: unknown }>;
}

/** The paused step, as `GET /v1/sessions/{id}` shows it in `pause` (the fields the app reads). */
export interface PausedStep {
  /** Every approval of the pause, answered (elsewhere, or by its TTL) or not. */
  approvals: Array<{
    approval_id: string;
    tool_call_id: string;
    reason: string;
    /** Echoed with the answer, as useChat echoes the live request's (the server checks it). */
    signature: string;
    status: "pending" | "approved" | "declined";
    decided_reason: string | null;
    /** The arguments the call runs with, its `$tool` references resolved (only when it has any). */
    resolved_input?: unknown;
  }>;
  /** The step's calls; a `result` once they have one (the history shows it only when the step closes). */
  calls: Array<{ id: string; execution: string; state: string; result?: unknown; is_error?: boolean }>;
}

/**
 * A call of the paused step as useChat would hold it had it streamed live, so the resumed segment finds what it
 * answers (every approval of the pause, by id; outputs by call id): waiting for the person (`approval-requested`),
 * declined (`output-denied`), approved and still to run (`approval-responded`, with the signature /chat checks
 * on every answer it is sent), already answered (`output-available` / `output-error`), or with no result and no
 * approval (`input-available`: a client call still awaited, shown waiting for an app as live, since it has no
 * `providerExecuted`; the page runs no client tool). Every call of the step gets one: the resumed segment may open
 * with the result an app sent for such a call meanwhile, and useChat throws on a result for a call it does not hold.
 * Null only for a call not of the paused step.
 */
function pausedPart(use: { id: string; name: string; input: unknown }, pause: PausedStep): DynamicToolUIPart | null {
  const call = pause.calls.find((c) => c.id === use.id);
  if (!call) return null;
  const a = pause.approvals.find((x) => x.tool_call_id === use.id);
  const base = { type: "dynamic-tool" as const, toolName: use.name, toolCallId: use.id, input: use.input };
  if (a?.status === "pending") {
    // The descriptor as the live request carries it (`tool-approval-request`), so the prompt shows the same.
    const descriptor = {
      tool_name: use.name,
      ...(a.resolved_input !== undefined ? { resolved_input: a.resolved_input } : {}),
    };
    return {
      ...base,
      state: "approval-requested",
      approval: {
        id: a.approval_id,
        descriptor,
        ...(a.reason ? { requestReason: a.reason } : {}),
        signature: a.signature,
      },
    };
  }
  if (a?.status === "declined") {
    const reason = a.decided_reason ? { reason: a.decided_reason } : {};
    return { ...base, state: "output-denied", approval: { id: a.approval_id, approved: false, ...reason } };
  }
  const approval = a ? { id: a.approval_id, approved: true as const, signature: a.signature } : undefined;
  const server = call.execution === "client" ? {} : { providerExecuted: true };
  if (call.state === "pending") {
    return approval
      ? { ...base, state: "approval-responded", approval }
      : { ...base, ...server, state: "input-available" };
  }
  const answered = { ...base, ...(approval ? { approval } : {}), ...server };
  const text = call.result === undefined ? "" : resultText(call.result as ToolResultContent);
  return call.is_error
    ? { ...answered, state: "output-error", errorText: text }
    : { ...answered, state: "output-available", output: resultValue(text) };
}

/** A compaction as each GET /v1/sessions/{id}/messages page lists it in `compactions` (the field the app reads). */
export interface CompactionMarker {
  /** The summary replaced every message before this one. */
  before_seq: number;
  /** The turn that compacted (null for `POST /compact`). */
  turn_id?: string | null;
}

/**
 * Stored history → transcript. Tool results (stored as user-role messages) are folded into the call they
 * answer (a JSON object or array pretty-printed, as live), and a turn's assistant messages make one entry, as
 * useChat holds the turn live; `liveTurn` leaves out what the model wrote in a turn that is still streaming, because
 * the resumed stream replays it (the user's own message stays). The calls of a `pause` show as its view says (waiting for
 * the person, declined, answered) and carry the part that seeds useChat (pausedPart).
 * Each of Switchboard's own compactions (`compactions`: stored apart from the messages) shows its notice where
 * the summary took over, before the first message it kept; a provider's native compaction is a part of that
 * message and shows there instead. One made by `liveTurn` is left out too: the resumed stream replays it (its
 * `data-compaction` part), and the first message it kept may belong to an earlier turn.
 */
export function fromHistory(
  messages: StoredMessage[],
  liveTurn: string | null = null,
  pause: PausedStep | null = null,
  compactions: CompactionMarker[] = [],
): Entry[] {
  const entries: Entry[] = [];
  const calls = new Map<string, ToolBlock>();
  const boundaries = compactions
    .filter((c) => liveTurn === null || c.turn_id !== liveTurn)
    .map((c) => c.before_seq)
    .sort((a, b) => a - b);
  for (const m of messages) {
    let summarised = false;
    while (boundaries.length > 0 && (boundaries[0] as number) <= m.seq) {
      boundaries.shift();
      summarised = true;
    }
    if (summarised && !m.parts.some((p) => p.type === "compaction")) {
      entries.push({
        id: `compaction-${m.seq}`,
        role: "assistant",
        blocks: [{ kind: "notice", text: COMPACTION_NOTICE }],
      });
    }
    if (liveTurn !== null && m.turn_id === liveTurn && m.origin !== "client") continue;
    const blocks: Block[] = [];
    for (const p of m.parts) {
      if (p.type === "text" && typeof p.text === "string" && p.text.length > 0) {
        blocks.push({ kind: "text", text: p.text });
      } else if (p.type === "tool_use") {
        const use = { id: String(p.id), name: String(p.name), input: p.input };
        const seed = pause ? pausedPart(use, pause) : null;
        const call: ToolBlock = seed
          ? { ...toolBlock(seed), seed }
          : { kind: "tool", ...use, state: "running", output: "" };
        calls.set(call.id, call);
        blocks.push(call);
      } else if (p.type === "tool_result") {
        const call = calls.get(String(p.tool_use_id));
        if (call) {
          const text = resultText(p.content as ToolResultContent);
          const declined = p.is_error ? readDeclined(text) : null;
          if (declined) {
            call.state = "denied";
            call.output = declinedLine(declined.reason);
          } else {
            call.state = p.is_error ? "error" : "done";
            call.output = p.is_error ? text : outputText(resultValue(text));
          }
        }
      } else if (p.type === "notice" && p.kind === "tools_changed") {
        const added = (p.added as string[] | undefined) ?? [];
        const removed = (p.removed as string[] | undefined) ?? [];
        const text = typeof p.text === "string" ? p.text : "";
        if (added.length)
          blocks.push({ kind: "notice", text: `Tools added: ${namesShown(added, text, "tools_added")}` });
        if (removed.length) {
          blocks.push({ kind: "notice", text: `Tools removed: ${namesShown(removed, text, "tools_removed")}` });
        }
      } else if (p.type === "compaction") {
        blocks.push({ kind: "notice", text: COMPACTION_NOTICE });
      }
    }
    if (blocks.length === 0) continue;
    // A turn's steps are stored as separate assistant messages (their tool results, folded above, between them);
    // live, useChat holds the turn as one message, so they make one entry here too.
    const previous = entries.at(-1);
    if (
      m.role === "assistant" &&
      m.turn_id !== null &&
      previous?.role === "assistant" &&
      previous.turnId === m.turn_id
    ) {
      previous.blocks.push(...blocks);
      continue;
    }
    entries.push({ id: `h${m.seq}`, role: m.role, blocks, turnId: m.turn_id });
  }
  return entries.map((e) => ({ ...e, blocks: heldBack(e.blocks) }));
}

/**
 * A notice's listed names, and how many more its text says it left out: a large change lists only the first
 * names in `added`/`removed`, and its text ends the list with "...and N more".
 */
function namesShown(names: readonly string[], text: string, tag: string): string {
  const more = new RegExp(`<${tag}>[^<]*\\.\\.\\.and (\\d+) more`).exec(text)?.[1];
  return more ? `${names.join(", ")} and ${more} more` : names.join(", ");
}
