/**
 * The first thing a resumed segment does when its pause had approvals: tell
 * the client the answers and which calls were declined (their `is_error`
 * results are already stored), those the paused segment told excepted; run
 * the approved ones — each claimed in a transaction first, so it runs at most
 * once whatever is sent twice or restarts — and then write every result of
 * the step as one user message, in tool_use order.
 */
import type { ApprovalRow } from "../approval-store";
import type { TurnContext } from "./context";
import { runTools } from "./tool-phase";

/**
 * Tells the client the answers to `rows` (decided approvals), and which calls were declined: clients that did not
 * answer themselves (an approval from Slack, the API, a run's route, the TTL, another tab) see the answer too, and
 * stop offering to answer it. Also used by the runner when approvals were answered while their step still ran.
 */
export function announceAnswers(ctx: TurnContext, rows: readonly ApprovalRow[]): void {
  for (const r of rows) {
    ctx.out.emit({
      type: "approval_answer",
      approval_id: r.id,
      approved: r.status === "approved",
      ...(r.decided_reason ? { reason: r.decided_reason } : {}),
    });
    if (r.status === "declined") ctx.out.emit({ type: "tool_denied", tool_use_id: r.call_id });
  }
}

export async function deliverAnswers(ctx: TurnContext): Promise<void> {
  const { approvals, history, tools, agent } = ctx.deps;
  const rows = approvals.onOpenCalls();
  if (rows.length === 0) return;
  // Those decided while a sibling of their step ran were told when the step paused.
  announceAnswers(
    ctx,
    rows.filter((r) => r.announced === 0),
  );
  const approved = rows.filter((r) => r.status === "approved");
  const claimed = new Set(ctx.tx(() => approvals.claim(approved.map((r) => r.id))));
  const callIds = new Set(approved.filter((r) => claimed.has(r.id)).map((r) => r.call_id));
  if (callIds.size > 0) {
    const seqs = new Set([...callIds].map((id) => history.call(id)?.message_seq ?? -1));
    const calls = [...seqs].flatMap((seq) => (seq < 0 ? [] : history.toolUsesOf(seq))).filter((c) => callIds.has(c.id));
    await runTools(ctx, calls, new Map(), callIds);
  }
  if (ctx.cancelled) return;
  const { unloaded } = ctx.tx(() =>
    tools.closeOpenCalls(agent, { turnId: ctx.turnId, reason: "no result was recorded" }),
  );
  if (unloaded.length) ctx.deps.eventLog.record("tools_unloaded", ctx.turnId, { names: unloaded, reason: "row_limit" });
}
