/**
 * The document's named components: its security schemes (a bearer credential, a Standard Webhooks signature), the
 * error responses every operation refers to (operation.ts), and its schemas. Request bodies are the very schema
 * objects the routes validate with (`bodies.ts`); responses are described by `responses.ts`; a stream's chunks by
 * `ui-message-chunk.ts`.
 */
import * as bodies from "../bodies";
import * as R from "../responses";
import { UIMessageChunk } from "../ui-message-chunk";
import { jsonOf, ref } from "./content";

export const COMPONENTS = {
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
        "Over a rate limit (`rate_limited`: an API key's or session token's requests, or a signed webhook " +
          "request's address past its failed signature checks), or a run's session queue is full (`run_queue_full`)",
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
        "D1 fails or does not answer what the route reads or writes (`database_unavailable`, with Retry-After; a " +
          "change the request makes may or may not have been made, and retrying it is safe, a webhook run's only " +
          "with its webhook-id or Idempotency-Key); D1 cannot be read to check the credential, origin or webhook " +
          "secret and nothing cached may stand in (`directory_unavailable`, with Retry-After); or, minting a " +
          "session token, no signing secret is configured (`tokens_unavailable`)",
      ),
      headers: {
        "Retry-After": {
          description: "Seconds to wait before trying again (`database_unavailable`, `directory_unavailable`).",
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
} as const;
