import type { Session } from "./session/session";

export interface Env {
  DB: D1Database;
  SESSION: DurableObjectNamespace<Session>;
  ANTHROPIC_API_KEY?: string;
  ANTHROPIC_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  SWITCHBOARD_ADMIN_KEY?: string;
  SWITCHBOARD_ALLOW_PRIVATE_URLS?: string;
  /** "true": validate invariant P on every outbound provider body and refuse to send a violating one. */
  SWITCHBOARD_DEBUG_CHECKS?: string;
  /** "false" turns off the structured log line per session event (tests and benches). */
  SWITCHBOARD_LOG_EVENTS?: string;
  /** Provider idle watchdog in ms (tests shorten it). */
  SWITCHBOARD_IDLE_TIMEOUT_MS?: string;
}

export function flag(value: string | undefined): boolean {
  return value === "true" || value === "1";
}
