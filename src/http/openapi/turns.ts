/**
 * The operations of routes/turns.ts: a session's turns started (a message, the AI SDK's useChat), resumed (tool
 * results, approvals, retry), cancelled, and their stream resumed.
 */
import { body, jsonOf, ref } from "./content";
import { errorResponse, op } from "./operation";
import { KEY_HEADER, pathParam, SESSION } from "./parameters";
import { streamResponse, turnResponse } from "./ui-stream";

const LAST_EVENT_ID = [
  {
    name: "Last-Event-ID",
    in: "header",
    schema: { type: "string", pattern: "^[0-9]+$" },
    description: "Resume after this frame id",
  },
  {
    name: "after",
    in: "query",
    schema: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    description: "Same as Last-Event-ID",
  },
];

export const sendMessage = op(
  "sendMessage",
  "Start a turn with a user message",
  {
    "200": turnResponse("The turn"),
    "201": turnResponse("The turn"),
    "409": errorResponse,
    "413": errorResponse,
    "422": errorResponse,
  },
  {
    parameters: [
      SESSION,
      {
        name: "Idempotency-Key",
        in: "header",
        description: 'A repeat with the same key and body returns the same turn; keys starting "run:" are reserved.',
        schema: { ...KEY_HEADER, not: { pattern: "^run:" } },
      },
    ],
    requestBody: body("MessageBody"),
  },
);
export const submitToolResults = op(
  "submitToolResults",
  "Answer client tool calls; the turn resumes once all are in (a turn that failed with the calls open does not: the results are kept for POST /retry)",
  {
    "200": turnResponse(
      "The resumed turn: SSE (default) or, with `Accept: application/json`, the turn result once it ends. As JSON whatever the Accept: the turn's state while other client calls are still awaited, or, for calls of a turn that failed with them open, that failed turn's state (the results are kept; the turn goes on only with POST /retry or a new message)",
      false,
    ),
    "409": errorResponse,
  },
  { parameters: [SESSION], requestBody: body("ToolResultsBody") },
);
export const answerToolApprovals = op(
  "answerToolApprovals",
  "Approve or decline tool calls waiting for a person (needs the `approve` action); the turn resumes once nothing else is awaited",
  {
    "200": turnResponse("The resumed turn, or its state while something is still awaited"),
    "409": errorResponse,
  },
  { parameters: [SESSION], requestBody: body("ToolApprovalsBody") },
);
export const chat = op(
  "chat",
  "The AI SDK useChat endpoint (DefaultChatTransport): the newest message starts a turn (with the body's `json_schema` and `max_steps`, as on /messages), answers client tools or answers approvals (`approval-responded` parts); `trigger: regenerate-message` retries the newest turn",
  {
    "200": turnResponse(
      "The turn's UI message stream; while the turn still waits for other answers (an approval given, a client output of the same step still due), its state as JSON, whatever the Accept",
      false,
    ),
    "400": {
      ...errorResponse,
      description:
        "`invalid_request`, or `unsupported_part`: the newest user message has a part the server cannot read (a `file` part; only text is read), nothing written",
    },
    "409": {
      ...errorResponse,
      description:
        "`edit_not_supported`: a user message posted with `messageId` (useChat's edit, `sendMessage({ text, messageId })`), as history is never rewound, nothing written; or the session's state refuses the turn or the answers (`turn_in_progress`, `nothing_to_retry`, `late_result`, …)",
    },
    "422": errorResponse,
  },
  { parameters: [SESSION], requestBody: body("ChatBody") },
);
export const openStream = op(
  "openStream",
  "Resume a turn's stream: the frames after Last-Event-ID, else the running turn from its start",
  { "200": streamResponse("The stream"), "204": { description: "No turn streaming and nothing missed" } },
  {
    description:
      "With `Last-Event-ID` (or `after`), the frames after it of the turn they belong to, then that turn live while " +
      "it runs. When that turn is older than the newest (the client dropped mid turn and a newer turn started " +
      "before it came back), the stream is the rest of that turn and ends with `[DONE]` at its last frame's id; a " +
      "reconnect with that id gets the next turn from its start. When the frames after the id were swept (the log " +
      "keeps the newest three turns), the newest turn's frames after it. Without either, the running turn from its " +
      "start.",
    parameters: [SESSION, ...LAST_EVENT_ID],
  },
);
export const resumeChatStream = op(
  "resumeChatStream",
  "The AI SDK's default reconnect URL (useChat `resume: true`): the same as GET /v1/sessions/{id}/stream",
  { "200": streamResponse("The stream"), "204": { description: "No turn streaming" } },
  { parameters: [SESSION, pathParam("chatId", "Must equal the session id"), ...LAST_EVENT_ID] },
);
export const retryTurn = op(
  "retryTurn",
  "Re-run the last failed, interrupted, cancelled or paused turn",
  { "200": turnResponse("The turn"), "201": turnResponse("The turn"), "409": errorResponse },
  { parameters: [SESSION] },
);
export const cancelTurn = op(
  "cancelTurn",
  "Cancel the running turn",
  { "200": jsonOf(ref("Cancelled"), "Cancelled"), "409": errorResponse },
  {
    parameters: [SESSION],
  },
);
