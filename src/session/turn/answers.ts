/**
 * Client tool results and turn answers: `pendingResults` picks a useChat body's new outputs (refusing one for a
 * call that does not exist), `checkSupplied` refuses client-supplied tool results before anything is written,
 * `turnResult` builds a turn's JSON answer from its row and the messages it wrote (from `firstSeqOf`), and
 * `awaitingClient` lists the open calls a client is to answer. `announceClientResults` tells a turn's stream the
 * results clients gave, and `answeredOnReplay` keeps a replay from handing an answered call to a client again.
 * None writes history (`checkSupplied` only records an event when it refuses).
 */
import { type Failure, failure, type Result } from "../../model/errors";
import { isPaused } from "../../model/turn";
import type { EventLog } from "../../observability/event-log";
import type { ApprovalStore } from "../approval-store";
import { storedResultPart, type ToolCallRow } from "../history/call-ledger";
import type { SuppliedResult } from "../history/close-open-calls";
import type { HistoryStore } from "../history/history-store";
import type { TurnResult } from "../rpc-types";
import type { UiChunk } from "../stream/ui-chunks";
import type { TurnContext } from "./context";
import type { TurnRow, TurnStore } from "./turn-store";

/** The refusal of a supplied result whose call this session never made (404). */
function unknownToolUse(id: string): Failure {
  return failure("unknown_tool_use", `no tool call with id ${id} in this session`);
}

/**
 * Of a useChat body's tool outputs (it repeats every output of the conversation), the still-pending, new ones.
 * An output whose call does not exist is refused as on /tool-results (`unknown_tool_use`), not left out: a body
 * must not stream a turn on while one of its answers went nowhere.
 */
export function pendingResults(
  history: HistoryStore,
  supplied: SuppliedResult[],
): Result<{ results: SuppliedResult[] }> {
  const results: SuppliedResult[] = [];
  for (const r of supplied) {
    const call = history.call(r.tool_use_id);
    if (!call) return unknownToolUse(r.tool_use_id);
    if (call.state === "pending" && call.answered_seq === null) results.push(r);
  }
  return { ok: true, results };
}

/** A client result for a call that waits for (or got) a person's approval would bypass it: 409, nothing written. */
function refuseResultsForApprovals(store: ApprovalStore, callIds: string[]): Result<object> {
  for (const id of callIds) {
    const row = store.byCall(id);
    if (row && row.status !== "declined") {
      return failure(
        "approval_required",
        `tool call ${id} runs on the server after approval (${row.id}); answer it at /tool-approvals, not with a result`,
      );
    }
  }
  return { ok: true };
}

/**
 * Validates tool results supplied by a client before anything is written:
 * a call waiting on (or granted, not yet run) an approval → 409 approval_required,
 * duplicates → 400, unknown ids → 404, a call the server executes (http, MCP,
 * built-in) → 409 not_client_tool, calls already answered or repaired →
 * 409 late_result (both recorded as an event; history stays as it is).
 */
export function checkSupplied(
  stores: { history: HistoryStore; approvals: ApprovalStore; eventLog: EventLog },
  results: SuppliedResult[],
  turnId: string | null,
): Result<object> {
  const { history, approvals, eventLog } = stores;
  // A call still waiting on its approval is a server call too: say why it takes no result (approval_required)
  // first. One that already has its result is refused below like any other server call (not_client_tool).
  const gated = refuseResultsForApprovals(
    approvals,
    results.map((r) => r.tool_use_id).filter((id) => history.call(id)?.answered_seq === null),
  );
  if (!gated.ok) return gated;
  const seen = new Set<string>();
  for (const r of results) {
    if (seen.has(r.tool_use_id)) return failure("invalid_request", `duplicate result for ${r.tool_use_id}`);
    seen.add(r.tool_use_id);
  }
  for (const r of results) {
    const call = history.call(r.tool_use_id);
    if (!call) return unknownToolUse(r.tool_use_id);
    // Only a client-executed call takes a client's result: a server-side call is answered by the server alone,
    // whether it is still running or already done.
    if (call.execution !== "client") {
      eventLog.record("tool_result_refused", turnId, {
        tool_use_id: r.tool_use_id,
        tool: call.name,
        execution: call.execution,
        state: call.state,
      });
      return failure(
        "not_client_tool",
        `tool call ${r.tool_use_id} (${call.name}) is executed by the server (${call.execution}); only client-executed calls take results from a client`,
      );
    }
    if (call.state !== "pending" || call.answered_seq !== null) {
      eventLog.record("late_result_dropped", turnId, { tool_use_id: r.tool_use_id, state: call.state });
      return failure(
        "late_result",
        `tool call ${r.tool_use_id} was already ${call.state === "resolved" ? "answered" : "repaired"}; the result was not written`,
      );
    }
  }
  return { ok: true };
}

/**
 * Where a turn's own messages start, for the JSON answer of a turn its caller did not just admit (a webhook run's,
 * concluded when it ends): its first message when its admission wrote one; else (a retry with nothing open writes
 * none) the first of its messages in the provider view (a compaction inside a long turn may have summarised its
 * first steps: the answer then holds the steps kept, its final answer always among them); else the next seq: it
 * wrote none. Never 0, whose `since` reads and parses every message ever stored, past the view, to keep one turn's.
 */
export function firstSeqOf(history: HistoryStore, turn: TurnRow): number {
  if (turn.first_message_seq !== null) return turn.first_message_seq;
  return history.messages().find((m) => m.turn_id === turn.id)?.seq ?? history.nextSeq();
}

/**
 * The JSON answer of a turn: its state and its own messages written since `sinceSeq`. Messages of later
 * turns never appear, so an idempotent replay or a run's result shows only what that turn wrote.
 */
export function turnResult(
  history: HistoryStore,
  turns: TurnStore,
  approvals: ApprovalStore,
  turnId: string,
  sinceSeq: number,
): TurnResult {
  const t = turns.get(turnId) as TurnRow;
  const messages = history.since(sinceSeq).filter((m) => m.seq > 0 && m.turn_id === turnId);
  return {
    turn_id: t.id,
    status: t.status,
    finish_reason: t.finish_reason,
    messages,
    usage: JSON.parse(t.usage) as Record<string, number>,
    ...(t.error ? { error: JSON.parse(t.error) as TurnResult["error"] } : {}),
    ...(t.structured_result !== null ? { structured_result: JSON.parse(t.structured_result) as unknown } : {}),
    // A pause for approval lists its step's open client calls too: their results may come in while it waits.
    ...(isPaused(t.status) ? { pending_tool_calls: awaitingClient(history, approvals) } : {}),
  };
}

/**
 * The open calls that wait for a client's result: pending, and with no approval. A call a person approved is
 * pending too until the turn resumes and runs it on the server; no client is to answer it.
 */
export function awaitingClient(history: HistoryStore, approvals: ApprovalStore): Array<{ id: string; name: string }> {
  const gated = new Set(approvals.onOpenCalls().map((a) => a.call_id));
  return history
    .openCalls()
    .filter((c) => c.state === "pending" && !gated.has(c.id))
    .map((c) => ({ id: c.id, name: c.name }));
}

/**
 * Tells the turn's stream the results clients gave for `calls` (the client calls among them that have one): other
 * tabs see the answer, and a replay carries it after the call it answers. Said as results of an earlier segment,
 * which the encoder sends for calls it did not open itself (and once per call in a segment). A call the session
 * answered itself (invalid arguments, say) was told with its step (`announced`), perhaps in an earlier segment.
 */
export function announceClientResults(ctx: Pick<TurnContext, "out">, calls: readonly ToolCallRow[]): void {
  for (const call of calls) {
    if (call.execution !== "client" || call.state !== "resolved" || call.announced === 1) continue;
    const { content, is_error } = storedResultPart(call);
    ctx.out.emit({ type: "tool_output", tool_use_id: call.id, content, is_error, earlier: true });
  }
}

/**
 * A frame read back from the stream log as a replay sends it: a client call's `tool-input-available` whose call
 * has a result by now goes with `providerExecuted`, so useChat (`onToolCall`) does not run the call again; its
 * part still takes the result that follows in the stream. A call still open is offered as it was.
 */
export function answeredOnReplay(history: HistoryStore): (chunk: UiChunk) => UiChunk {
  return (chunk) => {
    if (chunk.type !== "tool-input-available" || chunk.providerExecuted) return chunk;
    const call = history.call(chunk.toolCallId);
    return call && call.state !== "pending" ? { ...chunk, providerExecuted: true } : chunk;
  };
}
