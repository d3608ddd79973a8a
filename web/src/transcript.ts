// The one shape the app renders: a transcript of entries, built from either the stored history
// (GET /v1/sessions/{id}/messages, canonical parts) or the live useChat messages (AI SDK UI parts).
// Pure functions, tested in plain vitest (test/unit/web/transcript.test.ts).
import type { DynamicToolUIPart, UIMessage } from "ai";
// The server's own definitions (src/model/ imports nothing): a declined call's wording, a result's value and its
// text, so a reloaded call shows what it did live.
import { readDeclined } from "../../src/model/declined";
import { resultValue } from "../../src/model/json";
import { resultText, type ToolResultContent } from "../../src/model/message";

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

/** A stored message as GET /v1/sessions/{id}/messages returns it (only the fields the app reads). */
export interface StoredMessage {
  seq: number;
  role: "user" | "assistant";
  origin: string;
  turn_id: string | null;
  parts: Array<{ type: string; [key: string]: unknown }>;
}

/**
 * What a client tool's call says while its turn waits for the result (awaiting_tool_results): this page never
 * sends one, and a new message moves the turn on (the call is superseded).
 */
export const CLIENT_CALL_LINE = "Waiting for an app to run this tool — send a message to move on.";

/** What an approved call says while a client call of its step holds it back (state `approved`, heldBy `client`). */
export const APPROVED_HELD_LINE =
  "Approved — it runs once an app answers the call waiting beside it. A new message moves on without running it.";

/** What an approved call says while another approval of its step waits (state `approved`, heldBy `approval`). */
export const APPROVED_WAITING_LINE =
  "Approved — waiting for the other decisions of this step; it runs once they are all given. A new message moves on without running it.";

const COMPACTION_NOTICE = "Earlier conversation was summarised to keep the session within the model's context.";

/** The line a declined call shows, live and after a reload alike: "Declined", with the reason when one was given. */
function declinedLine(reason: string | undefined): string {
  return `Declined${reason ? `: ${reason}` : ""}`;
}

function outputText(output: unknown): string {
  return typeof output === "string" ? output : JSON.stringify(output, null, 2);
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
 * A live tool part → its block; an approval request carries what the Approve / Deny buttons answer. A call the
 * server does not run (no `providerExecuted`: a client tool's) waits, once its input is in, for an app to answer.
 */
function toolBlock(p: DynamicToolUIPart): ToolBlock {
  const block: ToolBlock = {
    kind: "tool",
    id: p.toolCallId,
    name: p.toolName,
    state: "running",
    input: p.input,
    output: "",
  };
  if (p.state === "output-available") return { ...block, state: "done", output: outputText(p.output) };
  if (p.state === "output-error") return { ...block, state: "error", output: p.errorText ?? "error" };
  if (p.state === "output-denied") {
    return { ...block, state: "denied", output: declinedLine(p.approval.reason) };
  }
  if (p.state === "approval-requested") {
    const resolvedInput = resolvedInputOf(p.approval.descriptor);
    const approval = {
      id: p.approval.id,
      reason: p.approval.requestReason ?? "",
      ...(resolvedInput !== undefined ? { resolvedInput } : {}),
    };
    return { ...block, state: "approval", approval };
  }
  // Answered here, the turn not yet resumed: a denial is final at once; an approval is held back only while another
  // call of its step waits (heldBack), otherwise the resumed turn runs it now. Neither is left ⏳ beside "ready".
  if (p.state === "approval-responded") {
    return p.approval.approved
      ? { ...block, state: "approved" }
      : { ...block, state: "denied", output: declinedLine(p.approval.reason) };
  }
  if (!p.providerExecuted && (p.state === "input-streaming" || p.state === "input-available")) {
    return { ...block, state: "client" };
  }
  return block;
}

/**
 * The arguments an approval's call runs with, from the descriptor of its request (`tool-approval-request`'s
 * `approvalDescriptor`, kept by useChat as `approval.descriptor`): `resolved_input`, there only for a call with
 * `$tool` references. Undefined otherwise.
 */
function resolvedInputOf(descriptor: unknown): unknown {
  if (typeof descriptor !== "object" || descriptor === null) return undefined;
  return (descriptor as { resolved_input?: unknown }).resolved_input;
}

/**
 * One entry's blocks with its approved calls shown as they are: held back (`approved`) while another call of the
 * step waits, for the person (`approval`: useChat sends the step's answers together, once all are given, and the
 * server runs none of its calls before) or for an app (`client`: the server needs its result first); running
 * otherwise (the resumed turn runs them now).
 */
function heldBack(blocks: Block[]): Block[] {
  const waits = (state: ToolBlock["state"]) => blocks.some((b) => b.kind === "tool" && b.state === state);
  const heldBy = waits("approval") ? "approval" : waits("client") ? "client" : null;
  return blocks.map((b) =>
    b.kind === "tool" && b.state === "approved" ? (heldBy ? { ...b, heldBy } : { ...b, state: "running" }) : b,
  );
}

/**
 * A notice's listed names, and how many more its text says it left out: a large change lists only the first
 * names in `added`/`removed`, and its text ends the list with "...and N more".
 */
function namesShown(names: readonly string[], text: string, tag: string): string {
  const more = new RegExp(`<${tag}>[^<]*\\.\\.\\.and (\\d+) more`).exec(text)?.[1];
  return more ? `${names.join(", ")} and ${more} more` : names.join(", ");
}

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

/** Live useChat messages → transcript. */
export function fromUiMessages(messages: UIMessage[]): Entry[] {
  return messages.map((m) => {
    const blocks: Block[] = [];
    for (const p of m.parts) {
      if (p.type === "text") {
        if (p.text.length > 0) blocks.push({ kind: "text", text: p.text });
      } else if (p.type === "dynamic-tool") {
        blocks.push(toolBlock(p));
      } else if (p.type === "data-compaction") {
        blocks.push({ kind: "notice", text: COMPACTION_NOTICE });
      }
    }
    return { id: m.id, role: m.role === "user" ? "user" : "assistant", blocks: heldBack(blocks) };
  });
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

/** The UI message id the server's stream gives a turn's assistant message, every segment (session/turn/turn-runner.ts). */
export function turnMessageId(turnId: string): string {
  return `msg_${turnId}`;
}

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
 * The stored entries to show next to useChat's live messages: a turn useChat holds live (its stream was
 * resumed: a message `msg_<turn id>`) is shown from the stream alone, so what the model wrote in it is not
 * shown twice whichever of the history read and the resumed stream saw the turn first. `seeded` turns are
 * the exception: their live message only continues what the stored entries show (takeOpenApprovals).
 */
export function withoutLiveTurns(earlier: Entry[], live: UIMessage[], seeded: ReadonlySet<string>): Entry[] {
  const liveIds = new Set(live.map((m) => m.id));
  return earlier.filter(
    (e) => !(e.role === "assistant" && e.turnId && !seeded.has(e.turnId) && liveIds.has(turnMessageId(e.turnId))),
  );
}
