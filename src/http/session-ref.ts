import type { Context } from "hono";
import type { AgentConfig } from "../agents/types";
import type { Env } from "../env";
import type { Result } from "../session/rpc-types";
import type { Session } from "../session/session";
import type { AppEnv } from "./app";
import { ApiError, toApiError } from "./errors";

export const SESSION_ID = /^[a-zA-Z0-9_-]{1,128}$/;

export interface SessionRef {
  tenant: string;
  id: string;
  agentName: string;
  /** The agent's current configuration; null when the agent was deleted. */
  agent: AgentConfig | null;
  stub: SessionRpc;
}

/**
 * The session's RPC surface as plain method types. The generated Rpc stub
 * types recurse through JSON-shaped results too deeply for the checker; the
 * runtime object is the real stub.
 */
export type SessionRpc = Pick<
  Session,
  | "init"
  | "state"
  | "messages"
  | "events"
  | "sendMessage"
  | "submitToolResults"
  | "answerApprovals"
  | "retry"
  | "cancel"
  | "openStream"
  | "clear"
  | "compact"
  | "destroy"
>;

/** Durable Object location hints (where a new session's object is created). */
export const LOCATION_HINTS = ["wnam", "enam", "sam", "weur", "eeur", "apac", "oc", "afr", "me"] as const;
export type LocationHint = (typeof LOCATION_HINTS)[number];

/**
 * The one naming scheme of session objects: `tenant:id`. A location hint
 * takes effect only on the call that creates the object (POST /v1/sessions);
 * afterwards the object stays where it was placed, so other callers omit it.
 */
export function sessionStub(env: Env, tenant: string, id: string, locationHint?: LocationHint): SessionRpc {
  const name = `${tenant}:${id}`;
  const stub = locationHint ? env.SESSION.getByName(name, { locationHint }) : env.SESSION.getByName(name);
  return stub as unknown as SessionRpc;
}

/**
 * Finds a session of the caller's tenant. Another tenant's session is
 * indistinguishable from a missing one (404). A fresh stub per request.
 */
export async function sessionRef(c: Context<AppEnv>): Promise<SessionRef> {
  const tenant = c.get("tenant");
  const id = c.req.param("id") ?? "";
  if (!SESSION_ID.test(id)) throw new ApiError(404, "not_found", "session not found");
  const row = await c.env.DB.prepare(
    "SELECT s.agent AS agent, a.config AS config FROM sessions s LEFT JOIN agents a ON a.name = s.agent WHERE s.tenant = ? AND s.id = ?",
  )
    .bind(tenant, id)
    .first<{ agent: string; config: string | null }>();
  if (!row) throw new ApiError(404, "not_found", "session not found");
  return {
    tenant,
    id,
    agentName: row.agent,
    agent: row.config ? (JSON.parse(row.config) as AgentConfig) : null,
    stub: sessionStub(c.env, tenant, id),
  };
}

export function requireAgent(ref: SessionRef): AgentConfig {
  if (!ref.agent) throw new ApiError(409, "agent_missing", `agent "${ref.agentName}" no longer exists`);
  return ref.agent;
}

/** Unwraps a DO result union or throws its failure as an ApiError. */
export function unwrap<R extends Result<object>>(r: R): Extract<R, { ok: true }> {
  if (!r.ok) throw toApiError(r);
  return r as Extract<R, { ok: true }>;
}
