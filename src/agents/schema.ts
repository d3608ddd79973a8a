/** JSON Schema of `PUT /v1/agents/{agent}`; a fixed schema, validated by its build-time Ajv validator (`json-schema/`). */
import { NAME_FORM } from "../model/name-form";
import { EFFORTS, MAX_TOKENS_FIELDS } from "../providers/types";
import { MAX_WEBHOOK_SECRETS } from "../runs/signature";

export const agentBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["model"],
  properties: {
    model: {
      type: "object",
      additionalProperties: false,
      required: ["provider", "name"],
      properties: {
        provider: { enum: ["anthropic", "openai", "openai-responses"] },
        name: { type: "string", minLength: 1, maxLength: 200 },
        max_tokens: { type: "integer", minimum: 1, maximum: 200000 },
        max_tokens_field: { enum: MAX_TOKENS_FIELDS },
        context_window: { type: "integer", minimum: 1000, maximum: 10000000 },
        effort: { enum: EFFORTS },
        capabilities: {
          type: "object",
          additionalProperties: false,
          properties: {
            message_level_tools: { type: "boolean" },
            native_tool_search: { type: "boolean" },
            prompt_cache: { type: "boolean" },
            thinking: { anyOf: [{ type: "boolean" }, { enum: ["enabled", "adaptive"] }] },
            native_compaction: { type: "boolean" },
          },
        },
      },
    },
    system: { type: "string", maxLength: 200000 },
    max_steps: { type: "integer", minimum: 1, maximum: 64 },
    tools: {
      type: "array",
      maxItems: 5000,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["name", "input_schema", "execution"],
        properties: {
          name: { type: "string", pattern: NAME_FORM.source },
          description: { type: "string", maxLength: 10000 },
          input_schema: { type: "object" },
          discovery_schema: { type: "object" },
          defer: { type: "boolean" },
          always_load: { type: "boolean" },
          search_hint: { type: "string", maxLength: 1000 },
          requires_approval: { type: "boolean" },
          execution: {
            oneOf: [
              {
                type: "object",
                additionalProperties: false,
                required: ["type", "url"],
                properties: {
                  type: { const: "http" },
                  url: { type: "string", minLength: 1, maxLength: 2048 },
                  timeout_ms: { type: "integer", minimum: 100, maximum: 300000 },
                },
              },
              {
                type: "object",
                additionalProperties: false,
                required: ["type"],
                properties: { type: { const: "client" } },
              },
            ],
          },
        },
      },
    },
    mcp_servers: {
      type: "array",
      maxItems: 20,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["name", "url"],
        properties: {
          name: { type: "string", pattern: "^[a-zA-Z0-9_-]{1,32}$" },
          url: { type: "string", minLength: 1, maxLength: 2048 },
          headers: { type: "object", additionalProperties: { type: "string" } },
          defer: { type: "boolean" },
          require_approval: {
            anyOf: [
              { enum: ["always", "never"] },
              {
                type: "object",
                additionalProperties: false,
                required: ["tools"],
                properties: {
                  tools: {
                    type: "array",
                    maxItems: 200,
                    uniqueItems: true,
                    items: { type: "string", minLength: 1, maxLength: 200 },
                  },
                },
              },
            ],
          },
        },
      },
    },
    disclosure: {
      type: "object",
      additionalProperties: false,
      properties: {
        tool_search: { type: "boolean" },
        tool_info: { type: "boolean" },
        select_tools: { anyOf: [{ const: "auto" }, { type: "boolean" }] },
      },
    },
    compaction: {
      type: "object",
      additionalProperties: false,
      properties: {
        enabled: { type: "boolean" },
        threshold: { type: "number", minimum: 0.1, maximum: 0.95 },
        keep_recent_turns: { type: "integer", minimum: 0, maximum: 100 },
        tool_budget_tokens: { type: "integer", minimum: 0, maximum: 1000000 },
      },
    },
    webhook_secrets: {
      type: "array",
      maxItems: MAX_WEBHOOK_SECRETS,
      items: { type: "string", minLength: 8, maxLength: 500 },
    },
    webhook_tenant: { type: "string", pattern: NAME_FORM.source },
    approval_ttl_s: { type: "integer", minimum: 60, maximum: 31_536_000 },
  },
} as const;
