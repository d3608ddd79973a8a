/**
 * Answers to approvals, the engine's side of a person's decision: answers
 * from the API or a useChat body (checked first, with the body's tool
 * outputs: nothing is written unless every answer and output is valid), the
 * expiry of an approval whose `approval_ttl_s` ran out (by the alarm, or by
 * an answer that came after it was due, which is refused), and the
 * `approval_declined` events of every decline. Declined calls get their
 * result at once; approved ones run when the turn resumes, which it does once
 * nothing else is awaited (the engine's `resumeIfReady`).
 */
import type { AgentConfig } from "../agents/types";
import type { Env } from "../env";
import type { Result } from "../model/errors";
import { failure } from "../model/errors";
import type { EventLog } from "../observability/events";
import {
  type Actor,
  type ApprovalAnswer,
  type ApprovalRow,
  type ApprovalStore,
  checkAnswers,
  declineOne,
  EXPIRED,
  expiredText,
} from "./approvals";
import { deleted } from "./deleted";
import type { HistoryStore, SuppliedResult } from "./history/store";
import type { AnswerMode, Mode, TurnAnswer } from "./rpc-types";
import type { SessionTools } from "./session-tools";
import { checkSupplied, pendingResults } from "./turn/answers";
import type { TurnRow, TurnStore } from "./turn/turn-store";

/** What answering needs of the engine (the engine itself; an interface, so this file does not import it). */
interface AnsweringEngine {
  readonly env: Env;
  readonly tools: SessionTools;
  readonly approvals: ApprovalStore;
  readonly turns: TurnStore;
  readonly history: HistoryStore;
  readonly eventLog: EventLog;
  tx<T>(fn: () => T): T;
  /** The delete tombstone (session-engine.ts): work that awaited I/O writes nothing once it moved. */
  readonly generation: number;
  stale(generation: number): boolean;
  resumeIfReady(
    agent: AgentConfig,
    before: TurnRow | null,
    mode: AnswerMode,
    since: number,
  ): Promise<Result<TurnAnswer>>;
}

/** Thrown inside the answering transaction to roll it back when a concurrent request decided first. */
const ANSWERED_ELSEWHERE = new Error("answered by another request");

/** Records one `approval_declined` event per declined approval. */
export function recordDeclined(
  eventLog: EventLog,
  rows: Array<{ id: string; call_id: string; name: string; turn_id: string }>,
  turnId: string | null,
  reason: string,
  by: Actor,
): void {
  for (const row of rows) {
    eventLog.record("approval_declined", turnId ?? row.turn_id, {
      approval_id: row.id,
      tool_use_id: row.call_id,
      tool: row.name,
      by,
      reason,
    });
  }
}

/**
 * Who answers and how: `fromChat`, a useChat body (signatures required, answered ones skipped). `mayDecide`
 * false: the caller may not decide approvals (a session token without `approve`), so a body with an answer for
 * a pending one is refused, while one that only repeats answered ones beside its outputs is not.
 */
export interface AnswerOptions {
  by: Actor;
  fromChat?: boolean;
  mayDecide?: boolean;
  onlyTurn?: string | null;
  outputs?: SuppliedResult[];
}

/**
 * Answers approvals (checked first: nothing is written unless every answer
 * is valid). Declined calls get their result now; approved ones run when
 * the turn resumes, which it does once nothing else is awaited. `onlyTurn`:
 * answers for approvals of any other turn are unknown (a run's approvals;
 * null: a run with no turn, which has none). `outputs`: the client tool
 * outputs of the same useChat message, checked and written with the answers.
 */
export async function answerApprovals(
  engine: AnsweringEngine,
  agent: AgentConfig,
  answers: ApprovalAnswer[],
  mode: Mode,
  opts: AnswerOptions,
): Promise<Result<TurnAnswer>> {
  const { by, fromChat = false, mayDecide = true, onlyTurn, outputs = [] } = opts;
  const generation = engine.generation;
  await engine.tools.refresh(agent, engine.env);
  const checked = await checkAnswers(engine.approvals, answers, {
    requireSignature: fromChat,
    skipAnswered: fromChat,
    ...(onlyTurn !== undefined ? { onlyTurn } : {}),
    now: Date.now(),
  });
  // The session was deleted while this awaited: nothing is written into the wiped object.
  if (engine.stale(generation)) return deleted();
  if (!checked.ok) return checked;
  // Only now is it known whether an answer decides anything (skipped repeats do not): refused before any write.
  if (!mayDecide) {
    return failure("insufficient_scope", 'these answers decide pending approvals, which needs the "approve" action');
  }
  const latest = engine.turns.latest();
  // The outputs are checked before anything is written, so a refused one leaves the approvals unanswered (a turn
  // resumed by them would run its tools for a refused request). Those no longer pending are no news: useChat
  // repeats every output of the message, a server tool's of an earlier step too.
  const pending = pendingResults(engine.history, outputs);
  if (!pending.ok) return pending;
  const { results } = pending;
  const usable = checkSupplied(engine, results, latest?.id ?? null);
  if (!usable.ok) return usable;
  const since = engine.history.nextSeq();
  // An answer to an approval past its expires_at whose expiry job has not run yet (the alarm may run late): it
  // expires now, as the job would have (the turn resumes if that was the last), and the answer is refused.
  const [first] = checked.expired;
  if (first) {
    if (declineExpired(engine, checked.expired).length > 0) await engine.resumeIfReady(agent, latest, "none", since);
    return failure("approval_expired", expiredText(first));
  }
  let decided: typeof checked.decide;
  try {
    decided = engine.tx(() => {
      const won = checked.decide.filter(({ row, answer }) =>
        answer.approved
          ? engine.approvals.decide(row.id, "approved", answer.reason ?? null, by)
          : declineOne(engine.approvals, engine.history, row, answer.reason, by),
      );
      // A concurrent request answered some of these first (the checks above awaited). Outside /chat, which leaves
      // answered approvals out on purpose, a refusal writes nothing: the rest of this body is rolled back too.
      if (won.length === 0 || (!fromChat && won.length < checked.decide.length)) throw ANSWERED_ELSEWHERE;
      for (const r of results) engine.history.storeResult(r.tool_use_id, "resolved", r.content, r.is_error);
      return won;
    });
  } catch (e) {
    if (e !== ANSWERED_ELSEWHERE) throw e;
    return failure("approval_already_answered", "these approvals were answered by another request");
  }
  for (const { row, answer } of decided) {
    engine.eventLog.record(answer.approved ? "approval_granted" : "approval_declined", row.turn_id, {
      approval_id: row.id,
      tool_use_id: row.call_id,
      tool: row.name,
      by,
      ...(answer.reason ? { reason: answer.reason } : {}),
    });
  }
  return engine.resumeIfReady(agent, latest, mode, since);
}

/** An approval whose `approval_ttl_s` ran out (the alarm): declined, and the turn resumes if that was the last. */
export async function expireApproval(engine: AnsweringEngine, agent: AgentConfig, approvalId: string): Promise<void> {
  const row = engine.approvals.get(approvalId);
  if (row?.status !== "pending") return;
  const generation = engine.generation;
  await engine.tools.refresh(agent, engine.env);
  if (engine.stale(generation)) return;
  const latest = engine.turns.latest();
  // The answer is discarded, but a turn that stays paused is answered with its messages since this seq: none,
  // rather than every row of the history (since 0) read and parsed for nothing.
  const since = engine.history.nextSeq();
  if (declineExpired(engine, [row]).length === 0) return;
  // No stream: an opened one would take a client's place among the object's streams, for nothing.
  await engine.resumeIfReady(agent, latest, "none", since);
}

/**
 * Declines approvals whose `approval_ttl_s` ran out (the alarm, or an answer that came after it was due) with their
 * calls' results and `approval_declined` events by `ttl`; returns those still pending until now. Resuming is the
 * caller's.
 */
function declineExpired(engine: AnsweringEngine, rows: ApprovalRow[]): ApprovalRow[] {
  const done = engine.tx(() => rows.filter((row) => declineOne(engine.approvals, engine.history, row, EXPIRED, "ttl")));
  recordDeclined(engine.eventLog, done, null, EXPIRED, "ttl");
  return done;
}
