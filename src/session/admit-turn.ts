/**
 * Admission of a turn (`admitTurn`, for the engine's `sendMessage` and `retry`): one transaction ends the paused
 * turn the new one supersedes, declines open approvals, closes open calls with the user message and writes the
 * turn row; then the turn's events and its runner's start.
 */
import type { AgentConfig } from "../agents/types";
import { MAX_STEPS_LIMIT } from "../agents/types";
import { newId } from "../crypto/new-id";
import type { JsonObject } from "../model/json";
import type { Part } from "../model/message";
import { isPaused, type TurnKind } from "../model/turn";
import { log } from "../observability/log";
import { declineOpen, recordDeclined } from "./approval-answers";
import type { EngineMembers, StartRunner } from "./engine-members";
import type { SuppliedResult } from "./history/close-open-calls";
import type { TurnRow } from "./turn/turn-store";

/** Admits a turn: one transaction closes open calls, writes the user message and the turn row. */
export function admitTurn(
  engine: EngineMembers,
  start: StartRunner,
  agent: AgentConfig,
  kind: TurnKind,
  input: { max_steps?: number; idempotency_key?: string; body_hash?: string; json_schema?: JsonObject },
  previous: TurnRow | null,
  close: { supplied?: ReadonlyMap<string, SuppliedResult>; extra?: Part[]; reason: string; declined: string },
): TurnRow {
  const id = newId("turn");
  const maxSteps = Math.min(input.max_steps ?? agent.max_steps, MAX_STEPS_LIMIT);
  // Only what admission needs happens before the provider request; sweeps run when a turn settles.
  const superseded = previous && isPaused(previous.status) ? previous.id : null;
  const { turn, synthesized, declined, unloaded, tooLarge, unreferenced } = engine.tx(() => {
    if (superseded) engine.turns.finish(superseded, "completed", "superseded", null);
    // Open approvals are answered "declined" in this same admission transaction; closeOpenCalls writes them.
    const declined = declineOpen(engine.approvals, engine.history, close.declined, "admission");
    const { notices, unloaded, unreferenced } = engine.tools.admit(agent);
    const closed = engine.tools.closeOpenCalls(agent, {
      turnId: id,
      reason: close.reason,
      ...(close.supplied ? { supplied: close.supplied } : {}),
      extra: [...notices, ...(close.extra ?? [])],
      ...(close.extra?.length ? { origin: "client" as const } : {}),
    });
    // The turn row is written once, already pointing at its first message.
    const turn = engine.turns.create({
      id,
      kind,
      max_steps: maxSteps,
      log_start: engine.streamLog.head(),
      idempotency_key: input.idempotency_key ?? null,
      body_hash: input.body_hash ?? null,
      json_schema: input.json_schema ? JSON.stringify(input.json_schema) : null,
      first_message_seq: closed.message?.seq ?? null,
    });
    return { turn, synthesized: closed.synthesized, declined, unloaded, tooLarge: closed.unloaded, unreferenced };
  });
  // The events' log lines wait until the turn's first content is out (or it settles): a console line is not
  // free, and these would otherwise delay the provider request and the first delta. The rows are written now.
  engine.eventLog.hold();
  try {
    recordDeclined(engine.eventLog, declined, previous?.id ?? null, close.declined, "admission");
    // The paused turn this one superseded ends here: its one end event.
    if (superseded) {
      engine.eventLog.record("turn_finished", superseded, { status: "completed", finish_reason: "superseded" });
    }
    engine.eventLog.record("turn_started", id, { kind, max_steps: maxSteps });
    if (unloaded.length) engine.eventLog.record("tools_unloaded", id, { names: unloaded, reason: "tools_limit" });
    if (tooLarge.length) engine.eventLog.record("tools_unloaded", id, { names: tooLarge, reason: "row_limit" });
    if (unreferenced.length) {
      engine.eventLog.record("tools_unloaded", id, { names: unreferenced, reason: "projection" });
    }
    if (synthesized.length > 0) {
      engine.eventLog.record("tool_result_synthesized", id, { tool_use_ids: synthesized, reason: close.reason });
    }
  } catch (e) {
    // The turn is admitted (committed): it starts anyway, or it would stay `running` with nothing to end it.
    log("error", "admission_events_failed", { turn_id: id, error: String(e) });
  }
  try {
    start(agent, id, { kind, max_steps: maxSteps });
  } catch (e) {
    engine.eventLog.release();
    throw e;
  }
  // A paused turn this one superseded has ended: a run waiting on its approval learns how.
  if (superseded) engine.hooks.settled(superseded, "completed");
  // As written: callers use its id, first message and log start, which nothing changes later.
  return turn;
}
