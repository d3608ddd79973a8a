/**
 * The step loop of a turn: `TurnRunner` runs provider steps and tool phases until the turn completes,
 * pauses for client results or approvals, is cancelled or fails, and streams its progress. `run` never
 * throws, and the engine is told exactly once that the turn stopped running.
 */
import type { ErrorInfo } from "../../model/errors";
import type { StopReason } from "../../model/stream";
import type { TurnStatus } from "../../model/turn";
import { log } from "../../observability/log";
import { inSpan } from "../../observability/tracing";
import { getAdapter } from "../../providers/index";
import { declineOpen, recordDeclined } from "../approval-answers";
import { runBudgetedStep } from "../compaction/run-budgeted-step";
import type { ToolCallRow } from "../history/call-ledger";
import { sessionTx } from "../session-tx";
import type { UiFinishReason } from "../stream/turn-events";
import { announceClientResults, awaitingClient } from "./answers";
import { announceAnswers, deliverAnswers } from "./approval-resume";
import type { RunnerDeps, TurnContext } from "./context";
import { executionOf, stepRequest } from "./step";
import { contractOf, cutStructured, missingStructured, STRUCTURED_OUTPUT } from "./structured";
import { answerStructured, runTools } from "./tool-phase";
import { TurnOutput } from "./turn-output";
import { outcomeOf } from "./turn-store";

/** The reason a turn's signal carries once the turn is over: one value for all (an Error per turn costs a stack). */
const TURN_ENDED = new Error("the turn ended");

const FINISH: Record<StopReason, UiFinishReason> = {
  end_turn: "stop",
  tool_use: "tool-calls",
  max_tokens: "length",
  stop_sequence: "stop",
  refusal: "content-filter",
  other: "other",
};

/** How a segment left its turn, for the turn's span: paused (a status only), or ended, with its reason and error. */
interface SegmentEnd {
  status: TurnStatus;
  finish_reason?: string;
  error?: ErrorInfo;
}

/**
 * Runs one segment of a turn: steps until the model stops calling tools, the
 * turn pauses for client tools, max_steps, cancel or error. Lives in the DO,
 * detached from any client connection. `run` never throws.
 */
export class TurnRunner implements TurnContext {
  readonly #abort = new AbortController();
  #cancelReason: string | null = null;
  #settled = false;
  /** What the runner meant the segment's end to be: the turn's stored end, else the status the engine was told. */
  #end: SegmentEnd | null = null;
  /** How a pause left the turn (the engine is told in `#settle`). */
  #pausedAs: TurnStatus = "awaiting_tool_results";
  readonly out: TurnOutput;
  /** The deferred-tools listing is fixed for the turn, so the system prompt stays byte-stable across steps. */
  #listing: string | null = null;

  readonly deps: RunnerDeps;
  readonly turnId: string;
  /**
   * The paused step's calls as the segment that resumes it found them; it tells the results clients gave (each
   * reached the session after the pause's stream ended, or while its step still ran).
   */
  readonly #answered: readonly ToolCallRow[];

  constructor(deps: RunnerDeps, turnId: string, answered: readonly ToolCallRow[] = []) {
    this.deps = deps;
    this.turnId = turnId;
    this.#answered = answered;
    // Event log lines held by admission (admit-turn.ts) go out once the provider's answer is on its way (or, in
    // `#steps`, once its request has returned).
    this.out = new TurnOutput(
      deps.streamLog,
      turnId,
      () => setTimeout(() => deps.eventLog.release(), 0),
      // Only a client tool's calls are the client's to run; everything else (an unknown name too) the session answers.
      (name) => executionOf(this)(name) !== "client",
    );
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  get cancelled(): boolean {
    return this.#cancelReason !== null;
  }

  cancel(reason: string): void {
    this.#cancelReason = reason;
    this.#abort.abort(new Error(reason));
  }

  /** One SQLite transaction (session-tx.ts); a rollback drops every store's in-memory rows. */
  tx<T>(fn: () => T): T {
    return sessionTx(this.deps, fn);
  }

  /** Runs the segment; answers how it left the turn (never throws). */
  async run(): Promise<SegmentEnd> {
    try {
      // One UI message id per turn, every segment: a client continues it after a pause (the web client builds it
      // from a stored turn id, web/src/live-turns.ts turnMessageId).
      this.out.emit({ type: "turn_start", turn_id: this.turnId, message_id: `msg_${this.turnId}` });
      // A segment resumed at the turn's step limit runs no step: the message's empty last step goes out before the
      // answers it tells (UiEncoder `#emptyStep` says why).
      const turn = this.deps.turns.get(this.turnId);
      if (turn && turn.steps >= turn.max_steps) this.out.emit({ type: "no_more_steps" });
      announceClientResults(this, this.#answered);
      // A segment resumed after approvals first delivers them (runs approved calls, writes the results).
      await deliverAnswers(this);
      await this.#steps();
    } catch (e) {
      // A bug must not leave the turn "running" forever: fail it visibly (unless it already ended).
      log("error", "turn_crashed", { turn_id: this.turnId, error: String(e) });
      if (!this.#settled) this.#fail({ code: "internal_error", message: String(e) });
    } finally {
      // Sibling tool calls of a failed turn stop; their results are never written.
      if (!this.#abort.signal.aborted) this.#abort.abort(TURN_ENDED);
      this.#settle("failed");
    }
    return this.#recorded();
  }

  /**
   * How the turn's row says this segment left it, for the turn's span: when the runner's own end could not be
   * written, the engine ended the row itself (endStuckTurn: failed, internal_error), and the span says so too.
   */
  #recorded(): SegmentEnd {
    const meant = this.#end ?? { status: "failed" };
    try {
      const row = this.deps.turns.get(this.turnId);
      // Gone with a deleted session: what the runner meant is all there is.
      if (!row) return meant;
      // Neither end was written: the next call to the object fails the turn (healOrphan).
      if (row.status === "running") return { status: "failed" };
      const { status, finish_reason, error } = outcomeOf(row);
      return { status, ...(finish_reason ? { finish_reason } : {}), ...(error ? { error } : {}) };
    } catch {
      return meant;
    }
  }

  async #steps(): Promise<void> {
    const { turns, history, tools, agent } = this.deps;
    for (;;) {
      if (this.cancelled) return this.#finishCancelled();
      const turn = turns.get(this.turnId);
      if (!turn) return;
      // Checked before each step: a turn whose stored json_schema no longer compiles must not run on without it.
      const terms = contractOf(turn);
      if (!terms.ok) return this.#fail(terms.error);
      const { contract } = terms;
      if (turn.steps >= turn.max_steps) {
        if (contract) return this.#fail(missingStructured(turn.steps, history.messages(), this.turnId, "max_steps"));
        return this.#finish("completed", "max_steps", "other", null);
      }
      const step = turn.steps + 1;
      this.out.emit({ type: "step_start", step });
      // The listing frozen in the baseline, while anything is deferred: without deferred tools there are no
      // built-ins to load them with, and the listing would send the model after tools it cannot call.
      const reg = tools.registry(agent);
      this.#listing ??= reg.searchEnabled && reg.hasDeferred() ? tools.listing() : "";
      const listing = this.#listing;
      const result = await inSpan(
        "switchboard.step",
        {
          "switchboard.turn_id": this.turnId,
          "switchboard.step": step,
          "switchboard.provider": agent.model.provider,
        },
        () => runBudgetedStep(this, step, () => stepRequest(this, contract, listing)),
      );
      // Admission's log lines go out now at the latest (a step that streamed nothing, or failed): the request they
      // were held back from delaying is over, and a line held longer is lost if the object is evicted.
      this.deps.eventLog.release();
      if (result.kind === "cancelled") return this.#finishCancelled();
      if (result.kind === "failed") return this.#fail(result.error);
      turns.stepDone(this.turnId);
      const calls = result.messageSeq === null ? [] : history.toolUsesOf(result.messageSeq);
      if (calls.length === 0) {
        this.out.emit({ type: "step_finish", step });
        // The output limit or a refusal cut off the call the turn waited for: the turn fails with that stop as its
        // finish reason, not as a model that ended it in text.
        const { stop } = result;
        if (contract && (stop === "max_tokens" || stop === "refusal") && result.stripped.includes(STRUCTURED_OUTPUT)) {
          const limit = getAdapter(agent.model.provider).outputTokens(agent.model);
          return this.#fail(cutStructured(stop, limit), stop);
        }
        if (contract) return this.#fail(missingStructured(step, history.messages(), this.turnId, "model"));
        return this.#finish("completed", stop, FINISH[stop], null);
      }
      if (answerStructured(this, calls, contract, result.malformed).delivered) {
        this.out.emit({ type: "step_finish", step });
        return this.#finish("completed", "structured_output", "stop", null);
      }
      const rest = calls.filter((c) => c.name !== STRUCTURED_OUTPUT);
      const waiting = await runTools(this, rest, result.malformed);
      // Results clients gave while the step's other calls ran, told with the step when it goes on now (a pause
      // leaves them to the segment that resumes it).
      if (!waiting || this.deps.approvals.readyToResume()) announceClientResults(this, history.openCalls());
      this.out.emit({ type: "step_finish", step });
      if (this.cancelled) return this.#finishCancelled();
      if (waiting) {
        if (!this.deps.approvals.readyToResume()) {
          this.#announceDecided();
          return this.#pause();
        }
        // Every approval of the step was answered while its siblings ran: deliver the answers now.
        await deliverAnswers(this);
        if (this.cancelled) return this.#finishCancelled();
        continue;
      }
      // Every approval of the step was declined while its siblings ran (the results are stored): told before it closes.
      this.#announceDecided();
      const { unloaded } = this.tx(() =>
        tools.closeOpenCalls(agent, { turnId: this.turnId, reason: "no result was recorded" }),
      );
      if (unloaded.length)
        this.deps.eventLog.record("tools_unloaded", this.turnId, { names: unloaded, reason: "row_limit" });
    }
  }

  /** Tells the engine the turn stopped running: exactly once, whatever threw before. */
  #settle(status: TurnStatus): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#end ??= { status };
    // The engine hears of it before the stream ends: when the end row could not be written, the engine's own end
    // (endStuckTurn) still reaches the clients on the stream, after everything this turn sent.
    try {
      this.out.flush();
    } finally {
      try {
        this.deps.onSettled(this.turnId, status);
      } finally {
        this.out.close();
      }
    }
  }

  /**
   * The step's approvals answered while its siblings still ran (the API, a run's route, the TTL, another tab's
   * /chat): the stream tells them now, or its clients keep offering to answer them (and get 409 when they do).
   */
  #announceDecided(): void {
    const decided = this.deps.approvals.onOpenCalls().filter((r) => r.status !== "pending");
    if (decided.length === 0) return;
    announceAnswers(this, decided);
    // The segment that resumes a pause delivers the answers of its open calls: these it must not tell again.
    this.tx(() => this.deps.approvals.markAnnounced(decided.map((r) => r.id)));
  }

  #pause(): void {
    try {
      const asked = this.deps.approvals.pending();
      // A person's answer is awaited first; client results may come in meanwhile (the turn resumes when all are in).
      const status = asked.length > 0 ? "awaiting_approval" : "awaiting_tool_results";
      this.deps.turns.setStatus(this.turnId, status);
      const pending = awaitingClient(this.deps.history, this.deps.approvals);
      if (pending.length > 0) {
        this.out.emit({ type: "data", name: "awaiting-tool-results", data: { tool_calls: pending }, transient: true });
      }
      if (asked.length > 0) {
        const approvals = asked.map((a) => ({ approval_id: a.id, tool_call_id: a.call_id, name: a.name }));
        this.out.emit({ type: "data", name: "awaiting-approval", data: { approvals }, transient: true });
      }
      this.out.emit({ type: "turn_finish", status, finish_reason: "tool-calls" });
      this.#pausedAs = status;
    } finally {
      this.#settle(this.#pausedAs);
    }
  }

  #finishCancelled(): void {
    const reason = this.#cancelReason ?? "the turn was cancelled";
    const { synthesized, declined } = this.tx(() => {
      // Approvals the step asked for end with it (declined, the call's result says so): none is left open for a
      // person to decide on a call that will never run.
      const declined = declineOpen(this.deps.approvals, this.deps.history, reason, "cancel");
      return { ...this.deps.history.closeOpenCalls({ turnId: this.turnId, reason }), declined };
    });
    recordDeclined(this.deps.eventLog, declined, this.turnId, reason, "cancel");
    if (synthesized.length > 0) {
      this.deps.eventLog.record("tool_result_synthesized", this.turnId, { tool_use_ids: synthesized, reason });
    }
    // The stream carries what was stored, so no client keeps a call waiting (or an approval to answer, or an
    // answered one to send again): the declined calls, and the results the cancel wrote for the others.
    this.out.closedCalls(declined, synthesized, reason);
    this.#finish("cancelled", "cancelled", "other", null);
  }

  /** Ends the turn failed: its finish reason is "error", or the step's stop when that stop failed it. */
  #fail(error: ErrorInfo, stop?: StopReason): void {
    try {
      // As for a cancel: the approvals the step asked for end with the turn, none left open to decide.
      const reason = "the turn failed";
      const declined = this.tx(() => declineOpen(this.deps.approvals, this.deps.history, reason, "failure"));
      recordDeclined(this.deps.eventLog, declined, this.turnId, reason, "failure");
      this.out.closedCalls(declined, [], reason);
    } catch (e) {
      // The turn still ends (the next admission declines what is left).
      log("error", "approvals_decline_failed", { turn_id: this.turnId, error: String(e) });
    }
    this.#finish("failed", stop ?? "error", stop ? FINISH[stop] : "error", error);
  }

  #finish(status: TurnStatus, reason: string, finish: UiFinishReason, error: ErrorInfo | null): void {
    try {
      this.deps.turns.finish(this.turnId, status, reason, error);
      this.#end = { status, finish_reason: reason, ...(error ? { error } : {}) };
    } catch (e) {
      // The end was not written: no end is reported that did not happen. The engine hears the turn stopped and
      // ends the row itself (endStuckTurn), with the one true turn_finished and stream end.
      this.#settle(status);
      throw e;
    }
    this.#report(status, reason, finish, error);
  }

  /** The turn's end as events and stream chunks; the engine hears of it even when one of these writes throws. */
  #report(status: TurnStatus, reason: string, finish: UiFinishReason, error: ErrorInfo | null): void {
    try {
      this.#emitEnd(status, reason, finish, error);
    } finally {
      this.#settle(status);
    }
  }

  #emitEnd(status: TurnStatus, reason: string, finish: UiFinishReason, error: ErrorInfo | null): void {
    this.out.flush();
    try {
      this.deps.eventLog.record("turn_finished", this.turnId, {
        status,
        finish_reason: reason,
        // Stream frames (coalesced chunks) this segment sent and the text they carried: the coalescing figure.
        stream_rows: this.out.rowsWritten,
        text_chars: this.out.deltaChars,
        ...(error ? { error } : {}),
      });
    } finally {
      // The end is stored: clients are told it even when its event could not be written.
      this.out.end(this.turnId, status, reason, finish, error);
    }
  }
}
