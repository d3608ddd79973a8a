/**
 * The bindings and variables of the worker and its objects, as the object
 * side sees them. The Durable Object namespaces, typed by their classes, are
 * in WorkerEnv (src/http/types.ts): only the worker calls them.
 */

export interface Env {
  DB: D1Database;
  ANTHROPIC_API_KEY?: string;
  ANTHROPIC_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  SWITCHBOARD_ADMIN_KEY?: string;
  SWITCHBOARD_ALLOW_PRIVATE_URLS?: string;
  /** "true": validate invariant P on every outbound provider body and refuse to send a violating one. */
  SWITCHBOARD_DEBUG_CHECKS?: string;
  /** Debug/bench only: "true" serves POST /v1/sessions/{id}/debug/seed (src/http/routes/debug.ts). Never in production. */
  SWITCHBOARD_DEBUG_SEED?: string;
  /** Debug/bench only: every D1 call waits this many ms (a far-away primary); also turns the debug counters on. */
  SWITCHBOARD_DEBUG_D1_DELAY_MS?: string;
  /** Bench only: "true" replaces the span helpers with plain calls (bench/span-cost.mjs compares the two). */
  SWITCHBOARD_DEBUG_NO_SPANS?: string;
  /** "false" turns off the structured log line per session event (tests and benches). */
  SWITCHBOARD_LOG_EVENTS?: string;
  /** How long a D1 call may go unanswered before it fails as D1 being unavailable, in ms (src/d1/unavailable.ts; tests shorten it). */
  SWITCHBOARD_D1_TIMEOUT_MS?: string;
  /** Provider idle watchdog in ms (tests shorten it). */
  SWITCHBOARD_IDLE_TIMEOUT_MS?: string;
  /** A client stream quiet this many ms gets a keep-alive comment (default in src/session/stream/subscribers.ts; tests shorten it). */
  SWITCHBOARD_STREAM_PING_MS?: string;
  /** Provider step deadline in ms: the longest one provider request's stream may last (tests shorten it). */
  SWITCHBOARD_STEP_TIMEOUT_MS?: string;
  /** MCP: tools/list timeout, tools/call timeout and tool-list cache TTL, in ms (defaults in src/mcp/limits.ts). */
  SWITCHBOARD_MCP_LIST_TIMEOUT_MS?: string;
  SWITCHBOARD_MCP_CALL_TIMEOUT_MS?: string;
  SWITCHBOARD_MCP_TTL_MS?: string;
  /** HMAC key for session tokens; when unset one is derived from SWITCHBOARD_ADMIN_KEY (HKDF). */
  SWITCHBOARD_TOKEN_SECRET?: string;
  /** Default requests per minute per API key / per token's session; "0" turns the default limit off. */
  SWITCHBOARD_RATE_LIMIT_PER_MIN?: string;
  /** Retention (src/retention/config.ts, README "Retention"); "0" keeps forever. */
  SWITCHBOARD_RETENTION_STREAM_S?: string;
  SWITCHBOARD_RETENTION_EVENTS_DAYS?: string;
  SWITCHBOARD_RETENTION_TURNS_DAYS?: string;
  SWITCHBOARD_RETENTION_RUNS_DAYS?: string;
  SWITCHBOARD_RETENTION_SESSION_IDLE_DAYS?: string;
  /** Workers rate-limiting binding (wrangler.toml [[ratelimits]]); serves the default limit when present. */
  RATE_LIMIT?: RateLimit;
}
