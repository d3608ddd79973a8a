/**
 * `UIMessageChunk`: the JSON Schema of one frame's `data` in a session's UI message stream (`POST /messages`,
 * `/chat`, `/tool-results`, `/tool-approvals`, `GET /stream`), for the OpenAPI document. It describes the chunks
 * Switchboard emits (`session/stream/ui-chunks.ts`), which are a subset of the AI SDK's UI message stream v1, so
 * a client without the AI SDK (a mobile app) can generate its types from the document. Like the other answers,
 * the objects stay open: a later version may add a field. The unit tests check every chunk the encoder emits
 * against it (and that it declares every field emitted); the e2e tests check every frame they read.
 */

const str = { type: "string" } as const;
const bool = { type: "boolean" } as const;
const any = {} as const;

/** One chunk type: `type` fixed, `required` fields first, then the optional ones. */
function chunk(
  type: string,
  description: string,
  required: Record<string, object>,
  optional: Record<string, object> = {},
) {
  return {
    type: "object",
    description,
    required: ["type", ...Object.keys(required)],
    properties: { type: { const: type }, ...required, ...optional },
  } as const;
}

const dynamic = {
  dynamic: { ...bool, description: "Always true: the tool set is the session's, not the client's." },
  providerExecuted: {
    ...bool,
    description:
      "True when the call is not the client's to run or answer: the session runs it (http, MCP, built-in tools) or ended it itself (every tool-input-error); absent on a client tool's call.",
  },
};

export const UIMessageChunk = {
  description:
    "One chunk of the AI SDK UI message stream (v1), the JSON of an SSE frame's `data`. Text, reasoning and tool " +
    "input arrive as start/delta/end (or available) chunks of one id; a step opens with `start-step` and closes " +
    "with `finish-step`; a turn segment opens with `start` and closes with `finish` (after `error` or `abort` when " +
    "it did not complete). When the turn runs no more steps and no step is open, an empty step comes before the " +
    "outcomes told last, so the message's last step holds no answered client call. `data-*` chunks carry service state (`data-turn`, `data-provider-retry`, …).",
  oneOf: [
    chunk("start", "A turn segment begins.", {}, { messageId: str, messageMetadata: any }),
    chunk(
      "start-step",
      "A model step begins; or, followed at once by `finish-step`, the empty step that ends the message when the " +
        "turn runs no more steps (a client's result on the turn's last step, a cancel).",
      {},
    ),
    chunk("text-start", "A text block opens.", { id: str }),
    chunk("text-delta", "More text of an open block.", { id: str, delta: str }),
    chunk("text-end", "A text block closes.", { id: str }),
    chunk("reasoning-start", "A reasoning block opens.", { id: str }),
    chunk("reasoning-delta", "More reasoning of an open block.", { id: str, delta: str }),
    chunk("reasoning-end", "A reasoning block closes.", { id: str }),
    chunk("tool-input-start", "The model starts a tool call.", { toolCallId: str, toolName: str }, dynamic),
    chunk("tool-input-delta", "More of a tool call's JSON input.", { toolCallId: str, inputTextDelta: str }),
    chunk(
      "tool-input-available",
      "A tool call's complete, valid input; for a client tool, sent once the session has checked the call (the client's to run).",
      { toolCallId: str, toolName: str, input: any },
      dynamic,
    ),
    chunk(
      "tool-input-error",
      "A tool call the session ends instead of running it, marked providerExecuted: its input is not valid, or (a " +
        "client tool's call) the session refused or skipped it (`errorText` says why, and the model is told), or it " +
        "was cut off by the output limit or a dropped stream (removed, never recorded).",
      { toolCallId: str, toolName: str, input: any, errorText: str },
      dynamic,
    ),
    chunk("tool-output-available", "A tool call's result.", { toolCallId: str, output: any }, dynamic),
    chunk("tool-output-error", "A tool call that failed.", { toolCallId: str, errorText: str }, dynamic),
    chunk(
      "tool-approval-request",
      "A tool call waits for a person (POST /tool-approvals or /chat).",
      { approvalId: str, toolCallId: str },
      {
        reason: { ...str, description: "Why a person must answer." },
        approvalDescriptor: {
          type: "object",
          description: "What the person is asked to approve.",
          required: ["tool_name"],
          properties: {
            tool_name: { ...str, description: "The tool's name." },
            resolved_input: {
              type: "object",
              description:
                "Only for a call whose input holds `$tool` references: the arguments it runs with, the referenced " +
                "values in place (within 64 KiB, long strings cut with a marker), as GET /v1/sessions/{id} shows " +
                "them in `pending_approvals`. Show the person these, not the references.",
            },
          },
        },
        signature: { ...str, description: "Echo it back with the answer on POST /chat." },
      },
    ),
    chunk(
      "tool-approval-response",
      "A person answered an approval.",
      { approvalId: str, approved: bool },
      { reason: str },
    ),
    chunk("tool-output-denied", "A declined call: it did not run.", { toolCallId: str }),
    chunk("finish-step", "A model step ends.", {}),
    chunk(
      "finish",
      "A turn segment ends (completed, paused for a tool result or approval, failed or cancelled).",
      {},
      {
        finishReason: { enum: ["stop", "length", "content-filter", "tool-calls", "error", "other"] },
        messageMetadata: any,
      },
    ),
    chunk("error", "The turn failed: `errorText` is `<code>: <message>`.", { errorText: str }),
    chunk("abort", "The turn was cancelled.", {}, { reason: str }),
    {
      type: "object",
      description:
        "Service data for the client; with an `id`, a later chunk of the same id replaces it. Switchboard sends " +
        "`data-turn` (the turn's status, finish reason and error, ahead of an `error` chunk), `data-provider-retry`, `data-structured-result`, `data-compaction`, " +
        "`data-awaiting-tool-results` and `data-awaiting-approval`.",
      required: ["type", "data"],
      properties: {
        type: { ...str, pattern: "^data-" },
        id: str,
        data: any,
        transient: { ...bool, description: "Delivered to `onData` only, never added to the message." },
      },
    },
  ],
} as const;
