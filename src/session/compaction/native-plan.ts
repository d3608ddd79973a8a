/**
 * Whether the provider compacts for the agent (`nativePlan`, README "Long sessions", native compaction): the trigger
 * to send with each request, or why our own summary compacts instead; and that reason as a compaction's event and
 * span carry it (`nativeUnavailable`). Reads the session's context budget (context-budget.ts).
 */
import type { AgentConfig } from "../../agents/types";
import { getAdapter } from "../../providers/index";
import { ContextBudget } from "./context-budget";

/** Server-side compaction for the agent's model: the trigger to send, or why we summarise ourselves. */
type NativePlan = { native: true; trigger: number } | { native: false; reason: string | null };

/**
 * Whether the provider compacts for this agent (README "Long sessions", native compaction):
 * the model declares `native_compaction`, the wire has it (Anthropic Messages `compact_20260112`;
 * OpenAI Responses `compact_threshold` with provider `openai-responses` — Chat Completions has
 * none), the most input a request can carry (`maxInput`: the window less its output limit) is more than the
 * provider's minimum trigger, and the provider's last compaction was not dropped as too large to store
 * (`droppedNative`; until one of ours compacts). The trigger is the threshold share of the window or, when the
 * output limit leaves less input than that, of `maxInput`, and at least the minimum: below `maxInput`, so a request
 * past it can still be sent for the provider to compact. `reason` says why a declared capability is not used (null
 * when none was declared).
 */
export function nativePlan(agent: AgentConfig, budget: ContextBudget): NativePlan {
  const cfg = ContextBudget.config(agent);
  if (agent.model.capabilities.native_compaction !== true || !cfg.enabled) return { native: false, reason: null };
  if (budget.droppedNative !== null) {
    return {
      native: false,
      reason: `the provider's last compaction (${budget.droppedNative} bytes) was too large to store; our own summary compacts instead`,
    };
  }
  if (agent.model.provider === "openai") {
    return {
      native: false,
      reason:
        'OpenAI server-side compaction (compact_threshold) exists only on the Responses API; provider "openai" speaks Chat Completions (use "openai-responses")',
    };
  }
  const window = budget.window(agent);
  const most = budget.maxInput(agent);
  // The Responses API documents no minimum threshold; the Messages API refuses a trigger below 50,000.
  const minimum = getAdapter(agent.model.provider).minCompactionTrigger;
  const share = Math.floor(window * cfg.threshold);
  const trigger = Math.max(minimum, share < most ? share : Math.floor(most * cfg.threshold));
  if (trigger >= most) {
    return {
      native: false,
      reason: `${budget.inputRoom(agent)} is too small for the provider's minimum compaction trigger (${minimum})`,
    };
  }
  return { native: true, trigger };
}

/** Why the provider's own compaction could not be used where the agent asked for it (a compaction's event and span). */
export function nativeUnavailable(agent: AgentConfig, budget: ContextBudget): { native_unavailable?: string } {
  const plan = nativePlan(agent, budget);
  return !plan.native && plan.reason !== null ? { native_unavailable: plan.reason } : {};
}
