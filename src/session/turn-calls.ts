/**
 * The calls that start or resume a turn (`TurnCalls`): the session object's `sendMessage`, `submitToolResults`,
 * `answerApprovals` and `retry`, and the same calls over its `fetch` (turn-wire.ts). Each passes the object's guard,
 * gets the agent config for its turn (agent-cache.ts), has its storage work counted, and commits a newer config as
 * the session's copy once the call ended a pause. A message repeated with its Idempotency-Key is replayed before
 * any of that config is resolved (send-message.ts `replayFirst`).
 */
import type { AgentConfig } from "../agents/types";
import type { Result } from "../model/errors";
import type { AgentArg } from "./agent-cache";
import type { AnswerOptions } from "./approval-answers";
import type { ApprovalAnswer } from "./approval-store";
import type { SuppliedResult } from "./history/close-open-calls";
import type { Mode, Reply, SendInput, SessionInfo, TurnAnswer, TurnCall, TurnReply } from "./rpc-types";
import type { SessionRuns } from "./runs/session-runs";
import { replayFirst } from "./send-message";
import type { SessionEngine } from "./session-engine";
import { missing, type SessionRecord } from "./session-record";
import { answerResponse, readCall } from "./turn-wire";
import { yieldTurn } from "./yield-turn";

/**
 * What the turn calls need of the object: what it holds, the engine, the runs (a run's turn), the agent config for
 * a call (Session's `#agent`) and its count of a call's storage work (Session's `#counted`).
 */
interface TurnCallDeps {
  record: SessionRecord;
  engine: SessionEngine;
  runs: SessionRuns;
  agent: (
    info: SessionInfo,
    arg: AgentArg,
    admission: boolean,
  ) => Promise<Result<{ agent: AgentConfig; commit?: () => void }>>;
  counted: <R extends object>(fn: () => Promise<R>) => Promise<Reply<R>>;
}

export class TurnCalls {
  readonly #deps: TurnCallDeps;

  constructor(deps: TurnCallDeps) {
    this.#deps = deps;
  }

  /** Runs a turn RPC, its storage work counted (`#counted`). */
  async #turn(
    arg: AgentArg,
    fn: (agent: AgentConfig) => Promise<Result<TurnAnswer>>,
    admission = false,
  ): Promise<TurnReply> {
    const { record, counted } = this.#deps;
    return record.existing((info) => counted(() => this.#admitted(info, arg, fn, admission)));
  }

  async #admitted(
    info: SessionInfo,
    arg: AgentArg,
    fn: (agent: AgentConfig) => Promise<Result<TurnAnswer>>,
    admission: boolean,
  ): Promise<Result<TurnAnswer>> {
    const agent = await this.#deps.agent(info, arg, admission);
    if (!agent.ok) return agent;
    const answer = await fn(agent.agent);
    // A newer config read while a turn was paused is the session's copy once this call ended that pause: it
    // admitted a turn, which ends a paused one. A replay (an Idempotency-Key seen before) admits nothing, and the
    // pause it finds may have been ended meanwhile by another call, which stored the config its own turn runs with.
    if (agent.commit && answer.ok && !answer.replayed) agent.commit();
    return answer;
  }

  /**
   * The worker's turn calls (turn-wire.ts): the same methods as below, a streamed answer as the response body.
   * A streamed answer leaves on the runtime's next timer (`yieldTurn`): by then the admission has committed and
   * the provider request it was held for has been written, so the worker's handling of the answer no longer goes
   * before that request on a shared thread (first text delta −0.24 ms at concurrency 1 in `bench/ab.mjs`, README
   * "The turn path"). Its frames wait in the stream meanwhile.
   */
  async fetch(request: Request): Promise<Response> {
    const c = await readCall<TurnCall>(request);
    // The methods below check the rest (`existing`); a stale token is refused before anything is read for it.
    if (this.#deps.record.foreign(c.stamp)) return answerResponse(missing());
    const answer = await this.#call(c);
    if (answer.ok && answer.stream) await yieldTurn();
    return answerResponse(answer);
  }

  #call(c: TurnCall): Promise<TurnReply> {
    switch (c.call) {
      case "sendMessage":
        return this.sendMessage(c.agent, c.input, c.mode);
      case "submitToolResults":
        return this.submitToolResults(c.agent, c.results, c.mode, c.onlyPending);
      case "answerApprovals":
        return this.answerApprovals(c.agent, c.answers, c.mode, {
          by: c.by,
          fromChat: c.fromChat,
          run: c.run,
          outputs: c.outputs,
          mayDecide: c.mayDecide,
        });
      case "retry":
        return this.retry(c.agent, c.mode);
      default:
        throw new Error(`unknown turn call: ${JSON.stringify((c as { call?: unknown }).call)}`);
    }
  }

  async sendMessage(agent: AgentArg, input: SendInput, mode: Mode): Promise<TurnReply> {
    const { record, counted, engine } = this.#deps;
    // A repeat's turn stands whatever became of its agent: replayed before the agent is resolved (and refused).
    return record.existing((info) =>
      counted(
        () =>
          replayFirst(engine, input, mode) ??
          this.#admitted(info, agent, (a) => engine.sendMessage(a, input, mode), true),
      ),
    );
  }

  async submitToolResults(
    agent: AgentArg,
    results: SuppliedResult[],
    mode: Mode,
    onlyPending = false,
  ): Promise<TurnReply> {
    return this.#turn(agent, (a) => this.#deps.engine.submitToolResults(a, results, mode, onlyPending));
  }

  async answerApprovals(
    agent: AgentArg,
    answers: ApprovalAnswer[],
    mode: Mode,
    opts: Omit<AnswerOptions, "onlyTurn"> & { run?: string },
  ): Promise<TurnReply> {
    const { engine, runs } = this.#deps;
    const { run, ...rest } = opts;
    return this.#turn(agent, (a) => {
      // A run's approvals are those of the turn it waits in: its signature answers nothing else in the session.
      // Read once the session is known to exist: an object with no tables has no runs table to read.
      const onlyTurn = run === undefined ? undefined : (runs.store.get(run)?.turn_id ?? null);
      return engine.answerApprovals(a, answers, mode, { ...rest, onlyTurn });
    });
  }

  async retry(agent: AgentArg, mode: Mode): Promise<TurnReply> {
    return this.#turn(agent, (a) => this.#deps.engine.retry(a, mode), true);
  }
}
