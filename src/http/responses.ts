/**
 * JSON Schemas of the API's JSON responses, for the OpenAPI document (`openapi/components.ts`). They state what
 * clients may rely on: the required fields and their types. Objects stay open (new fields may be added
 * without a breaking change); the e2e tests validate every response they read against these.
 */

import { PAGE_BUDGET_BYTES } from "../storage/limits";
import { agentBody } from "./bodies";

const str = { type: "string" } as const;
const nullableStr = { type: ["string", "null"] } as const;
const int = { type: "integer" } as const;
const json = {} as const;

function obj(properties: Record<string, unknown>, required: string[] = Object.keys(properties)) {
  return { type: "object", required, properties } as const;
}

export const ErrorResponse = obj({ error: obj({ code: str, message: str }) });

export const Part = {
  type: "object",
  required: ["type"],
  description:
    "A canonical history part: text, thinking (with its provider signature), tool_use, tool_result, " +
    "tool_declarations, a service notice, or a provider's server-side compaction (summary `content`, null when " +
    "it failed, plus opaque `encrypted` provider state).",
  properties: {
    type: { enum: ["text", "thinking", "tool_use", "tool_result", "tool_declarations", "notice", "compaction"] },
    text: str,
    thinking: str,
    signature: { ...str, description: "thinking: the provider's signature, sent back to it byte for byte." },
    redacted: {
      ...str,
      description: "thinking: a redacted thinking block's opaque data (Anthropic); `thinking` empty.",
    },
    id: str,
    name: str,
    input: { type: "object" },
    tool_use_id: str,
    content: { anyOf: [str, { type: "array", items: { type: "object" } }, { type: "null" }] },
    is_error: { type: "boolean" },
    tools: {
      type: "array",
      description:
        "tool_declarations: the tool declarations loaded since the last user message; notice: the tool set (a " +
        "`tools_baseline`, or a `tools_changed` too large to list whole), by name.",
      items: {
        anyOf: [
          str,
          obj({ name: str, description: str, input_schema: { type: "object" }, defer_loading: { type: "boolean" } }, [
            "name",
            "description",
            "input_schema",
          ]),
        ],
      },
    },
    kind: {
      enum: ["tools_changed", "tools_baseline"],
      description: "notice: a change of the tool set (`added`, `removed`), or the set the session started from.",
    },
    added: { type: "array", items: str, description: "notice (`tools_changed`): the tools made available." },
    removed: { type: "array", items: str, description: "notice (`tools_changed`): the tools no longer available." },
    listing: { ...str, description: "notice (`tools_baseline`): the deferred tools' listing of the system prompt." },
    provider: str,
    encrypted: str,
  },
} as const;

export const Message = obj(
  {
    seq: int,
    role: { enum: ["user", "assistant"] },
    origin: { enum: ["client", "model", "tool", "synthetic", "system"] },
    turn_id: nullableStr,
    parts: { type: "array", items: Part },
    created_at: str,
  },
  ["seq", "role", "origin", "parts", "created_at"],
);

const TurnStatus = {
  enum: ["running", "completed", "awaiting_tool_results", "awaiting_approval", "failed", "cancelled", "interrupted"],
} as const;

/** An approval waiting for a person (`pending_approvals`, a run's `approvals`). */
export const OpenApproval = obj(
  {
    approval_id: str,
    tool_call_id: str,
    name: str,
    input: { type: "object" },
    resolved_input: {
      type: "object",
      description: "The arguments the call runs with, its `$tool` references resolved; only when it has any.",
    },
    reason: str,
    signature: str,
    requested_at: str,
    expires_at: nullableStr,
  },
  ["approval_id", "tool_call_id", "name", "input", "reason", "signature"],
);

/**
 * The newest turn's paused step (`pause` of the session state): every approval of the pause with its answer, and
 * the step's calls with their results so far (the history shows them only once the step closes).
 */
export const PauseView = {
  ...obj({
    turn_id: str,
    approvals: {
      type: "array",
      items: {
        ...OpenApproval,
        required: [...OpenApproval.required, "status", "decided_reason"],
        properties: {
          ...OpenApproval.properties,
          status: { enum: ["pending", "approved", "declined"] },
          decided_reason: { ...nullableStr, description: "Why it was declined, as given (or by its TTL)." },
        },
      },
    },
    calls: {
      type: "array",
      items: obj(
        {
          id: str,
          name: str,
          execution: str,
          state: {
            enum: ["pending", "resolved", "synthesized", "skipped"],
            description: "`pending`: no result yet (waiting for a person, a client, or to run once approved).",
          },
          result: { anyOf: [str, { type: "array", items: { type: "object" } }], description: "Once it has one." },
          is_error: { type: "boolean" },
        },
        ["id", "name", "execution", "state"],
      ),
    },
  }),
  description:
    "The paused step of the newest turn: every approval of the pause, answered or not, and the step's calls " +
    "with their results so far (GET /messages shows them once the step closes).",
} as const;

export const TurnResult = obj(
  {
    turn_id: str,
    status: TurnStatus,
    finish_reason: nullableStr,
    messages: { type: "array", items: Message },
    error: obj({ code: str, message: str, retryable: { type: "boolean" } }, ["code", "message"]),
    usage: { type: "object", additionalProperties: { type: "number" } },
    structured_result: json,
    pending_tool_calls: { type: "array", items: obj({ id: str, name: str }) },
    pending_approvals: { type: "array", items: OpenApproval },
  },
  ["turn_id", "status", "messages"],
);

export const Key = obj(
  { id: str, key: str, tenant: str, name: nullableStr, rate_limit_per_min: { type: ["integer", "null"] } },
  ["id", "key", "tenant"],
);

export const KeyList = obj({
  keys: {
    type: "array",
    items: obj(
      {
        id: str,
        tenant: str,
        name: nullableStr,
        created_at: str,
        revoked_at: nullableStr,
        rate_limit_per_min: Key.properties.rate_limit_per_min,
      },
      ["id", "tenant", "created_at"],
    ),
  },
});

/** What PUT /v1/agents/{agent} takes of each setting: an agent read shows each as stored. */
const setting = agentBody.properties;
const { headers: _headers, ...mcpServer } = setting.mcp_servers.items.properties;

export const Agent = {
  type: "object",
  required: ["name", "model"],
  description:
    "The stored agent, as normalised (defaults filled in); webhook secrets and MCP header values are write-only " +
    "(only the secrets' count and the headers' names are shown).",
  properties: {
    name: str,
    model: setting.model,
    system: setting.system,
    max_steps: setting.max_steps,
    tools: setting.tools,
    mcp_servers: {
      type: "array",
      items: obj({ ...mcpServer, header_names: { type: "array", items: str } }, ["name", "url", "header_names"]),
    },
    disclosure: setting.disclosure,
    compaction: setting.compaction,
    webhook_tenant: setting.webhook_tenant,
    approval_ttl_s: setting.approval_ttl_s,
    webhook_secrets_count: int,
  },
} as const;

export const AgentList = obj({ agents: { type: "array", items: Agent }, next: nullableStr });

export const SessionCreated = obj({ id: str, agent: str, created_at: str, metadata: { type: ["object", "null"] } }, [
  "id",
  "agent",
  "created_at",
]);

export const SessionList = obj({
  sessions: { type: "array", items: obj({ id: str, agent: str, created_at: str }) },
  next: nullableStr,
});

/** How a turn ended, or that it has not: the session state's `last_turn` and a history page's `turns`. */
const TurnOutcome = obj(
  {
    id: str,
    status: TurnStatus,
    finish_reason: nullableStr,
    error: { anyOf: [{ type: "null" }, obj({ code: str, message: str })] },
  },
  ["id", "status", "finish_reason", "error"],
);

export const SessionState = obj(
  {
    id: str,
    agent: str,
    status: { enum: ["idle", "running", "awaiting_tool_results", "awaiting_approval", "failed"] },
    created_at: str,
    metadata: { type: ["object", "null"] },
    turns: int,
    messages: int,
    last_turn: { anyOf: [{ type: "null" }, TurnOutcome] },
    loaded_tools: { type: "array", items: str },
    pending_tool_calls: {
      type: "array",
      description:
        "Open calls with no result yet. `awaited` is false for a call of a turn that failed with it open: a " +
        "result for it is kept, but no turn goes on with it until POST /retry (or a new message).",
      items: obj({ id: str, name: str, execution: str, awaited: { type: "boolean" } }),
    },
    context: obj(
      {
        estimated_tokens: int,
        view_start_seq: int,
        compactions: int,
        context_window: { type: ["integer", "null"] },
        threshold: { type: ["number", "null"] },
        used: { type: ["number", "null"] },
      },
      ["estimated_tokens", "view_start_seq", "compactions"],
    ),
    pending_approvals: { type: "array", items: OpenApproval },
    pause: { anyOf: [{ type: "null" }, PauseView] },
    mcp_servers: {
      type: "array",
      description: "The agent's MCP servers as of their last listing (a turn lists them first).",
      items: obj(
        {
          name: str,
          status: { enum: ["connected", "disconnected"] },
          tools: int,
          error: nullableStr,
          checked_at: str,
        },
        ["name", "status", "tools", "error", "checked_at"],
      ),
    },
  },
  [
    "id",
    "agent",
    "status",
    "created_at",
    "turns",
    "messages",
    "last_turn",
    "loaded_tools",
    "pending_tool_calls",
    "pause",
    "mcp_servers",
  ],
);

/** A compaction marker: the summary replaced the provider view's messages before `before_seq`. */
const CompactionMarker = obj({
  before_seq: int,
  summary: str,
  tokens_before: int,
  tokens_after: int,
  created_at: str,
  turn_id: nullableStr,
});

/** The `next` of a page by seq (messages, events), which may end before its `limit`. */
function seqNext(items: string) {
  return {
    type: ["integer", "null"],
    description: `The seq to pass as \`after\` for the next page; null on the last. A page also ends before ${PAGE_BUDGET_BYTES / 1e6} MB of stored ${items} (holding at least one), so it may hold fewer than \`limit\` with a \`next\`: a client reads them all by following \`next\` until it is null.`,
  } as const;
}

export const MessagesPage = obj(
  {
    messages: { type: "array", items: Message },
    next: seqNext("messages"),
    compactions: { type: "array", items: CompactionMarker },
    turns: {
      type: "array",
      description:
        "How each ended turn with a message on this page ended (oldest first): a client rebuilding a transcript can say which turns failed, were stopped or cut off. A turn that wrote no message, or that the retention sweep removed, is not listed.",
      items: TurnOutcome,
    },
  },
  ["messages", "next", "compactions", "turns"],
);

export const Compaction = obj({
  id: str,
  compacted: { const: true },
  boundary_seq: int,
  tokens_before: int,
  tokens_after: int,
  tools_kept: { type: "array", items: str },
  tools_dropped: { type: "array", items: str },
  native: { type: "boolean" },
  summary_requests: int,
});

export const SessionEvent = obj({ seq: int, type: str, at: str, turn_id: nullableStr, data: json }, [
  "seq",
  "type",
  "at",
  "turn_id",
]);

export const EventsPage = obj({ events: { type: "array", items: SessionEvent }, next: seqNext("events") });

export const Token = obj({ token: str, expires_at: str, session_id: str, actions: { type: "array", items: str } });

/** A run's status (RunStatus in session/runs/types.ts). */
const RunStatus = { enum: ["queued", "running", "awaiting_approval", "completed", "failed"] } as const;

/** POST /v1/agents/{agent}/runs: a replayed start answers the run's status now, whatever it is. */
export const RunAccepted = obj({ run_id: str, session_id: str, status: RunStatus });

export const Run = obj(
  {
    run_id: str,
    agent: str,
    session_id: str,
    status: RunStatus,
    turn_id: nullableStr,
    created_at: str,
    started_at: nullableStr,
    ended_at: nullableStr,
    resumes: int,
    result: obj({ output: str, finish_reason: nullableStr, usage: { type: "object" } }, ["output"]),
    structured_result: json,
    error: obj({ code: str, message: str }),
    approvals: { type: "array", items: OpenApproval },
    callback: obj({ url: str, status: str, attempts: { type: "array" }, next_attempt_at: nullableStr }, [
      "url",
      "status",
      "attempts",
    ]),
  },
  ["run_id", "session_id", "status"],
);

export const Cors = obj({ tenant: str, allowed_origins: { type: "array", items: str } });

/** DELETE /v1/agents/{agent}: an agent is named, not given an id. */
export const AgentDeleted = obj({ name: str, deleted: { const: true } });

/** `{id, <flag>: true}` answers of DELETE/clear/revoke. */
export function done(flag: string) {
  return obj({ id: str, [flag]: { const: true } });
}

export const Cancelled = obj({ status: str, turn_id: str });
