/** A turn's status and kind, as stored, streamed and returned by the API. */

export type TurnStatus =
  | "running"
  | "awaiting_tool_results"
  | "awaiting_approval"
  | "completed"
  | "failed"
  | "cancelled"
  | "interrupted";

/** A turn started by a user message, or by /retry of the last one. */
export type TurnKind = "message" | "retry";

/** Statuses of a turn that is not over: running, or paused for client results or a person's approval. */
export const ACTIVE: readonly TurnStatus[] = ["running", "awaiting_tool_results", "awaiting_approval"];
/** A turn paused for client results or a person's approval: not running, not over. */
export function isPaused(status: TurnStatus | undefined): status is "awaiting_tool_results" | "awaiting_approval" {
  return status === "awaiting_tool_results" || status === "awaiting_approval";
}
/** Statuses of a turn that is over. */
export const ENDED: readonly TurnStatus[] = ["completed", "failed", "cancelled", "interrupted"];
