/**
 * Answers to approvals, the engine's side of a person's decision: answers
 * from the API or a useChat body, checked first with the body's tool outputs
 * (`checkAnswers`: nothing is written unless every answer and output is
 * valid), the expiry of an approval whose `approval_ttl_s` ran out (by the
 * alarm's `approval` job, `expireByJob`, which ends the paused turn instead
 * when its agent is gone; or by an answer that came after it was due, which is
 * refused), the declines of every pending approval when the user moves on or
 * the turn is cancelled or fails (`declineOpen`), and the `approval_declined`
 * events of every decline. Declined calls get their result at once; approved
 * ones run when the turn resumes, which it does once nothing else is awaited
 * (the engine's `resumeIfReady`).
 */
import type { AgentConfig } from "../agents/types";
import { declinedText } from "../model/declined";
import type { Result } from "../model/errors";
import { failure } from "../model/errors";
import type { JsonValue } from "../model/json";
import type { EventLog } from "../observability/event-log";
import { type Actor, type ApprovalAnswer, type ApprovalRow, type ApprovalStore, EXPIRED } from "./approval-store";
import { deleted } from "./deleted";
import type { EngineMembers } from "./engine-members";
import type { SuppliedResult } from "./history/close-open-calls";
import type { HistoryStore } from "./history/history-store";
import { refreshTools } from "./refresh-tools";
import type { Mode, TurnAnswer } from "./rpc-types";
import type { Scheduler } from "./scheduler";
import { checkSupplied, pendingResults } from "./turn/answers";

/** What answering needs of the engine (engine-members.ts: an interface, so this file does not import it). */
type AnsweringEngine = Pick<
  EngineMembers,
  "env" | "tools" | "approvals" | "turns" | "history" | "eventLog" | "tx" | "generation" | "stale" | "resumeIfReady"
>;

/** What ending a paused turn needs of the engine besides answering (an expiry whose agent is gone). */
interface ExpiringEngine extends AnsweringEngine {
  cancel(): Promise<unknown>;
}

/**
 * What the alarm's expiry of an approval needs (jobs.ts): the engine, the jobs, the session's agent (null: deleted,
 * or the session deleted during its D1 read), `gone` (the session was deleted while the alarm's work awaited), and
 * `failRun` (the paused turn's run, if it has one still open, fails `agent_missing`: SessionRuns.failAgentMissing).
 */
interface ExpiryDeps {
  engine: ExpiringEngine;
  scheduler: Scheduler;
  agent: () => Promise<AgentConfig | null>;
  gone: () => boolean;
  failRun: (turnId: string) => void;
}

/** Thrown inside the answering transaction to roll it back when a concurrent request decided first. */
const ANSWERED_ELSEWHERE = new Error("answered by another request");

/** The refusal of an answer to an approval whose `approval_ttl_s` ran out (`409 approval_expired`). */
function expiredText(row: ApprovalRow): string {
  return `approval ${row.id} expired and was declined (the agent's approval_ttl_s)`;
}

/**
 * Checks answers before anything is written: duplicates → 400; an id this
 * session never issued → 404 unknown_approval; a call id, input or signature
 * that does not match what was issued → 409 approval_mismatch /
 * approval_signature_mismatch; an approval its `approval_ttl_s` declined →
 * 409 approval_expired, any other answered one → 409
 * approval_already_answered (or, with `skipAnswered`, either silently left
 * out: a useChat body repeats earlier answers). Returns the approvals to
 * decide, and apart from them those still pending past their `expires_at`
 * (`now`), which the caller declines as expired, as the alarm would have,
 * and refuses (the alarm may run late).
 */
async function checkAnswers(
  store: ApprovalStore,
  answers: ApprovalAnswer[],
  opts: { requireSignature: boolean; skipAnswered: boolean; onlyTurn?: string | null; now: number },
): Promise<Result<{ decide: Array<{ row: ApprovalRow; answer: ApprovalAnswer }>; expired: ApprovalRow[] }>> {
  const seen = new Set<string>();
  for (const a of answers) {
    if (seen.has(a.approval_id)) return failure("invalid_request", `duplicate answer for ${a.approval_id}`);
    seen.add(a.approval_id);
  }
  const decide: Array<{ row: ApprovalRow; answer: ApprovalAnswer }> = [];
  const expired: ApprovalRow[] = [];
  let skippedExpired = false;
  for (const a of answers) {
    const row = store.get(a.approval_id);
    if (!row) return failure("unknown_approval", `no approval with id ${a.approval_id} in this session`);
    if (opts.onlyTurn !== undefined && row.turn_id !== opts.onlyTurn) {
      return failure("unknown_approval", `no approval with id ${a.approval_id} for this run`);
    }
    if (a.tool_call_id !== undefined && a.tool_call_id !== row.call_id) {
      return failure("approval_mismatch", `approval ${a.approval_id} is not for tool call ${a.tool_call_id}`);
    }
    if (opts.requireSignature && a.signature === undefined) {
      return failure("approval_signature_mismatch", `approval ${a.approval_id} carries no signature`);
    }
    if (a.signature !== undefined) {
      const input = a.input === undefined ? (JSON.parse(row.input) as JsonValue) : a.input;
      if (!(await store.verify(a.signature, row.id, row.call_id, row.name, input))) {
        return failure(
          "approval_signature_mismatch",
          `the signature of approval ${a.approval_id} does not match this session, call and input`,
        );
      }
    }
    if (row.status === "pending" && row.expires_at !== null && row.expires_at <= opts.now) {
      expired.push(row);
      continue;
    }
    if (row.status !== "pending") {
      const lapsed = row.decided_by === "ttl";
      if (opts.skipAnswered) {
        skippedExpired ||= lapsed;
        continue;
      }
      if (lapsed) return failure("approval_expired", expiredText(row));
      return failure("approval_already_answered", `approval ${a.approval_id} was already ${row.status}`);
    }
    decide.push({ row, answer: a });
  }
  if (decide.length === 0 && expired.length === 0) {
    if (skippedExpired) return failure("approval_expired", "the approvals answered expired and were declined");
    return failure("approval_already_answered", "none of the answers is for an approval still waiting");
  }
  return { ok: true, decide, expired };
}

/**
 * Declines every pending approval with `reason` and gives its call the
 * declined result; SQL only, so it runs inside the transaction that admits a
 * new user message (or cancels, retries, expires) — then `closeOpenCalls`
 * writes those results like any other. Returns the approvals declined.
 */
export function declineOpen(store: ApprovalStore, history: HistoryStore, reason: string, by: Actor): ApprovalRow[] {
  const open = store.pending();
  for (const row of open) declineOne(store, history, row, reason, by);
  return open;
}

/** One decline: the approval row and the call's `is_error` result, together (SQL only). */
function declineOne(
  store: ApprovalStore,
  history: HistoryStore,
  row: ApprovalRow,
  reason: string | undefined,
  by: Actor,
): boolean {
  if (!store.decide(row.id, "declined", reason ?? null, by)) return false;
  history.storeResult(row.call_id, "resolved", declinedText(reason), true);
  return true;
}

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

/**
 * The alarm's `approval` job: the approval's `approval_ttl_s` ran out, in any session (a webhook run's or not).
 * Declined with that reason (the turn resumes if it was the last); with its agent deleted (and no copy kept) the
 * turn could never resume: it is ended instead (`endOrphaned`).
 */
export async function expireByJob(deps: ExpiryDeps, approvalId: string): Promise<void> {
  const agent = await deps.agent();
  if (deps.gone()) return; // deleted during the agent's read: the job went with the tables
  if (agent) await expireApproval(deps.engine, agent, approvalId);
  else await endOrphaned(deps, approvalId);
  deps.scheduler.remove("approval", approvalId);
}

/**
 * The paused turn of an expired approval whose agent is gone. Left paused it would block every run behind it
 * forever (SessionRuns.blocked); it is cancelled, declining its open approvals, and its run fails `agent_missing`
 * (failed first, so the cancel's settled hook leaves it so). The runs queued behind then start and fail the same way.
 */
async function endOrphaned(deps: ExpiryDeps, approvalId: string): Promise<void> {
  const { engine } = deps;
  const approval = engine.approvals.get(approvalId);
  const latest = engine.turns.latest();
  if (approval?.status !== "pending" || latest?.id !== approval.turn_id || latest.status !== "awaiting_approval") {
    return;
  }
  deps.failRun(latest.id);
  await engine.cancel();
}

/** An approval whose `approval_ttl_s` ran out (the alarm): declined, and the turn resumes if that was the last. */
async function expireApproval(engine: AnsweringEngine, agent: AgentConfig, approvalId: string): Promise<void> {
  const row = engine.approvals.get(approvalId);
  if (row?.status !== "pending") return;
  const refreshed = await refreshTools(engine, agent);
  if (!refreshed.ok) return;
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
