/**
 * `POST /retry` (`retryTurn`, the engine's `retry`): the last turn run again when it did not complete (open calls,
 * or history ending with the user's message), keeping its step budget and structured-output contract; admitted
 * as a message is (admit-turn.ts).
 */
import type { AgentConfig } from "../agents/types";
import type { Result } from "../model/errors";
import { failure } from "../model/errors";
import type { JsonObject } from "../model/json";
import { admitTurn } from "./admit-turn";
import type { EngineMembers, StartRunner } from "./engine-members";
import { refreshTools } from "./refresh-tools";
import type { AnswerMode, TurnAnswer } from "./rpc-types";

export async function retryTurn(
  engine: EngineMembers,
  start: StartRunner,
  agent: AgentConfig,
  mode: AnswerMode,
): Promise<Result<TurnAnswer>> {
  const refreshed = await refreshTools(engine, agent);
  if (!refreshed.ok) return refreshed;
  engine.healOrphan();
  const latest = engine.turns.latest();
  if (latest?.status === "running") return failure("turn_in_progress", "a turn is already running in this session");
  const open = engine.history.openCalls().length > 0;
  const last = engine.history.last();
  if (!latest) {
    // No turn at all (a new session, or one just cleared): the usual reason would name a turn that never ran.
    return failure("nothing_to_retry", "there is no turn to retry: this session has none yet; send a message instead");
  }
  if (latest.status === "completed" || (!open && last?.role !== "user")) {
    return failure(
      "nothing_to_retry",
      "there is nothing to re-run: the last turn completed or ended with the model's own answer; send a new message instead",
    );
  }
  // A retried turn keeps the step budget and structured-output contract of the turn it re-runs.
  const schema = latest.json_schema ? (JSON.parse(latest.json_schema) as JsonObject) : undefined;
  const kept = { max_steps: latest.max_steps, ...(schema ? { json_schema: schema } : {}) };
  // As for a message: the answer reads from here when admission writes no message (nothing to close).
  const after = engine.history.nextSeq();
  const turn = admitTurn(engine, start, agent, "retry", kept, latest, {
    reason: "the call was superseded by a retry",
    declined: "the turn was retried",
  });
  return { ok: true, ...(await engine.answer(turn, mode, turn.first_message_seq ?? after, false, turn.log_start)) };
}
