/**
 * MCP client limits: caps on servers, tools and response sizes, the list and call timeouts and the tool-list
 * cache TTL. `mcpLimits` reads the worker-variable overrides (SWITCHBOARD_MCP_*_MS) and the private-URL flag.
 */
import { flag, positive } from "../env-values";

/** Servers per agent (the agent body schema caps `mcp_servers` at this many, too). */
export const MAX_MCP_SERVERS = 20;
/** Tools taken from one server; the rest are ignored and the server's status says so. */
export const MAX_TOOLS_PER_SERVER = 200;
/** Bytes of one server's accepted tool list as JSON: cached as one SQLite row, which must stay under 2 MB. */
export const MAX_LIST_BYTES = 1_500_000;
/**
 * Bytes of one tool's output schema kept with the list (to check its results). A larger one is not kept, and
 * neither is one that would push the tool past MAX_LIST_BYTES: its results go unchecked, the tool is still taken.
 */
export const MAX_OUTPUT_SCHEMA_BYTES = 64 * 1024;
/** tools/list pages followed before giving up on a server that keeps paginating. */
export const MAX_LIST_PAGES = 20;
/** Bytes of one answer to tools/list or tools/call read at most; past it the call fails (the rest is not read). */
export const MAX_MCP_RESPONSE_BYTES = 8 * 1024 * 1024;
/**
 * Characters of one MCP tool result kept in history; the rest is cut with a marker noting the full size, and the
 * result is stored as cut (`tool_calls.cut`), so a `$tool` reference to it is refused.
 */
export const MAX_MCP_OUTPUT_CHARS = 100_000;

/** initialize + tools/list of one server; a turn waits for this at most before it starts without it. */
const DEFAULT_LIST_TIMEOUT_MS = 5_000;
/** One tools/call. */
const DEFAULT_CALL_TIMEOUT_MS = 30_000;
/** A connected server's tool list is reused this long unless it announces a change. */
const DEFAULT_TTL_MS = 5 * 60_000;
/**
 * A server whose last probe timed out is not probed again for this long, so a black-holed server does not
 * add the list timeout to every turn. Fast failures (connection refused) are re-probed at every turn.
 */
export const RETRY_AFTER_TIMEOUT_MS = 30_000;
/** An idle connection is closed after this, so its open GET stream cannot keep the object alive. */
export const IDLE_CLOSE_MS = 60_000;

export interface McpLimits {
  listTimeoutMs: number;
  callTimeoutMs: number;
  ttlMs: number;
  allowPrivate: boolean;
}

/** The worker variables read here (structural, so this module stays free of the Workers types). */
interface McpEnv {
  SWITCHBOARD_ALLOW_PRIVATE_URLS?: string;
  SWITCHBOARD_MCP_LIST_TIMEOUT_MS?: string;
  SWITCHBOARD_MCP_CALL_TIMEOUT_MS?: string;
  SWITCHBOARD_MCP_TTL_MS?: string;
}

export function mcpLimits(env: McpEnv): McpLimits {
  return {
    listTimeoutMs: positive(env.SWITCHBOARD_MCP_LIST_TIMEOUT_MS, DEFAULT_LIST_TIMEOUT_MS),
    callTimeoutMs: positive(env.SWITCHBOARD_MCP_CALL_TIMEOUT_MS, DEFAULT_CALL_TIMEOUT_MS),
    ttlMs: positive(env.SWITCHBOARD_MCP_TTL_MS, DEFAULT_TTL_MS),
    allowPrivate: flag(env.SWITCHBOARD_ALLOW_PRIVATE_URLS),
  };
}
