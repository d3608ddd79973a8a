/**
 * Debug/bench only (`SWITCHBOARD_DEBUG_SEED`, off in production): writes
 * finished one-step text turns straight into a session's stored history, so a
 * benchmark can build a 10,000-message session in seconds instead of running
 * 5,000 model turns. Each pair goes through the write path of a real turn —
 * `closeOpenCalls` for the user message, a `turns` row pointing at it, the
 * assistant message through `appendAssistantParts`, the turn ended
 * `completed` — in one transaction per call, so the history, the turn rows
 * and the compaction view are the same as after real turns (no events, no
 * stream-log rows, no provider request, no compaction: the next real turn
 * compacts what the seeded turns added, as it would have).
 */
import { newId } from "../crypto/new-id";
import type { Result } from "../model/errors";
import { failure } from "../model/errors";
import { isPaused } from "../model/turn";
import type { SessionEngine } from "./session-engine";

export interface SeedTurn {
  user: string;
  assistant: string;
}

/** Turns one call may write (one transaction; every message stays far below the row limit). */
export const SEED_TURNS_MAX = 500;

export function seedTurns(
  engine: SessionEngine,
  turns: readonly SeedTurn[],
): Result<{ turns: number; messages: number }> {
  const latest = engine.turns.latest();
  if (engine.running || isPaused(latest?.status)) {
    return failure("turn_in_progress", "cannot seed while a turn is running or paused");
  }
  engine.tx(() => {
    for (const t of turns) {
      const id = newId("turn");
      const { message } = engine.history.closeOpenCalls({
        turnId: id,
        reason: "seeded",
        extra: [{ type: "text", text: t.user }],
        origin: "client",
      });
      engine.turns.create({
        id,
        kind: "message",
        max_steps: 1,
        log_start: engine.streamLog.head(),
        idempotency_key: null,
        body_hash: null,
        first_message_seq: message?.seq ?? null,
      });
      engine.history.appendAssistantParts(id, null, [{ type: "text", text: t.assistant }], () => "unknown");
      engine.turns.finish(id, "completed", "stop", null);
    }
  });
  return { ok: true, turns: turns.length, messages: turns.length * 2 };
}
