/**
 * The OpenAPI 3.1 document served at /openapi.json (and rendered at /docs). Request bodies are the very
 * schema objects the routes validate with (`bodies.ts`); responses are described by `responses.ts`. The
 * e2e suite validates the document with an OpenAPI validator and generates its typed client from it, and the
 * e2e and Workers suites check every answer they read against it (test/helpers/conformance.ts), so a contract
 * change the document misses fails the build.
 * docs/API.md is the prose version of this contract.
 */
import { MAX_KEY_CHARS, PAGE_BUDGET_BYTES } from "../storage/limits";
import * as bodies from "./bodies";
import * as R from "./responses";
import { SESSION_TENANT } from "./session-ref";
import { UIMessageChunk } from "./ui-message-chunk";

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const jsonOf = (schema: Json, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
const errorResponse = { $ref: "#/components/responses/Error" };
/** A 429: `rate_limited` (or a run's `run_queue_full`), with the seconds to wait. */
const rateLimitedResponse = { $ref: "#/components/responses/RateLimited" };
/** A 503: `directory_unavailable` (D1 cannot be read), with the seconds to wait; minting a token, `tokens_unavailable`. */
const unavailableResponse = { $ref: "#/components/responses/Unavailable" };
const body = (name: string, description?: string) => ({
  required: true,
  ...(description ? { description } : {}),
  content: { "application/json": { schema: ref(name) } },
});

const uiStreamHeaders = {
  "x-vercel-ai-ui-message-stream": { description: "Always `v1`.", schema: { const: "v1" } },
  "x-turn-id": { description: "The turn this stream belongs to.", schema: { type: "string" } },
};
const UI_STREAM = {
  type: "string",
  description:
    "An AI SDK UI message stream (v1) as Server-Sent Events: every frame has `id: <n>` (its row in the " +
    "session's stream log) and `data: <UIMessageChunk JSON>` (start, start-step, text-*, reasoning-*, " +
    "tool-input-*, tool-output-*, tool-approval-request, tool-approval-response, data-*, finish-step, finish, " +
    "error, abort; the `UIMessageChunk` schema); the last frame is `data: [DONE]`. Reconnect with `Last-Event-ID` " +
    "to get exactly the frames after it. A stream that has sent nothing for a while (15 s by default) gets a " +
    "keep-alive comment, `: ping`, which has no id and which SSE parsers skip.",
};
/**
 * One event of the stream, in the shape of OpenAPI 3.2's `itemSchema` for `text/event-stream` (an extension
 * here: the document is 3.1, which has no way to describe a stream's items; rename it when moving to 3.2).
 */
const UI_STREAM_ITEM = {
  type: "object",
  required: ["id", "data"],
  properties: {
    id: { type: "string", description: "The frame's row in the stream log (`[DONE]` repeats the last one)." },
    data: {
      anyOf: [
        { type: "string", contentMediaType: "application/json", contentSchema: ref("UIMessageChunk") },
        { const: "[DONE]" },
      ],
    },
  },
};
const uiStream = { schema: UI_STREAM, "x-itemSchema": UI_STREAM_ITEM };
/** A turn's answer, a UI message stream or its JSON result; `byAccept`: the Accept header chooses which. */
const turnResponse = (description: string, byAccept = true) => ({
  description: byAccept
    ? `${description}. SSE (default) or, with \`Accept: application/json\`, the turn result once it ends.`
    : description,
  headers: uiStreamHeaders,
  content: {
    "text/event-stream": uiStream,
    "application/json": { schema: ref("TurnResult") },
  },
});
const streamResponse = (description: string) => ({
  description,
  headers: uiStreamHeaders,
  content: { "text/event-stream": uiStream },
});

const pathParam = (name: string, description: string) => ({
  name,
  in: "path",
  required: true,
  description,
  schema: { type: "string" },
});
const SESSION = pathParam("id", "Session id");
/** The tenant of the admin's session routes: an API key's, or `webhook:<agent>` (routes/tenants.ts). */
const SESSIONS_TENANT = {
  ...pathParam(
    "tenant",
    "Tenant: an API key's, or `webhook:<agent>` (signed runs of an agent without `webhook_tenant`)",
  ),
  schema: { type: "string", pattern: SESSION_TENANT.source },
};
const AGENT = pathParam("agent", "Agent name");
/** The page size of a list route: the bounds and default its route enforces (routes/sessions.ts). */
const limit = (maximum: number, fallback: number) => ({
  name: "limit",
  in: "query",
  schema: { type: "integer", minimum: 1, maximum, default: fallback },
  description: "Page size",
});
/** Sessions are paged by id. */
const SESSIONS_PAGE = [
  limit(200, 50),
  {
    name: "after",
    in: "query",
    schema: { type: "string" },
    description: "Cursor: the `next` of the previous page (a session id)",
  },
];
/** Agents are paged by name, few at a time (a config may take 1.9 MB). */
const AGENTS_PAGE = [
  limit(100, 20),
  {
    name: "after",
    in: "query",
    schema: { type: "string" },
    description: "Cursor: the `next` of the previous page (an agent name)",
  },
];
/** Messages and events are paged by seq (and bytes: PAGE_BUDGET_BYTES). */
const SEQ_PAGE = [
  limit(1000, 100),
  {
    name: "after",
    in: "query",
    schema: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 },
    description: "Cursor: only items with a greater `seq`; the `next` of the previous page",
  },
];
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

/**
 * An `Idempotency-Key` or `webhook-id` header: 1..255 characters. Outside that an `Idempotency-Key` is `400`
 * (routes/turns.ts, routes/runs.ts, where a signed run's `webhook-id` is its key too) and a `webhook-id` fails the
 * signature check, `401` (runs/signature.ts).
 */
const KEY_HEADER = { type: "string", minLength: 1, maxLength: MAX_KEY_CHARS } as const;

/** The Standard Webhooks headers of a signed request (the `webhookSignature` scheme). */
const WEBHOOK_HEADERS = [
  { name: "webhook-id", in: "header", schema: KEY_HEADER },
  { name: "webhook-timestamp", in: "header", schema: { type: "string" } },
  { name: "webhook-signature", in: "header", schema: { type: "string" } },
];

/**
 * The routes that also take a Standard Webhooks signature instead of a bearer credential (routes/runs.ts): either
 * requirement is enough.
 */
const BEARER_OR_SIGNED = [{ bearer: [] }, { webhookSignature: [] }];

/** An operation: bearer auth (unless `extra` says otherwise), and the error answers every API route may give. */
function op(operationId: string, summary: string, responses: Json, extra: Json = {}): Json {
  return {
    operationId,
    summary,
    security: [{ bearer: [] }],
    ...extra,
    responses: {
      ...responses,
      // An operation may describe its own 400 (the codes it adds to invalid_request).
      "400": responses["400"] ?? errorResponse,
      "401": errorResponse,
      "403": errorResponse,
      "404": errorResponse,
      "429": rateLimitedResponse,
      // internal_error: an unexpected failure, or a store that cannot be reached (DELETE of a session, say).
      "500": errorResponse,
      // directory_unavailable: a credential, origin or webhook secret D1 cannot be read for (directory.ts).
      "503": unavailableResponse,
      // Every body is read under a byte cap (validate.ts readBody): over it → 413 payload_too_large.
      ...(extra.requestBody ? { "413": errorResponse } : {}),
    },
  };
}

export const OPENAPI = {
  openapi: "3.1.0",
  info: {
    title: "Switchboard",
    version: "1.0.0",
    description:
      "Chat and agent sessions for tool-using LLMs. Authenticate with `Authorization: Bearer <key>`: the " +
      "admin key, a tenant API key, or a session token (scoped to one session and some actions; the only " +
      'credential a browser or mobile app should hold). Every error is `{"error": {"code", "message"}}`.',
  },
  servers: [{ url: "/" }],
  components: {
    securitySchemes: {
      bearer: { type: "http", scheme: "bearer" },
      webhookSignature: {
        type: "apiKey",
        in: "header",
        name: "webhook-signature",
        description:
          'Standard Webhooks: `webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` ' +
          "by one of the agent's `webhook_secrets`, sent with the `webhook-id` and `webhook-timestamp` headers " +
          "(at most 5 minutes off).",
      },
    },
    responses: {
      Error: jsonOf(ref("Error"), "An error: a stable `code` and a human-readable `message`"),
      RateLimited: {
        ...jsonOf(
          ref("Error"),
          "Over a rate limit (`rate_limited`), or a run's session queue is full (`run_queue_full`)",
        ),
        headers: {
          "Retry-After": {
            description: "Seconds to wait before trying again.",
            schema: { type: "integer", minimum: 0 },
          },
        },
      },
      Unavailable: {
        ...jsonOf(
          ref("Error"),
          "D1 cannot be read to check the credential, origin or webhook secret and nothing cached may stand in " +
            "(`directory_unavailable`, with Retry-After); or, minting a session token, no signing secret is " +
            "configured (`tokens_unavailable`)",
        ),
        headers: {
          "Retry-After": {
            description: "Seconds to wait before trying again (`directory_unavailable`).",
            schema: { type: "integer", minimum: 0 },
          },
        },
      },
    },
    schemas: {
      // Request bodies: the objects the routes validate with.
      CreateKeyBody: bodies.createKeyBody,
      AgentBody: bodies.agentBody,
      CreateSessionBody: bodies.createSessionBody,
      CreateTokenBody: bodies.createTokenBody,
      CorsBody: bodies.corsBody,
      MessageBody: bodies.messageBody,
      ToolResultsBody: bodies.toolResultsBody,
      ToolApprovalsBody: bodies.toolApprovalsBody,
      ChatBody: bodies.chatBody,
      RunBody: bodies.runBody,
      // Responses.
      Error: R.ErrorResponse,
      Part: R.Part,
      Message: R.Message,
      TurnResult: R.TurnResult,
      OpenApproval: R.OpenApproval,
      PauseView: R.PauseView,
      Key: R.Key,
      KeyList: R.KeyList,
      Agent: R.Agent,
      AgentList: R.AgentList,
      AgentDeleted: R.AgentDeleted,
      SessionCreated: R.SessionCreated,
      SessionList: R.SessionList,
      SessionState: R.SessionState,
      MessagesPage: R.MessagesPage,
      SessionEvent: R.SessionEvent,
      EventsPage: R.EventsPage,
      Token: R.Token,
      RunAccepted: R.RunAccepted,
      Run: R.Run,
      Cors: R.Cors,
      Cancelled: R.Cancelled,
      Deleted: R.done("deleted"),
      Cleared: R.done("cleared"),
      Compaction: R.Compaction,
      Revoked: R.done("revoked"),
      // The stream's chunks (the JSON of each SSE frame's data).
      UIMessageChunk,
    },
  },
  paths: {
    "/healthz": {
      get: {
        operationId: "health",
        summary: "Liveness",
        responses: { "200": jsonOf({ type: "object", properties: { ok: { const: true } } }, "ok") },
      },
    },
    "/v1/keys": {
      post: op(
        "createKey",
        "Create a tenant API key (admin)",
        { "201": jsonOf(ref("Key"), "The key; shown once") },
        {
          requestBody: body("CreateKeyBody"),
        },
      ),
      get: op("listKeys", "List keys (admin)", { "200": jsonOf(ref("KeyList"), "Keys, without secrets") }),
    },
    "/v1/keys/{id}": {
      delete: op(
        "revokeKey",
        "Revoke a key (admin)",
        { "200": jsonOf(ref("Revoked"), "Revoked") },
        {
          parameters: [pathParam("id", "Key id")],
        },
      ),
    },
    "/v1/agents": {
      get: op(
        "listAgents",
        `List agents (admin), a page by name; a page ends before ${PAGE_BUDGET_BYTES / 1e6} MB of configs, so it may hold fewer than limit`,
        { "200": jsonOf(ref("AgentList"), "Agents") },
        { parameters: AGENTS_PAGE },
      ),
    },
    "/v1/agents/{agent}": {
      put: op(
        "putAgent",
        "Create or replace an agent (admin); takes effect at the next turn of each session",
        {
          "200": jsonOf(ref("Agent"), "Replaced"),
          "201": jsonOf(ref("Agent"), "Created"),
          "413": errorResponse,
          "422": jsonOf(
            ref("Error"),
            "`invalid_schema`: a tool schema (`input_schema`, `discovery_schema`) is not a valid JSON Schema (or its root is not an object)",
          ),
        },
        { parameters: [AGENT], requestBody: body("AgentBody") },
      ),
      get: op(
        "getAgent",
        "Read an agent (admin)",
        { "200": jsonOf(ref("Agent"), "The agent") },
        { parameters: [AGENT] },
      ),
      delete: op(
        "deleteAgent",
        "Delete an agent (admin)",
        { "200": jsonOf(ref("AgentDeleted"), "Deleted") },
        {
          parameters: [AGENT],
        },
      ),
    },
    "/v1/agents/{agent}/runs": {
      post: op(
        "startRun",
        "Start a webhook run: a tenant key, or a Standard Webhooks signature (webhook-id, webhook-timestamp, webhook-signature)",
        {
          "202": {
            ...jsonOf(ref("RunAccepted"), "Accepted; the session holds the run"),
            headers: {
              "x-run-replayed": {
                description: "`true` when this answers a repeated `webhook-id` (or `Idempotency-Key`): the same run.",
                schema: { const: "true" },
              },
            },
          },
          // 429 (every op's): also run_queue_full, the session already holds MAX_QUEUED_RUNS queued runs.
          "409": errorResponse,
          "422": errorResponse,
        },
        {
          parameters: [AGENT, ...WEBHOOK_HEADERS, { name: "Idempotency-Key", in: "header", schema: KEY_HEADER }],
          requestBody: body("RunBody"),
          security: BEARER_OR_SIGNED,
        },
      ),
    },
    "/v1/runs/{id}": {
      get: op(
        "getRun",
        "Run status, result and callback attempts",
        {
          "200": jsonOf(ref("Run"), "The run"),
          // A run whose hand-off to its session never completed is handed over by this read (routes/runs.ts), and
          // refused as at admission when its session now belongs to another agent.
          "409": errorResponse,
        },
        {
          parameters: [pathParam("id", "Run id")],
        },
      ),
    },
    "/v1/runs/{id}/approvals": {
      post: op(
        "answerRunApprovals",
        "Approve or decline a run's tool calls waiting for a person: the admin key, an API key of the run's tenant, or (a run started by a signed webhook) a Standard Webhooks signature by one of the agent's secrets",
        {
          // routes/runs.ts always asks the session for JSON: a run's approver gets the result, never a stream.
          "200": jsonOf(
            ref("TurnResult"),
            "The resumed turn once it ends, or its state while something is still awaited",
          ),
          "409": errorResponse,
        },
        {
          parameters: [pathParam("id", "Run id"), ...WEBHOOK_HEADERS],
          requestBody: body("ToolApprovalsBody"),
          security: BEARER_OR_SIGNED,
        },
      ),
    },
    "/v1/sessions": {
      post: op(
        "createSession",
        "Create a session",
        {
          "200": jsonOf(ref("SessionCreated"), "A retried create: the session, as its create answered it"),
          "201": jsonOf(ref("SessionCreated"), "Created"),
          "409": errorResponse,
        },
        {
          requestBody: body("CreateSessionBody"),
        },
      ),
      get: op(
        "listSessions",
        "List the tenant's sessions",
        { "200": jsonOf(ref("SessionList"), "A page") },
        {
          parameters: SESSIONS_PAGE,
        },
      ),
    },
    "/v1/sessions/{id}": {
      get: op(
        "getSession",
        "Session state",
        { "200": jsonOf(ref("SessionState"), "State") },
        { parameters: [SESSION] },
      ),
      delete: op(
        "deleteSession",
        "Delete a session and everything in it",
        { "200": jsonOf(ref("Deleted"), "Deleted") },
        {
          parameters: [SESSION],
        },
      ),
    },
    "/v1/sessions/{id}/messages": {
      get: op(
        "listMessages",
        `The stored history, oldest first; a page ends before ${PAGE_BUDGET_BYTES / 1e6} MB of stored messages, so it may hold fewer than limit: follow next until it is null`,
        { "200": jsonOf(ref("MessagesPage"), "A page") },
        {
          parameters: [SESSION, ...SEQ_PAGE],
        },
      ),
      post: op(
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
              description:
                'A repeat with the same key and body returns the same turn; keys starting "run:" are reserved.',
              schema: { ...KEY_HEADER, not: { pattern: "^run:" } },
            },
          ],
          requestBody: body("MessageBody"),
        },
      ),
    },
    "/v1/sessions/{id}/tool-results": {
      post: op(
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
      ),
    },
    "/v1/sessions/{id}/tool-approvals": {
      post: op(
        "answerToolApprovals",
        "Approve or decline tool calls waiting for a person (needs the `approve` action); the turn resumes once nothing else is awaited",
        {
          "200": turnResponse("The resumed turn, or its state while something is still awaited"),
          "409": errorResponse,
        },
        { parameters: [SESSION], requestBody: body("ToolApprovalsBody") },
      ),
    },
    "/v1/sessions/{id}/chat": {
      post: op(
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
      ),
    },
    "/v1/sessions/{id}/stream": {
      get: op(
        "openStream",
        "Resume the newest turn's stream (from Last-Event-ID, else from its start while it runs)",
        { "200": streamResponse("The stream"), "204": { description: "No turn streaming and nothing missed" } },
        { parameters: [SESSION, ...LAST_EVENT_ID] },
      ),
    },
    "/v1/sessions/{id}/chat/{chatId}/stream": {
      get: op(
        "resumeChatStream",
        "The AI SDK's default reconnect URL (useChat `resume: true`): the same as GET /v1/sessions/{id}/stream",
        { "200": streamResponse("The stream"), "204": { description: "No turn streaming" } },
        { parameters: [SESSION, pathParam("chatId", "Must equal the session id"), ...LAST_EVENT_ID] },
      ),
    },
    "/v1/sessions/{id}/retry": {
      post: op(
        "retryTurn",
        "Re-run the last failed, interrupted, cancelled or paused turn",
        { "200": turnResponse("The turn"), "201": turnResponse("The turn"), "409": errorResponse },
        { parameters: [SESSION] },
      ),
    },
    "/v1/sessions/{id}/cancel": {
      post: op(
        "cancelTurn",
        "Cancel the running turn",
        { "200": jsonOf(ref("Cancelled"), "Cancelled"), "409": errorResponse },
        {
          parameters: [SESSION],
        },
      ),
    },
    "/v1/sessions/{id}/compact": {
      post: op(
        "compactSession",
        "Summarise the history before a turn boundary now (README: Long sessions)",
        { "200": jsonOf(ref("Compaction"), "Compacted"), "409": errorResponse },
        { parameters: [SESSION] },
      ),
    },
    "/v1/sessions/{id}/clear": {
      post: op(
        "clearSession",
        "Empty the history and the loaded tools",
        { "200": jsonOf(ref("Cleared"), "Cleared"), "409": errorResponse },
        { parameters: [SESSION] },
      ),
    },
    "/v1/sessions/{id}/events": {
      get: op(
        "listEvents",
        `Typed session events, oldest first; a page ends before ${PAGE_BUDGET_BYTES / 1e6} MB of stored events, so it may hold fewer than limit: follow next until it is null`,
        { "200": jsonOf(ref("EventsPage"), "A page") },
        {
          parameters: [SESSION, ...SEQ_PAGE],
        },
      ),
    },
    "/v1/sessions/{id}/tokens": {
      post: op(
        "mintToken",
        "Mint a short-lived session token (tenant API key only)",
        { "201": jsonOf(ref("Token"), "The token") },
        { parameters: [SESSION], requestBody: body("CreateTokenBody") },
      ),
    },
    "/v1/tenants/{tenant}/cors": {
      put: op(
        "putCors",
        "Replace a tenant's allowed browser origins (admin)",
        { "200": jsonOf(ref("Cors"), "Saved") },
        {
          parameters: [pathParam("tenant", "Tenant")],
          requestBody: body("CorsBody"),
        },
      ),
      get: op(
        "getCors",
        "A tenant's allowed browser origins (admin)",
        { "200": jsonOf(ref("Cors"), "Origins") },
        {
          parameters: [pathParam("tenant", "Tenant")],
        },
      ),
    },
    "/v1/tenants/{tenant}/sessions": {
      get: op(
        "listTenantSessions",
        "List any tenant's sessions, `webhook:<agent>` too (admin)",
        { "200": jsonOf(ref("SessionList"), "A page") },
        {
          parameters: [SESSIONS_TENANT, ...SESSIONS_PAGE],
        },
      ),
    },
    "/v1/tenants/{tenant}/sessions/{id}": {
      delete: op(
        "deleteTenantSession",
        "Delete any tenant's session, as its own DELETE does (admin)",
        { "200": jsonOf(ref("Deleted"), "Deleted") },
        {
          parameters: [SESSIONS_TENANT, SESSION],
        },
      ),
    },
    "/v1/tenants/{tenant}/sessions/{id}/clear": {
      post: op(
        "clearTenantSession",
        "Clear any tenant's session, as its own clear does (admin)",
        { "200": jsonOf(ref("Cleared"), "Cleared"), "409": errorResponse },
        {
          parameters: [SESSIONS_TENANT, SESSION],
        },
      ),
    },
  },
} as const;
