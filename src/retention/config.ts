/**
 * Retention: how long rows that are only history of the service (not of the
 * conversation) are kept. Worker variables, documented in README "Retention";
 * `0` keeps them forever. Conversation history (`messages`) is never swept.
 */

import { log } from "../observability/log";

export interface Retention {
  /** Stream-log rows of a turn ended longer ago than this (the newest turn's rows are always kept). */
  streamMs: number;
  /** Session events older than this. */
  eventsMs: number;
  /**
   * Turn rows ended longer ago than this, except the newest turn and a turn an open run still needs; the
   * row is the turn's `Idempotency-Key` record, so this is also how long a repeated key is recognised.
   */
  turnsMs: number;
  /** Ended runs (callback delivered or given up) and their callback attempts, ended longer ago than this; D1 run records created longer ago (once their run has ended). */
  runsMs: number;
  /** A session with no activity for this long is deleted, index row and all; 0 (the default): sessions never expire. */
  sessionIdleMs: number;
}

const SECOND = 1000;
const DAY = 86_400 * SECOND;

const DEFAULT_RETENTION = {
  stream_s: 3600,
  events_days: 30,
  turns_days: 30,
  runs_days: 30,
  session_idle_days: 0,
} as const;

/** A non-negative number, else the default (a malformed value is logged, never fatal). */
function setting(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === "") return fallback;
  const n = Number(value);
  if (Number.isFinite(n) && n >= 0) return n;
  log("error", "retention_setting_invalid", { name, value });
  return fallback;
}

/** The worker variables read here (a subset of Env, kept separate so Node-side tests can import this module). */
export interface RetentionVars {
  SWITCHBOARD_RETENTION_STREAM_S?: string;
  SWITCHBOARD_RETENTION_EVENTS_DAYS?: string;
  SWITCHBOARD_RETENTION_TURNS_DAYS?: string;
  SWITCHBOARD_RETENTION_RUNS_DAYS?: string;
  SWITCHBOARD_RETENTION_SESSION_IDLE_DAYS?: string;
}

export function retentionOf(env: RetentionVars): Retention {
  return {
    streamMs:
      setting("SWITCHBOARD_RETENTION_STREAM_S", env.SWITCHBOARD_RETENTION_STREAM_S, DEFAULT_RETENTION.stream_s) *
      SECOND,
    eventsMs:
      setting(
        "SWITCHBOARD_RETENTION_EVENTS_DAYS",
        env.SWITCHBOARD_RETENTION_EVENTS_DAYS,
        DEFAULT_RETENTION.events_days,
      ) * DAY,
    turnsMs:
      setting("SWITCHBOARD_RETENTION_TURNS_DAYS", env.SWITCHBOARD_RETENTION_TURNS_DAYS, DEFAULT_RETENTION.turns_days) *
      DAY,
    runsMs:
      setting("SWITCHBOARD_RETENTION_RUNS_DAYS", env.SWITCHBOARD_RETENTION_RUNS_DAYS, DEFAULT_RETENTION.runs_days) *
      DAY,
    sessionIdleMs:
      setting(
        "SWITCHBOARD_RETENTION_SESSION_IDLE_DAYS",
        env.SWITCHBOARD_RETENTION_SESSION_IDLE_DAYS,
        DEFAULT_RETENTION.session_idle_days,
      ) * DAY,
  };
}

export function isoBefore(now: number, ms: number): string {
  return new Date(now - ms).toISOString();
}
