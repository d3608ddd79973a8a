/**
 * A user message (or a run's input) starts a turn (`sendMessage`, the engine's): the size check, the MCP tool
 * lists refreshed, the replay of an Idempotency-Key, the refusals (a turn runs, supplied results that answer no
 * client call), then admission (admit-turn.ts) and the call's answer. Also `replayFirst`, the replay alone, which
 * the turn calls try before they resolve the agent (turn-calls.ts).
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
import type { TurnRow } from "./turn/turn-store";

/** The turn a message's Idempotency-Key names, and whether the message is its body again; null: no key, or a new one. */
function keyedTurn(engine: EngineMembers, input: SendInput): { prior: TurnRow; same: boolean } | null {
  const prior = input.idempotency_key ? engine.turns.byIdempotencyKey(input.idempotency_key) : null;
  if (!prior) return null;
  return {
    prior,
    same: sameBody(prior.body_hash, { hash: input.body_hash ?? null, earlier: input.earlier_body_hash }),
  };
}

/** A repeated message's answer: its key's turn, replayed (JSON for an older turn whose stream the log no longer keeps). */
async function replay(engine: EngineMembers, prior: TurnRow, mode: AnswerMode): Promise<Result<TurnAnswer>> {
  const swept =
    mode === "stream" && engine.running?.turnId !== prior.id && !engine.streamLog.has(prior.id, prior.log_start);
  const first = prior.first_message_seq ?? 0;
  return { ok: true, ...(await engine.answer(prior, swept ? "json" : mode, first, true, prior.log_start)) };
}

/**
 * A repeat of a message, answered before its agent is resolved: the turn its Idempotency-Key names, replayed, when
 * its body is the same (null for anything else, which `sendMessage` decides). The turn stands whatever became of the
 * agent since (deleted, changed, D1 unreachable to say), and a replay takes no config.
 */
export function replayFirst(
  engine: EngineMembers,
  input: SendInput,
  mode: AnswerMode,
): Promise<Result<TurnAnswer>> | null {
  if (!input.idempotency_key) return null;
  engine.healOrphan();
  const known = keyedTurn(engine, input);
  return known?.same ? replay(engine, known.prior, mode) : null;
}

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
  const known = keyedTurn(engine, input);
  if (known && !known.same) {
    return failure("idempotency_conflict", "this Idempotency-Key was used with a different request body");
  }
  if (known) return replay(engine, known.prior, mode);
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
