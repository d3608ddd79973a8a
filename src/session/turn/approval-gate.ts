/**
 * The turn's side of asking: a valid server-side call whose tool needs
 * approval is recorded (durably, with its signature and optional expiry job)
 * and announced to the client as the AI SDK's `tool-approval-request`; the
 * call stays pending and the step pauses once its siblings are done.
 */

import { newId } from "../../crypto/new-id";
import type { JsonObject } from "../../model/json";
import type { ToolUsePart } from "../../model/message";
import type { RegisteredTool } from "../../tools/types";
import { needsApproval, requestReason } from "../approval-policy";
import { shownResolved } from "../approval-store";
import { addJob } from "../scheduler";
import type { TurnContext } from "./context";
import type { ExecuteOptions } from "./execute";

/** The approval gate of one tool phase; calls in `approved` were already approved and run now. */
export function approvalGate(ctx: TurnContext, approved: ReadonlySet<string>): NonNullable<ExecuteOptions["approval"]> {
  return {
    needed: (call, tool) => !approved.has(call.id) && needsApproval(ctx.deps.agent, tool),
    request: (call, tool, input) => requestApproval(ctx, call, tool, input),
  };
}

async function requestApproval(
  ctx: TurnContext,
  call: ToolUsePart,
  tool: RegisteredTool,
  input: JsonObject,
): Promise<void> {
  const { approvals, eventLog, agent } = ctx.deps;
  const id = newId("apr");
  const reason = requestReason(tool);
  const signature = await approvals.sign(id, call.id, call.name, call.input);
  if (ctx.cancelled) return;
  const expires = agent.approval_ttl_s ? Date.now() + agent.approval_ttl_s * 1000 : null;
  // What the person approves is what runs: the referenced values, beside the references as written.
  const resolved = input === call.input ? undefined : shownResolved(input);
  ctx.tx(() => {
    approvals.create({
      id,
      call_id: call.id,
      turn_id: ctx.turnId,
      name: call.name,
      input: call.input,
      resolved_input: resolved,
      reason,
      signature,
      expires_at: expires,
    });
    if (expires !== null) addJob(ctx.deps.storage.sql, "approval", id, expires);
  });
  eventLog.record("approval_requested", ctx.turnId, {
    approval_id: id,
    tool_use_id: call.id,
    tool: call.name,
    reason,
    ...(expires !== null ? { expires_at: new Date(expires).toISOString() } : {}),
  });
  ctx.out.emit({
    type: "approval_request",
    approval_id: id,
    tool_use_id: call.id,
    tool: call.name,
    reason,
    signature,
    ...(resolved !== undefined ? { resolved_input: resolved } : {}),
  });
}
