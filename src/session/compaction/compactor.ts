/**
 * Context compaction for one session (`Compactor`): our own summary records, written when a step's request is over
 * its context budget (context-budget.ts) or on POST /compact (where to cut and which tools stay:
 * compact-by-summary.ts; the summary itself: summarise.ts), and the provider's recorded (each fitted to its row:
 * fit-native.ts). One compaction runs at a time; nothing is stored until a summary is complete.
 */
import type { AgentConfig } from "../../agents/types";
import type { CompactionPart } from "../../model/message";
import { attributesOf, inSpan } from "../../observability/tracing";
import { requestIndex } from "./boundary";
import { type CompactionDeps, type CompactOptions, carriedTokens, compactBySummary } from "./compact-by-summary";
import type { CompactionInfo, CompactionOutcome } from "./compaction-info";
import { clearDroppedNative, readDroppedNative, writeDroppedNative } from "./dropped-native";
import { textTokens } from "./estimate";
import { clearLearned } from "./learned-model";
import { messageTokens } from "./message-tokens";
import { nativeUnavailable } from "./native-plan";
import { insertCompaction, latestCompaction } from "./records";
import { toolBudget, toolChoice } from "./tool-choice";

/**
 * Compacts a session's view when a request is over its context budget, or on demand (README "Long sessions"):
 * summarises the view up to a safe boundary with the agent's own model and stores a compaction record, or records
 * the compaction the provider did. Nothing is written until the summary is complete: a cut summary stream or a
 * crash leaves the session exactly as it was.
 */
export class Compactor {
  /**
   * One compaction at a time (a turn's and an on-demand one could otherwise interleave): the one in flight, whose
   * it is (a turn's, or null for POST /compact), how to stop it, and when it is done.
   */
  #running: { turnId: string | null; stop: AbortController; done: Promise<unknown> } | null = null;
  /**
   * Native compactions the provider answered with in this instance, recorded or dropped (a step compares it to
   * know whether its usage report is comparable: the report describes the compacted context).
   */
  #natives = 0;

  get natives(): number {
    return this.#natives;
  }

  /**
   * The provider's compaction of `bytes` was dropped as too large to store (`fitNative`): until our own summary
   * compacts, requests no longer ask the provider to compact, and our threshold applies
   * (`nativePlan`). Stored: the caller runs it in the transaction that writes the dropped block, so a
   * restarted object does not ask again either.
   */
  droppedNative(bytes: number): void {
    writeDroppedNative(this.#deps.storage.sql, bytes);
    this.#deps.budget.droppedNative = bytes;
    this.#natives++;
  }

  /**
   * The object starts: reads whether the provider's last compaction was dropped (`droppedNative`), and what the
   * provider taught of the model (`ContextBudget.load`).
   */
  load(): void {
    this.#deps.budget.droppedNative = readDroppedNative(this.#deps.storage.sql);
    this.#deps.budget.load();
  }

  /**
   * `clear` (in its transaction): the conversation the provider compacted is gone, so it may compact again; what
   * its requests taught (the last usage report, a learned window, stored or not) goes with it
   * (`ContextBudget.forget`).
   */
  clear(): void {
    clearDroppedNative(this.#deps.storage.sql);
    clearLearned(this.#deps.storage.sql);
    this.#deps.budget.forget();
  }

  readonly #deps: CompactionDeps;
  constructor(deps: CompactionDeps) {
    this.#deps = deps;
  }

  /**
   * Summarises the view before a safe boundary and stores the record.
   * `turnId`: the running turn, cut inside only at a step boundary of its request (`chooseCut`).
   */
  async compact(agent: AgentConfig, given: CompactOptions): Promise<CompactionOutcome> {
    if (this.#running) {
      // A turn needs the room now: an on-demand compaction gives way (stopped, it stores nothing).
      if (given.turnId === null || this.#running.turnId !== null) {
        return { ok: false, reason: "a compaction is already running" };
      }
      this.#running.stop.abort();
      await this.#running.done.catch(() => {});
      if (this.#running) return { ok: false, reason: "a compaction is already running" };
    }
    const stop = new AbortController();
    const opts = { ...given, signal: AbortSignal.any([given.signal, stop.signal]) };
    let finished: () => void = () => {};
    this.#running = { turnId: opts.turnId, stop, done: new Promise<void>((r) => (finished = r)) };
    const attributes = { "switchboard.turn_id": opts.turnId ?? undefined, "switchboard.tokens": opts.tokensBefore };
    try {
      // The span covers the summary request(s) and the write; it carries context_compacted's data, or the reason.
      return await inSpan("switchboard.compaction", attributes, async (span) => {
        const outcome = await compactBySummary(this.#deps, agent, opts);
        span.setAttributes(
          outcome.ok
            ? {
                "switchboard.compacted": true,
                ...attributesOf({ ...outcome.info, ...nativeUnavailable(agent, this.#deps.budget) }),
              }
            : { "switchboard.compacted": false, ...attributesOf({ reason: outcome.reason }) },
        );
        // A smaller context (the event and span said why ours ran): the provider may compact again when it grows
        // back past the trigger.
        if (outcome.ok) this.#deps.budget.droppedNative = null;
        return outcome;
      });
    } finally {
      this.#running = null;
      finished();
    }
  }

  /**
   * Estimated tokens (`textTokens`) of the user's newest request as a compaction keeps it (the note and the user's
   * own parts, `carriedTokens`): the last message in the view with parts of the user's own, else the request the
   * view's preamble carries; 0 when there is neither.
   */
  requestTokens(): number {
    const { history } = this.#deps;
    const view = history.messages();
    const request = view[requestIndex(view, view.length - 1)] ?? history.carried();
    return request ? carriedTokens(request) : 0;
  }

  /** Stops an on-demand compaction in flight (the session is being deleted or cleared): it stores nothing. */
  stopOnDemand(): void {
    if (this.#running?.turnId === null) this.#running.stop.abort();
  }

  /**
   * Records a compaction the provider did (its `compaction` part, just written to the assistant
   * message `messageSeq`): the view starts at that message from now on, and the loaded tools are
   * decided as for ours. Synchronous SQL only: the caller runs it in the transaction that wrote the
   * part, so the part and its record are never apart. Null when a later record already exists.
   */
  recordNative(agent: AgentConfig, turnId: string, messageSeq: number, part: CompactionPart): CompactionInfo | null {
    const { history, tools, budget } = this.#deps;
    const latest = latestCompaction(this.#deps.storage.sql);
    if (latest && latest.boundary_seq >= messageSeq) return null;
    const view = history.view();
    const at = view.findIndex((m) => m.seq === messageSeq);
    const summarised = at === -1 ? view : view.slice(0, at);
    const kept = at === -1 ? [] : view.slice(at);
    const { choice, snapshot } = toolChoice(
      this.#deps,
      agent,
      toolBudget(agent, budget),
      summarised,
      kept,
      part.content ?? "",
    );
    // As the provider counts it (`ContextBudget.ratio`), as tokens_before is.
    const tokensAfter = Math.ceil(
      (textTokens(part.content ?? "") +
        textTokens(part.encrypted ?? "") +
        kept.reduce((n, m) => n + messageTokens(m), 0) +
        textTokens(JSON.stringify(snapshot.declarations))) *
        budget.ratio(agent.model),
    );
    insertCompaction(this.#deps.storage.sql, {
      boundary_seq: messageSeq,
      summary: part.content ?? "",
      tokens_before: budget.lastEstimate,
      tokens_after: tokensAfter,
      tools: snapshot,
      native: true,
      turn_id: turnId,
      carried_seq: null,
    });
    if (choice.dropped.length) tools.loaded.remove(choice.dropped);
    history.viewMoved();
    // The provider's next usage report describes the compacted context, not these bytes.
    budget.compacted();
    this.#natives++;
    const info: CompactionInfo = {
      boundary_seq: messageSeq,
      tokens_before: budget.lastEstimate,
      tokens_after: tokensAfter,
      tools_kept: choice.kept,
      tools_dropped: choice.dropped,
      native: true,
      summary_requests: 0,
    };
    this.#deps.eventLog.record("context_compacted", turnId, { ...info });
    // The provider did the work inside its request's span; this one marks the compaction with the event's figures.
    inSpan(
      "switchboard.compaction",
      { "switchboard.turn_id": turnId, "switchboard.compacted": true, ...attributesOf({ ...info }) },
      () => undefined,
    );
    return info;
  }
}
