/** TurnEvent: what happens in a turn, as the runner tells the stream encoder. */

import type { JsonObject } from "../../model/json";
import type { ToolResultContent } from "../../model/message";
import type { StreamEvent } from "../../model/stream";
import type { TurnStatus } from "../../model/turn";

/**
 * Everything that happens in a turn, in order, as the runner sees it. The
 * stream encoder turns these into AI SDK UI message chunks; they are not sent
 * to clients as-is.
 */
export type TurnEvent =
  | { type: "turn_start"; turn_id: string; message_id: string }
  | { type: "step_start"; step: number }
  | { type: "provider"; event: StreamEvent }
  /** The step ended early: blocks that had started but not finished are abandoned. */
  | { type: "step_abandoned"; reason: string }
  | {
      type: "tool_output";
      tool_use_id: string;
      content: ToolResultContent;
      is_error: boolean;
      /**
       * The call may be of an earlier segment of the turn (an approved call run after the pause, a client's result
       * the resumed segment tells).
       */
      earlier?: boolean;
    }
  /**
   * The tool phase took a client tool's call as the client's to answer (its checks passed): only now does the client
   * get its input (AI SDK `tool-input-available`, on which useChat's onToolCall runs it).
   */
  | { type: "tool_open"; tool_use_id: string }
  /** A call waits for a person's yes (AI SDK `tool-approval-request`). */
  | {
      type: "approval_request";
      approval_id: string;
      tool_use_id: string;
      tool: string;
      reason: string;
      signature: string;
      /**
       * The arguments the call runs with, its `$tool` references resolved, as the approval stores it (fitted to
       * RESOLVED_INPUT_BUDGET_BYTES); only for a call with references whose resolved arguments fit.
       */
      resolved_input?: JsonObject;
    }
  /** How a person answered an approval of an earlier segment (AI SDK `tool-approval-response`). */
  | { type: "approval_answer"; approval_id: string; approved: boolean; reason?: string }
  /** A call of an earlier segment was declined by a person (AI SDK `tool-output-denied`). */
  | { type: "tool_denied"; tool_use_id: string }
  | { type: "step_finish"; step: number }
  /**
   * The turn runs no more steps (a segment resumed at its step limit, a turn ending by cancel or failure): unless a
   * step is open, the client's message gets an empty last step, sent before the outcomes told next, so useChat takes
   * it in with them (it updates its messages only with a part's change).
   */
  | { type: "no_more_steps" }
  /** Custom data for clients (`data-<name>` chunks), e.g. turn status. */
  | {
      type: "data";
      name: string;
      data: unknown;
      transient?: boolean;
      /** Parts with the same name and id replace each other on the client (e.g. one live status part). */
      id?: string;
    }
  | { type: "turn_finish"; status: TurnStatus; finish_reason: UiFinishReason }
  | { type: "turn_error"; code: string; message: string };

export type UiFinishReason = "stop" | "length" | "content-filter" | "tool-calls" | "error" | "other";
