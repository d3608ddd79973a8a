/**
 * Types of the UI message stream chunks a session emits to `useChat` clients (`UiChunk`, `UiDataChunk`,
 * `UiChunkType`); types only, no runtime code.
 */
import type { UiFinishReason } from "./turn-events";

/**
 * The subset of the AI SDK v6 UI message stream chunks (`UIMessageChunk` /
 * `uiMessageChunkSchema` in the `ai` package) that Switchboard emits. Field
 * names and optionality mirror that schema one-to-one so `useChat` parses our
 * stream unchanged; the tests validate every emitted chunk against it and
 * check at compile time that this union is assignable to `UIMessageChunk`.
 *
 * Declared here rather than imported because `ai` is a dev dependency: the
 * worker must not pull it into its bundle just for types it never calls.
 */
export type UiChunk =
  | { type: "start"; messageId?: string; messageMetadata?: unknown }
  | { type: "start-step" }
  | { type: "text-start"; id: string }
  | { type: "text-delta"; id: string; delta: string }
  | { type: "text-end"; id: string }
  | { type: "reasoning-start"; id: string }
  | { type: "reasoning-delta"; id: string; delta: string }
  | { type: "reasoning-end"; id: string }
  | { type: "tool-input-start"; toolCallId: string; toolName: string; dynamic?: boolean; providerExecuted?: boolean }
  | { type: "tool-input-delta"; toolCallId: string; inputTextDelta: string }
  | {
      type: "tool-input-available";
      toolCallId: string;
      toolName: string;
      input: unknown;
      dynamic?: boolean;
      providerExecuted?: boolean;
    }
  | {
      type: "tool-input-error";
      toolCallId: string;
      toolName: string;
      input: unknown;
      errorText: string;
      dynamic?: boolean;
      providerExecuted?: boolean;
    }
  | { type: "tool-output-available"; toolCallId: string; output: unknown; dynamic?: boolean }
  | { type: "tool-output-error"; toolCallId: string; errorText: string; dynamic?: boolean }
  | {
      type: "tool-approval-request";
      approvalId: string;
      toolCallId: string;
      /** Why a person must answer (`approval.requestReason` on the client part). */
      reason?: string;
      /**
       * Free-form in the SDK (`approval.descriptor` on the client part): the tool's name, and for a call with `$tool`
       * references the arguments it runs with (`resolved_input`).
       */
      approvalDescriptor?: { tool_name: string; resolved_input?: unknown };
      /** Echoed back by useChat in the `approval-responded` part; checked on POST /chat. */
      signature?: string;
    }
  | { type: "tool-approval-response"; approvalId: string; approved: boolean; reason?: string }
  | { type: "tool-output-denied"; toolCallId: string }
  | { type: "finish-step" }
  | { type: "finish"; finishReason?: UiFinishReason; messageMetadata?: unknown }
  | { type: "error"; errorText: string }
  | { type: "abort"; reason?: string }
  | UiDataChunk;

/** Custom data for clients; with an `id`, a later chunk replaces the part client-side. */
interface UiDataChunk {
  type: `data-${string}`;
  id?: string;
  data: unknown;
  /** Delivered to `onData` only, never added to the message. */
  transient?: boolean;
}
