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

/** Statuses of a turn paused for client results or a person's approval: not running, not over. */
export const PAUSED = ["awaiting_tool_results", "awaiting_approval"] as const satisfies readonly TurnStatus[];
/** Statuses of a turn that is not over: running, or paused. */
export const ACTIVE: readonly TurnStatus[] = ["running", ...PAUSED];
/** Statuses of a turn that is over. */
export const ENDED: readonly TurnStatus[] = ["completed", "failed", "cancelled", "interrupted"];

/** Whether a turn is paused (one of PAUSED). */
export function isPaused(status: TurnStatus | undefined): status is (typeof PAUSED)[number] {
  return (PAUSED as readonly (TurnStatus | undefined)[]).includes(status);
}
