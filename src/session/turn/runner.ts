import { inSpan } from "../../observability/tracing";
import type { StopReason } from "../../providers/types";
import type { TurnStatus, UiFinishReason } from "../stream/turn-events";
import type { RunnerDeps, TurnContext } from "./context";
import { TurnOutput } from "./output";
import { runStep, stepRequest } from "./step";
import { contractOf, missingStructured, STRUCTURED_OUTPUT } from "./structured";
import { answerStructured, runTools } from "./tool-phase";
import type { TurnError } from "./turns";

export type { RunnerDeps } from "./context";

const FINISH: Record<StopReason, UiFinishReason> = {
  end_turn: "stop",
  tool_use: "tool-calls",
  max_tokens: "length",
  stop_sequence: "stop",
  refusal: "content-filter",
  other: "other",
};

/**
 * Runs one segment of a turn: steps until the model stops calling tools, the
 * turn pauses for client tools, max_steps, cancel or error. Lives in the DO,
 * detached from any client connection. `run` never throws.
 */
export class TurnRunner implements TurnContext {
  readonly #abort = new AbortController();
  #cancelReason: string | null = null;
  readonly out: TurnOutput;
  /** The deferred-tools listing is fixed for the turn, so the system prompt stays byte-stable across steps. */
  #listing: string | null = null;

  constructor(
    readonly d: RunnerDeps,
    readonly turnId: string,
  ) {
    this.out = new TurnOutput(d.log, turnId);
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

  tx<T>(fn: () => T): T {
    try {
      return this.d.storage.transactionSync(fn);
    } catch (e) {
      this.d.history.invalidate();
      throw e;
    }
  }

  async run(): Promise<void> {
    const { turns, history, tools, agent } = this.d;
    this.out.emit({ type: "turn_start", turn_id: this.turnId, message_id: `msg_${this.turnId}` });
    try {
      for (;;) {
        if (this.cancelled) return this.#finishCancelled();
        const turn = turns.get(this.turnId);
        if (!turn) return;
        const contract = contractOf(turn);
        if (turn.steps >= turn.max_steps) {
          if (contract) return this.#fail(missingStructured(turn.steps, history.messages()));
          return this.#finish("completed", "max_steps", "other", null);
        }
        const step = turn.steps + 1;
        this.out.emit({ type: "step_start", step });
        this.#listing ??= tools.registry(agent).searchEnabled ? tools.listing() : "";
        const request = stepRequest(this, contract, this.#listing);
        const result = await inSpan(
          "switchboard.step",
          {
            "switchboard.turn_id": this.turnId,
            "switchboard.step": step,
            "switchboard.provider": agent.model.provider,
          },
          () => runStep(this, step, request),
        );
        if (result.kind === "cancelled") return this.#finishCancelled();
        if (result.kind === "failed") return this.#fail(result.error);
        turns.stepDone(this.turnId);
        const calls = result.messageSeq === null ? [] : history.toolUsesOf(result.messageSeq);
        if (calls.length === 0) {
          this.out.emit({ type: "step_finish", step });
          if (contract) return this.#fail(missingStructured(step, history.messages()));
          return this.#finish("completed", result.stop, FINISH[result.stop], null);
        }
        if (answerStructured(this, calls, contract, result.malformed).delivered) {
          this.out.emit({ type: "step_finish", step });
          return this.#finish("completed", "structured_output", "stop", null);
        }
        const rest = calls.filter((c) => c.name !== STRUCTURED_OUTPUT);
        const waiting = await runTools(this, rest, result.malformed);
        this.out.emit({ type: "step_finish", step });
        if (this.cancelled) return this.#finishCancelled();
        if (waiting) return this.#pause();
        this.tx(() =>
          history.closeOpenCalls({
            turnId: this.turnId,
            reason: "no result was recorded",
            declarations: tools.takeDeclarations(agent),
          }),
        );
      }
    } catch (e) {
      // A bug must not leave the turn "running" forever: fail it visibly.
      console.error(JSON.stringify({ level: "error", msg: "turn_crashed", turn_id: this.turnId, error: String(e) }));
      return this.#fail({ code: "internal_error", message: String(e) });
    }
  }

  #pause(): void {
    this.d.turns.setStatus(this.turnId, "awaiting_tool_results");
    const pending = this.d.history
      .openCalls()
      .filter((c) => c.state === "pending")
      .map((c) => ({ id: c.id, name: c.name }));
    this.out.emit({ type: "data", name: "awaiting-tool-results", data: { tool_calls: pending }, transient: true });
    this.out.emit({ type: "turn_finish", status: "awaiting_tool_results", finish_reason: "tool-calls" });
    this.out.close();
    this.d.onSettled(this.turnId, "awaiting_tool_results");
  }

  #finishCancelled(): void {
    const reason = this.#cancelReason ?? "the turn was cancelled";
    const { synthesized } = this.tx(() => this.d.history.closeOpenCalls({ turnId: this.turnId, reason }));
    if (synthesized.length > 0) {
      this.d.events.record("tool_result_synthesized", this.turnId, { tool_use_ids: synthesized, reason });
    }
    this.#finish("cancelled", "cancelled", "other", null);
  }

  #fail(error: TurnError): void {
    this.#finish("failed", "error", "error", error);
  }

  #finish(status: TurnStatus, reason: string, finish: UiFinishReason, error: TurnError | null): void {
    this.d.turns.finish(this.turnId, status, reason, error);
    this.out.flush();
    this.d.events.record("turn_finished", this.turnId, {
      status,
      finish_reason: reason,
      // Stream frames (coalesced chunks) this segment sent and the text they carried: the coalescing figure.
      stream_rows: this.out.rowsWritten,
      text_chars: this.out.deltaChars,
      ...(error ? { error } : {}),
    });
    if (error) this.out.emit({ type: "turn_error", code: error.code, message: error.message });
    this.out.emit({
      type: "data",
      name: "turn",
      data: { turn_id: this.turnId, status, finish_reason: reason },
      transient: true,
    });
    this.out.emit({ type: "turn_finish", status, finish_reason: finish });
    this.out.close();
    this.d.onSettled(this.turnId, status);
  }
}
