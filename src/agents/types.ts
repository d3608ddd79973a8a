/**
 * An agent's stored configuration: `AgentConfig` (model, system prompt, tools, MCP servers, disclosure,
 * compaction, webhook secrets), the defaults and limits that go with it, and `publicAgent`, the form reads
 * return, which never includes webhook secrets or MCP header values (only their count and header names).
 */
import type { JsonObject } from "../model/json";
import type { ModelConfig } from "../providers/types";

export type ToolExecution = { type: "http"; url: string; timeout_ms?: number } | { type: "client" };

export interface AgentTool {
  name: string;
  description: string;
  input_schema: JsonObject;
  discovery_schema?: JsonObject;
  defer?: boolean;
  always_load?: boolean;
  search_hint?: string;
  execution: ToolExecution;
  /** http tools only: a person must approve each call before it runs (src/session/approval-store.ts). */
  requires_approval?: boolean;
}

/** Which tools of an MCP server need a person's approval: all, none, or the named ones (server-side names). */
type McpApprovalPolicy = "always" | "never" | { tools: string[] };

export interface McpServerConfig {
  name: string;
  url: string;
  headers?: Record<string, string>;
  defer?: boolean;
  require_approval?: McpApprovalPolicy;
}

interface DisclosureConfig {
  tool_search: boolean;
  tool_info: boolean;
  select_tools: "auto" | boolean;
}

/** When and how a long session's history is summarised (README "Long sessions"). */
export interface CompactionConfig {
  enabled: boolean;
  /** Compact before a request whose estimated input exceeds this share of the context window. */
  threshold: number;
  /** Turns kept verbatim after the boundary, when they fit (fewer are kept when they do not). */
  keep_recent_turns: number;
  /** Tokens the schemas of loaded deferred tools may take after a compaction; absent = 10% of the window. */
  tool_budget_tokens?: number;
}

export const DEFAULT_COMPACTION: CompactionConfig = { enabled: true, threshold: 0.8, keep_recent_turns: 2 };

export interface AgentConfig {
  name: string;
  model: ModelConfig;
  system: string;
  max_steps: number;
  tools: AgentTool[];
  mcp_servers: McpServerConfig[];
  disclosure: DisclosureConfig;
  /** Absent in configs stored before compaction existed: `DEFAULT_COMPACTION` applies. */
  compaction?: CompactionConfig;
  webhook_secrets: string[];
  /** Tenant that owns runs started by a signed webhook (no API key); default `webhook:<agent>`. */
  webhook_tenant?: string;
  /** Open approvals older than this are declined ("the approval expired"); unset: they wait indefinitely. */
  approval_ttl_s?: number;
}

/**
 * An agent's config as the worker just read it from D1, with the agent-config epoch it was read at (null: no
 * such agent). Handed to a session object at creation and with a run, so the object keeps it as its copy.
 */
export interface AgentRead {
  config: AgentConfig | null;
  epoch: number;
}

/** Names the service reserves for its own tools (DESIGN §5). */
export const BUILTIN_TOOL_NAMES = ["tool_search", "tool_info", "select_tools", "structured_output"] as const;

export const DEFAULT_MAX_STEPS = 16;
export const MAX_STEPS_LIMIT = 64;

/** The agent as reads return it: write-only secrets removed. */
export function publicAgent(
  agent: AgentConfig,
): Omit<AgentConfig, "webhook_secrets"> & { webhook_secrets_count: number } {
  const { webhook_secrets, mcp_servers, ...rest } = agent;
  return {
    ...rest,
    mcp_servers: mcp_servers.map(({ headers, ...s }) => ({ ...s, header_names: Object.keys(headers ?? {}) })),
    webhook_secrets_count: webhook_secrets.length,
  };
}
