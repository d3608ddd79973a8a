/**
 * How the worker reaches a session's Durable Object: `sessionStub` names it `tenant:id`, `sessionRef` takes
 * the session from the request (no D1 read; a malformed id is a 404), `unwrap` throws a failed result as an
 * ApiError, `objectReply` takes the object's debug counts off an answer into the request's, and `turnCall` starts
 * or resumes a turn over the object's fetch. Also the forms of a session's id (`SESSION_ID`) and of a tenant that
 * may hold sessions (`SESSION_TENANT`).
 */
import type { Context } from "hono";
import type { Result } from "../model/errors";
import { NAME_FORM } from "../model/name-form";
import type { Reply, TokenStamp, TurnAnswer, TurnCall, TurnReply } from "../session/rpc-types";
import type { Session } from "../session/session";
import { callRequest, readAnswer } from "../session/turn-wire";
import { ApiError, apiError } from "./errors";
import type { AppEnv, WorkerEnv } from "./types";

export const SESSION_ID = /^[a-zA-Z0-9_-]{1,128}$/;
/**
 * A tenant that may hold sessions: an API key's (a name), or `webhook:<agent>`, where the signed runs of an agent
 * without `webhook_tenant` go (routes/runs.ts). No API key can be issued for the latter.
 */
export const SESSION_TENANT = new RegExp(`^(webhook:)?${NAME_FORM.source.slice(1)}`);

export interface SessionRef {
  tenant: string;
  id: string;
  stub: SessionRpc;
  /**
   * A session token's stamp (the incarnation it was minted for, its `iat`), undefined for an API key. Passed
   * with each call, so the object refuses a token minted for an earlier session of the same id, since deleted.
   */
  stamp: TokenStamp | undefined;
}

/**
 * The session's RPC surface as plain method types. The generated Rpc stub
 * types recurse through JSON-shaped results too deeply for the checker; the
 * runtime object is the real stub.
 */
export type SessionRpc = Pick<
  Session,
  | "init"
  | "abandonCreate"
  | "describe"
  | "state"
  | "messages"
  | "events"
  | "fetch"
  | "cancel"
  | "openStream"
  | "clear"
  | "compact"
  | "destroy"
  | "debugSeed"
>;

/** Durable Object location hints (where a new session's object is created). */
export const LOCATION_HINTS = ["wnam", "enam", "sam", "weur", "eeur", "apac", "oc", "afr", "me"] as const;
export type LocationHint = (typeof LOCATION_HINTS)[number];

/**
 * The one naming scheme of session objects: `tenant:id`. A location hint
 * takes effect only on the call that creates the object (POST /v1/sessions);
 * afterwards the object stays where it was placed, so other callers omit it.
 */
export function sessionStub(env: WorkerEnv, tenant: string, id: string, locationHint?: LocationHint): SessionRpc {
  const name = `${tenant}:${id}`;
  const stub = locationHint ? env.SESSION.getByName(name, { locationHint }) : env.SESSION.getByName(name);
  return stub as unknown as SessionRpc;
}

/**
 * The caller's session, addressed by name (`tenant:id`) straight at its
 * Durable Object: no D1 read. The object itself answers 404 for a session it
 * does not hold, so another tenant's session is indistinguishable from a
 * missing one (a different name, a different object). A fresh stub per request.
 * `tenant`: the admin's routes name the tenant in the path (routes/tenants.ts).
 */
export function sessionRef(c: Context<AppEnv>, tenant = c.get("tenant")): SessionRef {
  const id = c.req.param("id") ?? "";
  if (!SESSION_ID.test(id)) throw new ApiError(404, "not_found", "session not found");
  return { tenant, id, stub: sessionStub(c.env, tenant, id), stamp: stampOf(c) };
}

/** The request's session token's stamp, undefined for any other credential (see SessionRef.stamp). */
function stampOf(c: Context<AppEnv>): TokenStamp | undefined {
  const p = c.get("principal");
  return p?.kind === "token" ? p.stamp : undefined;
}

/** Unwraps a DO result union or throws its failure as an ApiError. */
export function unwrap<R extends Result<object>>(r: R): Extract<R, { ok: true }> {
  if (!r.ok) throw apiError(r.error);
  return r as Extract<R, { ok: true }>;
}

/** Debug mode: the D1 statements of an object's `Reply` join the request's `x-debug-d1-statements` (app.ts). */
function addObjectD1(c: Context<AppEnv>, reply: Reply<object>): void {
  if (reply.debug) c.set("objectD1Statements", (c.get("objectD1Statements") ?? 0) + reply.debug.d1_statements);
}

/**
 * The answer of an object's call other than a turn's that may touch D1 (state, compact, DELETE), its debug counts
 * (`Reply`) taken off, so that they are not in the answer's body: their D1 statements join the request's, a
 * refusal's too.
 */
export function objectReply<R extends object>(c: Context<AppEnv>, reply: Reply<R>): R {
  addObjectD1(c, reply);
  const { debug: _debug, ...answer } = reply;
  return answer as unknown as R;
}

/**
 * Starts or resumes a turn on the session's object, over its fetch (session/turn-wire.ts says why). Debug mode:
 * the object's D1 statements join the request's `x-debug-d1-statements` (app.ts), a refusal's too, each call's;
 * the answer keeps its counts for the turn's own headers (routes/turns.ts).
 */
export async function turnCall(c: Context<AppEnv>, stub: SessionRpc, call: TurnCall): Promise<Result<TurnAnswer>> {
  const stamp = stampOf(c);
  const wire: TurnCall = stamp === undefined ? call : { ...call, stamp };
  const answer: TurnReply = await readAnswer<TurnAnswer>(await stub.fetch(callRequest(wire)));
  addObjectD1(c, answer);
  return answer;
}
