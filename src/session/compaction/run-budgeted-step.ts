/**
 * Where compaction meets the turn loop: `runBudgetedStep` wraps each provider step with the compaction it
 * needs (before sending, once more when what it leaves is still over the limit, and again after a "too long"
 * answer) and announces each compaction to the client; and the failure of a step still "too long" after that (or,
 * compaction off, at once).
 */
import type { ErrorInfo } from "../../model/errors";
import type { StepRequest } from "../../providers/types";
import type { TurnContext } from "../turn/context";
import { runStep, type StepResult } from "../turn/step";
import { ContextBudget } from "./context-budget";
import { fixedPartOverflow } from "./fixed-part";
import { nativePlan } from "./native-plan";

/**
 * One step of a turn inside the context budget: the request is estimated
 * before it is sent and compacted first when it is above the threshold (or
 * its view is stored in more than MAX_VIEW_BYTES, whatever the window); a
 * provider that still answers "too long" gets the step once more after a
 * forced compaction. A compaction whose request is still above the limit, as
 * measured once rebuilt, is followed by one more, keeping only what no cut
 * summarises, before it is sent (`compactToFit`): a step pays at most two
 * compactions per request it sends, and sends at most two. A compaction may
 * cut inside this turn, after its finished steps, keeping the user's request verbatim (`chooseCut`), so only
 * what no cut summarises (that request itself, or the latest step, whose
 * results the model is about to read) can make the step fail, with
 * `context_overflow` (retryable: the next message's turn summarises this
 * turn, request included). With compaction off (`compaction.enabled: false`)
 * nothing is compacted, and a "too long" answer fails the turn at once, not
 * retryable (`overflowFailure`). What every request carries (`fixedPart`: the
 * system prompt and the tools declared with each) no compaction shrinks: when
 * it leaves less of the most input a request can carry than the user's newest
 * request and a summary need (over it on its own, or beside the request),
 * nothing is compacted, and a "too long" answer fails the turn at once, not
 * retryable (`fixedPartOverflow`, by the uncalibrated estimate: the ratio the
 * history taught over-counts a prose system prompt). The request is still
 * sent, as the estimate may be high. When it leaves that much, but not under the limit
 * (`ContextBudget.crowded`), a request over the limit is sent as it is, and
 * compacted only when it could not be sent at all (`compactable`). A cancel
 * while the forced compaction runs ends the step cancelled.
 */
export async function runBudgetedStep(ctx: TurnContext, step: number, build: () => StepRequest): Promise<StepResult> {
  const { budget, compactor, agent, tools } = ctx.deps;
  const enabled = ContextBudget.config(agent).enabled;
  const reg = tools.registry(agent);
  // Native compaction: every request asks the provider to compact at the trigger (step.ts records
  // the block it answers with); our own summary stays the fallback for a request it cannot read.
  const plan = nativePlan(agent, budget);
  const request = (): StepRequest => (plan.native ? { ...build(), compaction: { trigger: plan.trigger } } : build());
  let req = request();
  let size = ContextBudget.size(req);
  const tokens = budget.estimate(req.model, size);
  // Natively, the provider compacts past the trigger: ours only when the request could not be sent at all.
  const over = budget.over(agent, tokens, plan.native);
  const fitted =
    over && compactable(ctx, req, tokens) ? await compactToFit(ctx, tokens, req, request, plan.native) : null;
  if (fitted) ({ req, size } = fitted);
  const natives = compactor.natives;
  let result = await runStep(ctx, step, req);
  if (result.kind === "failed" && result.error.code === "context_overflow" && !ctx.cancelled) {
    // The estimate was low: the provider's own count is at least the window it names, and is the count it names
    // (which calibrates what the compaction keeps).
    if (enabled) budget.learn(agent.model, result.error.message, size);
    const newest = compactor.requestTokens();
    const fixed = fixedPartOverflow(budget, agent, reg, req, newest, result.error.message);
    if (fixed) return { kind: "failed", error: fixed };
    budget.measurePrefix(req, newest);
    const counted = Math.max(tokens, budget.window(agent), budget.estimate(req.model, size));
    const refitted = enabled ? await compactToFit(ctx, counted, req, request, plan.native) : null;
    if (refitted) {
      ({ req, size } = refitted);
      result = await runStep(ctx, step, req);
    } else if (ctx.cancelled) {
      // The cancel aborted the summary request: the turn was cancelled, its request not found too long again.
      return { kind: "cancelled" };
    }
  }
  // A usage report after a native compaction (recorded or dropped) describes the compacted context, not this request.
  if (result.kind === "done" && compactor.natives === natives) budget.observe(agent.model, size, result.usage);
  if (result.kind === "failed" && result.error.code === "context_overflow") {
    return { kind: "failed", error: overflowFailure(enabled, result.error.message) };
  }
  return result;
}

/**
 * The turn's failure when the provider still finds its request too long (`cause`: its refusal, quoted). With
 * compaction on, the request was compacted inside this turn first: retryable, as the next message's turn summarises
 * this one, request included. With it off (`enabled` false) nothing was compacted and nothing will be: every
 * message, and a /retry, sends the same history and fails alike, so it is not retryable, and names the ways out
 * (README "Long sessions": `POST /compact` runs with compaction off too).
 */
function overflowFailure(enabled: boolean, cause: string): ErrorInfo {
  if (!enabled) {
    return {
      code: "context_overflow",
      message:
        `the conversation no longer fits the model's context window (${cause}) and compaction is off for this agent ` +
        `(compaction.enabled: false), so nothing was compacted and every message, /retry included, fails alike ` +
        `until the conversation is shortened: POST /v1/sessions/{id}/compact summarises it once, ` +
        `POST /v1/sessions/{id}/clear empties it; or turn compaction on for the agent, or use a model with a larger ` +
        `context window (model.context_window)`,
      retryable: false,
    };
  }
  return {
    code: "context_overflow",
    message: `the conversation no longer fits the model's context window, even compacted inside this turn with the user's request and the latest step kept verbatim (${cause}); send the next message, whose turn can summarise this turn, its request included; /retry keeps the request verbatim again`,
    retryable: true,
  };
}

/**
 * Whether a request over the limit (estimated `tokens`) is compacted before it is sent: not when its fixed part
 * leaves no room to (`fixedPartOverflow`), nor, while it can still be sent, when the limit cannot hold the user's
 * request and a summary beside what the request carries (`ContextBudget.crowded`): compacted, it would be over the
 * limit again, and compacted again, at every step. Takes that request's measure (`measurePrefix`) for the
 * compaction to keep room beside.
 */
function compactable(ctx: TurnContext, req: StepRequest, tokens: number): boolean {
  const { budget, agent, compactor, tools } = ctx.deps;
  const request = compactor.requestTokens();
  if (fixedPartOverflow(budget, agent, tools.registry(agent), req, request) !== null) return false;
  budget.measurePrefix(req, request);
  return !budget.crowded(agent) || budget.over(agent, tokens, true);
}

/**
 * Compacts for the running turn and rebuilds its request (`request`). When the rebuilt request, measured, is still
 * above the limit (an estimate the provider's count moved, tools declared again after the summary), compacts once
 * more, keeping only what no cut summarises (the user's request and the latest step), and sends what that leaves:
 * never a third time, as a third could cut nothing more. With what the first keeps weighed against the room beside
 * the request's prefix (`ContextBudget.room`), the second is rare; each used to cut one step later than the one
 * before while the request stayed above the limit, a summary for each step the first kept. Null when the first
 * compaction did not happen (the request is as it was).
 */
async function compactToFit(
  ctx: TurnContext,
  tokensBefore: number,
  trigger: StepRequest,
  request: () => StepRequest,
  native: boolean,
): Promise<{ req: StepRequest; size: number } | null> {
  const { budget, agent } = ctx.deps;
  if (!(await compactFor(ctx, tokensBefore, trigger, false))) return null;
  const req = request();
  const size = budget.measure(req);
  const tokens = budget.lastEstimate;
  // A crowded limit is not what the request must get under: the most input a request can carry is (`compactable`).
  const over = budget.over(agent, tokens, native || budget.crowded(agent));
  if (ctx.cancelled || !over || !(await compactFor(ctx, tokens, req, true))) {
    return { req, size };
  }
  const least = request();
  return { req: least, size: budget.measure(least) };
}

/**
 * Compacts for the running turn, keeping to the room beside what the request carries (`ContextBudget.room`), or
 * only what no cut summarises (`least`); true when the view changed. Announced as an event and a UI data part.
 */
async function compactFor(
  ctx: TurnContext,
  tokensBefore: number,
  trigger: StepRequest,
  least: boolean,
): Promise<boolean> {
  // The summary request reuses the triggering request's exact system and tools[] (prompt-cache reuse).
  const prefix = { system: trigger.system, tools: trigger.tools };
  const outcome = await ctx.deps.compactor.compact(ctx.deps.agent, {
    turnId: ctx.turnId,
    tokensBefore,
    signal: ctx.signal,
    prefix,
    least,
  });
  if (!outcome.ok) {
    ctx.deps.eventLog.record("compaction_failed", ctx.turnId, { reason: outcome.reason, tokens: tokensBefore });
    return false;
  }
  ctx.out.emit({ type: "data", name: "compaction", data: outcome.info, transient: false });
  return true;
}
