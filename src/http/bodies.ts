/**
 * JSON Schemas of every request body the worker validates (`validate.ts` `check`/`readBody`). The OpenAPI
 * document (`openapi/components.ts`) publishes these same objects, and `npm run schemas` compiles them (through
 * `fixed-schemas.ts`) into the validators the worker runs, so the contract and the checks cannot drift.
 */
import { NAME_FORM } from "../model/name-form";
import { messageContentSchema } from "./content-schema";
import { LOCATION_HINTS, SESSION_ID } from "./session-ref";
import { TOKEN_ACTIONS, TTL_MAX_S, TTL_MIN_S } from "./tokens";

export { agentBodySchema as agentBody } from "../agents/schema";

/** Most browser origins one tenant may allow. */
const MAX_CORS_ORIGINS = 100;

const resultContent = {
  anyOf: [
    { type: "string", maxLength: 1_000_000 },
    {
      type: "array",
      maxItems: 100,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["type", "text"],
        properties: { type: { const: "text" }, text: { type: "string" } },
      },
    },
  ],
} as const;

const toolResultsSchema = {
  type: "array",
  maxItems: 128,
  items: {
    type: "object",
    additionalProperties: false,
    required: ["tool_use_id", "content"],
    properties: {
      tool_use_id: { type: "string", minLength: 1, maxLength: 256 },
      content: resultContent,
      is_error: { type: "boolean" },
    },
  },
} as const;

/** A new user message's turn options, the same on /messages and /chat. */
const turnOptions = {
  max_steps: { type: "integer", minimum: 1, maximum: 64 },
  json_schema: { type: ["object", "boolean"] },
} as const;

export const messageBody = {
  type: "object",
  additionalProperties: false,
  required: ["content"],
  properties: {
    content: messageContentSchema(false),
    tool_results: toolResultsSchema,
    ...turnOptions,
  },
} as const;

export const toolResultsBody = {
  type: "object",
  additionalProperties: false,
  required: ["results"],
  properties: { results: { ...toolResultsSchema, minItems: 1 } },
} as const;

/** POST /v1/sessions/{id}/tool-approvals: a person's answers to open approvals. */
export const toolApprovalsBody = {
  type: "object",
  additionalProperties: false,
  required: ["approvals"],
  properties: {
    approvals: {
      type: "array",
      minItems: 1,
      maxItems: 128,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["approval_id", "approved"],
        properties: {
          approval_id: { type: "string", minLength: 1, maxLength: 256 },
          approved: { type: "boolean" },
          reason: { type: "string", maxLength: 2000 },
          signature: { type: "string", minLength: 1, maxLength: 256 },
        },
      },
    },
  },
} as const;

export const runBody = {
  type: "object",
  additionalProperties: false,
  required: ["input"],
  properties: {
    input: messageContentSchema(true),
    session_id: { type: "string", pattern: SESSION_ID.source },
    json_schema: { type: ["object", "boolean"] },
    callback_url: { type: "string", minLength: 1, maxLength: 2048 },
  },
} as const;

export const createSessionBody = {
  type: "object",
  additionalProperties: false,
  required: ["agent"],
  properties: {
    agent: { type: "string", pattern: NAME_FORM.source },
    id: { type: "string", pattern: SESSION_ID.source },
    metadata: { type: "object", maxProperties: 50 },
    location_hint: { enum: [...LOCATION_HINTS] },
  },
} as const;

export const createTokenBody = {
  type: "object",
  additionalProperties: false,
  required: ["actions"],
  properties: {
    actions: {
      type: "array",
      minItems: 1,
      maxItems: TOKEN_ACTIONS.length,
      uniqueItems: true,
      items: { enum: [...TOKEN_ACTIONS] },
    },
    ttl_s: { type: "integer", minimum: TTL_MIN_S, maximum: TTL_MAX_S },
  },
} as const;

export const createKeyBody = {
  type: "object",
  additionalProperties: false,
  required: ["tenant"],
  properties: {
    tenant: { type: "string", pattern: NAME_FORM.source },
    name: { type: "string", maxLength: 200 },
    // null/absent: the service default; 0: unlimited; N: N requests per minute (exact limiter).
    rate_limit_per_min: { type: ["integer", "null"], minimum: 0, maximum: 1_000_000 },
  },
} as const;

export const corsBody = {
  type: "object",
  additionalProperties: false,
  required: ["allowed_origins"],
  properties: {
    allowed_origins: {
      type: "array",
      maxItems: MAX_CORS_ORIGINS,
      uniqueItems: true,
      items: { type: "string", minLength: 1, maxLength: 300 },
    },
  },
} as const;

/**
 * POST /v1/sessions/{id}/chat: what the AI SDK's `useChat` (DefaultChatTransport) sends. Only the newest
 * message is read (the server owns history), and `trigger`: `regenerate-message` (useChat's `regenerate()`)
 * retries the newest turn instead. `max_steps` and `json_schema` (a transport's extra `body`) apply to a new user
 * message as on /messages. `messageId` beside a user message is an edit, refused (routes/chat-body.ts). The other
 * fields the SDK adds (`id`, other extras) are allowed and ignored.
 */
export const chatBody = {
  type: "object",
  required: ["messages"],
  properties: {
    ...turnOptions,
    id: { type: "string" },
    trigger: { type: "string" },
    messageId: { type: ["string", "null"] },
    messages: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        required: ["role", "parts"],
        properties: {
          id: { type: "string" },
          role: { enum: ["user", "assistant", "system"] },
          parts: { type: "array", maxItems: 1000, items: { type: "object", required: ["type"] } },
        },
      },
    },
  },
} as const;
