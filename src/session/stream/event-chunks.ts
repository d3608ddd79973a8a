/**
 * The UI chunk of a turn event that opens and closes no part, each decided by its event alone (`UiEncoder` sends
 * them once it has checked the client can take them): an approval asked for (`approvalRequestChunk`) or answered
 * (`approvalResponseChunk`), custom data (`dataChunk`), and the model provider retried (`retryChunk`).
 */
import type { RetryEvent } from "../../model/stream";
import type { TurnEvent } from "./turn-events";
import type { UiChunk } from "./ui-chunks";

/** A call waits for a person's yes (AI SDK `tool-approval-request`), signed so the answer can be checked. */
export function approvalRequestChunk(ev: Extract<TurnEvent, { type: "approval_request" }>): UiChunk {
  return {
    type: "tool-approval-request",
    approvalId: ev.approval_id,
    toolCallId: ev.tool_use_id,
    reason: ev.reason,
    // What the person approves is what runs: the referenced values in place, beside the input as written.
    approvalDescriptor: {
      tool_name: ev.tool,
      ...(ev.resolved_input !== undefined ? { resolved_input: ev.resolved_input } : {}),
    },
    signature: ev.signature,
  };
}

/** How a person answered an approval (AI SDK `tool-approval-response`). */
export function approvalResponseChunk(ev: Extract<TurnEvent, { type: "approval_answer" }>): UiChunk {
  return {
    type: "tool-approval-response",
    approvalId: ev.approval_id,
    approved: ev.approved,
    ...(ev.reason ? { reason: ev.reason } : {}),
  };
}

/** Custom data for clients, as a `data-<name>` part. */
export function dataChunk(ev: Extract<TurnEvent, { type: "data" }>): UiChunk {
  return {
    type: `data-${ev.name}`,
    ...(ev.id !== undefined ? { id: ev.id } : {}),
    // JSON drops undefined, which would leave the required `data` key missing on the wire.
    data: ev.data ?? null,
    ...(ev.transient ? { transient: true } : {}),
  };
}

/** The model provider is retried: a transient part the client shows while it waits. */
export function retryChunk(e: RetryEvent): UiChunk {
  return {
    type: "data-provider-retry",
    data: { attempt: e.attempt, delay_ms: e.delay_ms, status: e.status, reason: e.reason },
    transient: true,
  };
}
