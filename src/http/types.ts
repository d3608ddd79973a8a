/**
 * The worker's types: its env, with the Durable Object namespaces typed by
 * their classes (the object side sees only src/env.ts), the caller of a
 * request, and the Hono app's env.
 */

import type { Env } from "../env";
import type { RateLimiter } from "../ratelimit/rate-limiter";
import type { TokenStamp } from "../session/rpc-types";
import type { Session } from "../session/session";
import type { TokenAction } from "./tokens";

/** The bindings as the worker sees them: Env plus the object namespaces it calls. */
export interface WorkerEnv extends Env {
  SESSION: DurableObjectNamespace<Session>;
  /** Exact token-bucket limiter: per-key overrides, a configured default, or no binding. */
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  /** The web client's worker (web/wrangler.toml); absent where only the API runs. */
  WEB?: Fetcher;
}

/** Who made a request: an API key, a session token (its session and actions), or the admin key where it may act. */
type Principal =
  | { kind: "admin" }
  | { kind: "key"; keyId: string }
  | { kind: "token"; keyId: string; session: string; actions: TokenAction[]; jti: string; stamp: TokenStamp };

export interface AppEnv {
  Bindings: WorkerEnv;
  Variables: {
    tenant: string;
    principal?: Principal;
    /** Set when a cross-origin request's Origin is allowed by its tenant (see cors.ts). */
    corsOrigin?: string;
    /** Debug mode: D1 statements the session object ran for this request (reported with its answers, `Reply`). */
    objectD1Statements?: number;
  };
}
