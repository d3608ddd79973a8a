/**
 * A user message (or a run's input) starts a turn (`sendMessage`, the engine's): the size check, the MCP tool
 * lists refreshed, the replay of an Idempotency-Key, the refusals (a turn runs, supplied results that answer no
 * client call), then admission (admit-turn.ts) and the call's answer.
 */
import type { AgentConfig } from "../agents/types";
import { sameBody } from "../crypto/body-hash";
import type { Result } from "../model/errors";
import { failure } from "../model/errors";
import { admitTurn } from "./admit-turn";
import { MOVED_ON } from "./approval-store";
import type { EngineMembers, StartRunner } from "./engine-members";
import { oversized } from "./oversized";
import { refreshTools } from "./refresh-tools";
import type { AnswerMode, SendInput, TurnAnswer } from "./rpc-types";
import { checkSupplied } from "./turn/answers";

/**
 * A user message (or a run's input) starts a turn. `mayStart`, checked after the last await: false when another
 * turn must go first (a run behind a pause that began meanwhile) → 409 turn_in_progress, nothing written.
 */
export async function sendMessage(
  engine: EngineMembers,
  start: StartRunner,
  agent: AgentConfig,
  input: SendInput,
  mode: AnswerMode,
  mayStart?: () => boolean,
): Promise<Result<TurnAnswer>> {
  const tooLarge = oversized(input);
  if (tooLarge) return tooLarge;
  // MCP tool lists need network I/O: fetched before the checks below, which then run without an await.
  const refreshed = await refreshTools(engine, agent);
  if (!refreshed.ok) return refreshed;
  if (mayStart && !mayStart()) return failure("turn_in_progress", "another turn must go first");
  engine.healOrphan();
  if (input.idempotency_key) {
    const prior = engine.turns.byIdempotencyKey(input.idempotency_key);
    if (prior) {
      if (!sameBody(prior.body_hash, { hash: input.body_hash ?? null, earlier: input.earlier_body_hash })) {
        return failure("idempotency_conflict", "this Idempotency-Key was used with a different request body");
      }
      // The stream log keeps the newest turns' frames only: an older turn replays as its result, in JSON.
      const swept =
        mode === "stream" && engine.running?.turnId !== prior.id && !engine.streamLog.has(prior.id, prior.log_start);
      const first = prior.first_message_seq ?? 0;
      return { ok: true, ...(await engine.answer(prior, swept ? "json" : mode, first, true, prior.log_start)) };
    }
  }
  const latest = engine.turns.latest();
  if (latest?.status === "running") return failure("turn_in_progress", "a turn is already running in this session");
  const checked = checkSupplied(engine, input.tool_results, latest?.id ?? null);
  if (!checked.ok) return checked;
  const supplied = new Map(input.tool_results.map((r) => [r.tool_use_id, r]));
  // Should admission write no message, the JSON answer reads from after the newest stored one, not every
  // stored message from seq 0.
  const after = engine.history.nextSeq();
  const turn = admitTurn(engine, start, agent, "message", input, latest, {
    supplied,
    extra: input.content,
    reason: "no result was provided before the next user message",
    declined: MOVED_ON,
  });
  return { ok: true, ...(await engine.answer(turn, mode, turn.first_message_seq ?? after, false, turn.log_start)) };
}
