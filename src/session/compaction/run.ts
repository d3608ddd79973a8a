import type { StepRequest } from "../../providers/types";
import type { TurnContext } from "../turn/context";
import { runStep, type StepResult } from "../turn/step";
import { Compactor } from "./compactor";

/**
 * One step of a turn inside the context budget: the request is estimated
 * before it is sent and compacted first when it is above the threshold; a
 * provider that still answers "too long" gets the step once more after a
 * forced compaction. Only then does the step fail, with `context_overflow`
 * (retryable: the next turn compacts at its own boundary).
 */
export async function runBudgetedStep(ctx: TurnContext, step: number, build: () => StepRequest): Promise<StepResult> {
  const { compactor, agent } = ctx.deps;
  const enabled = Compactor.config(agent).enabled;
  let req = build();
  let bytes = Compactor.bytes(req);
  const tokens = compactor.estimate(bytes);
  if (compactor.over(agent, tokens) && (await compactFor(ctx, tokens))) {
    req = build();
    bytes = Compactor.bytes(req);
  }
  let result = await runStep(ctx, step, req);
  if (result.kind === "failed" && result.error.code === "context_overflow" && enabled && !ctx.cancelled) {
    // The estimate was low: the provider's own count is at least the window it names.
    compactor.learn(result.error.message);
    if (await compactFor(ctx, Math.max(tokens, compactor.window(agent)))) {
      req = build();
      bytes = Compactor.bytes(req);
      result = await runStep(ctx, step, req);
    }
  }
  if (result.kind === "done") compactor.observe(bytes, result.usage);
  if (result.kind === "failed" && result.error.code === "context_overflow") {
    return {
      kind: "failed",
      error: {
        code: "context_overflow",
        message: `the conversation no longer fits the model's context window and could not be compacted inside this turn (${result.error.message}); send the next message or retry: compaction runs at the turn boundary`,
        retryable: true,
      },
    };
  }
  return result;
}

/** Compacts for the running turn; true when the view changed. Announced as an event and a UI data part. */
async function compactFor(ctx: TurnContext, tokensBefore: number): Promise<boolean> {
  const outcome = await ctx.deps.compactor.compact(ctx.deps.agent, {
    turnId: ctx.turnId,
    tokensBefore,
    signal: ctx.signal,
  });
  if (!outcome.ok) {
    ctx.deps.eventLog.record("compaction_failed", ctx.turnId, { reason: outcome.reason, tokens: tokensBefore });
    return false;
  }
  ctx.out.emit({ type: "data", name: "compaction", data: outcome.info, transient: false });
  return true;
}
