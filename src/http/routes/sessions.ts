/**
 * The `/v1/sessions` routes for a session's life: create (with the client's id: the D1 index row, then the object
 * primed with its agent; if the object's init fails the row this create wrote is deleted again unless the object
 * holds the session, and the row is made to describe the object's own session if it already held one; a retried
 * create of the same session answers it again, and one that finds a row with no session behind it, left by a create
 * cut short, finishes it; without an id: the object, then its row, so a create cut short lists nothing that does not
 * exist), list, state, messages, events, compact, clear and delete. Reads accept an API key or the session's own
 * token; every other route needs an API key. `sessionsPage` and `deleteSession` also serve the admin's routes over
 * any tenant's sessions (tenants.ts).
 */
import { type Context, Hono } from "hono";
import type { AgentRead } from "../../agents/types";
import { newId } from "../../crypto/new-id";
import { readAgent } from "../../d1/agents";
import { insertSession, listSessions, upsertSessionRow } from "../../d1/sessions";
import { canonical } from "../../model/json";
import { log } from "../../observability/log";
import type { SessionInfo } from "../../session/rpc-types";
import { pageOf } from "../../storage/page";
import { nowIso } from "../../storage/sql";
import { sessionAccess } from "../access";
import { requireTenant } from "../auth";
import { agentArg, noteAgentChanges } from "../directory";
import { ApiError } from "../errors";
import {
  type LocationHint,
  objectReply,
  type SessionRef,
  type SessionRpc,
  sessionRef,
  sessionStub,
  unwrap,
} from "../session-ref";
import type { AppEnv } from "../types";
import { intParam, readBody } from "../validate";

export const sessionsRoutes = new Hono<AppEnv>()
  // Guards are per route: session tokens reach only the read routes of their own session.
  .post("/", requireTenant(), async (c) => {
    const body = await readBody<CreateBody>(c, "createSessionBody", 64 * 1024);
    // The config and the epoch it belongs to (with its changes), in one statement: they prime the session's agent
    // cache, and this isolate's news of agent changes.
    const agent = await readAgent(c.env.DB, body.agent);
    if (!agent.config) throw new ApiError(404, "agent_not_found", `agent "${body.agent}" does not exist`);
    const create: Create = {
      tenant: c.get("tenant"),
      body,
      agent: { config: agent.config, epoch: agent.changes?.epoch ?? 0 },
      created_at: nowIso(),
      metadata: body.metadata ? JSON.stringify(body.metadata) : null,
    };
    noteAgentChanges(agent.changes);
    return body.id === undefined ? createUnnamed(c, create) : createNamed(c, create, body.id);
  })
  .get("/", requireTenant(), async (c) => c.json(await sessionsPage(c, c.get("tenant"))))
  .get("/:id", sessionAccess("read"), async (c) => {
    const ref = sessionRef(c);
    // The object adds the agent's context window and compaction threshold to the context block.
    const { ok: _ok, ...state } = unwrap(objectReply(c, await ref.stub.state(await agentArg(c), ref.stamp)));
    return c.json(state);
  })
  .get("/:id/messages", sessionAccess("read"), async (c) => {
    const ref = sessionRef(c);
    const after = intParam(c.req.query("after"), 0, 0, Number.MAX_SAFE_INTEGER, "after");
    const limit = intParam(c.req.query("limit"), 100, 1, 1000, "limit");
    const { ok: _ok, ...page } = unwrap(await ref.stub.messages(after, limit, ref.stamp));
    return c.json(page);
  })
  .get("/:id/events", sessionAccess("read"), async (c) => {
    const ref = sessionRef(c);
    const after = intParam(c.req.query("after"), 0, 0, Number.MAX_SAFE_INTEGER, "after");
    const limit = intParam(c.req.query("limit"), 100, 1, 1000, "limit");
    const { ok: _ok, ...page } = unwrap(await ref.stub.events(after, limit, ref.stamp));
    return c.json(page);
  })
  .post("/:id/compact", requireTenant(), async (c) => {
    const ref = sessionRef(c);
    const { ok: _ok, ...info } = unwrap(objectReply(c, await ref.stub.compact(await agentArg(c))));
    return c.json({ id: ref.id, compacted: true, ...info });
  })
  .post("/:id/clear", requireTenant(), async (c) => {
    const ref = sessionRef(c);
    unwrap(await ref.stub.clear());
    return c.json({ id: ref.id, cleared: true });
  })
  .delete("/:id", requireTenant(), async (c) => {
    const ref = sessionRef(c);
    await deleteSession(c, ref);
    return c.json({ id: ref.id, deleted: true });
  });

type CreateBody = { agent: string; id?: string; metadata?: Record<string, unknown>; location_hint?: LocationHint };

/** A create as the route has read it: the tenant, the body, the agent it read, and the row's own columns. */
interface Create {
  tenant: string;
  body: CreateBody;
  agent: AgentRead;
  created_at: string;
  /** The body's metadata as the index row stores it. */
  metadata: string | null;
}

/**
 * The create's stub of its object, with the body's location hint: whichever of its calls reaches the object first
 * (the init, or the describe or abandon of a create that found the row) creates it, and it stays where it was placed.
 */
function createStub(c: Context<AppEnv>, create: Create, id: string): SessionRpc {
  return sessionStub(c.env, create.tenant, id, create.body.location_hint);
}

/** The create's call of its object: the session as the request describes it, the agent read primes its copy. */
function init(stub: SessionRpc, create: Create, id: string) {
  const { tenant, body, agent, created_at } = create;
  return stub.init({ tenant, id, agent: body.agent, created_at, metadata: body.metadata ?? null }, agent);
}

/**
 * A create without an id: the object first, the index row last, once the object holds the session. The id is new,
 * so no other call can name it before the answer gives it out (no DELETE, run or create of it to order the writes
 * against), and a create D1 fails (or leaves unanswered) lists nothing that does not exist: a row written anyway
 * names the session created here. What it may leave is that session, created and never answered (listed if its row
 * landed); the client's retry takes a new id.
 */
async function createUnnamed(c: Context<AppEnv>, create: Create) {
  const { tenant, body, metadata } = create;
  const id = newId("ses");
  const { info } = unwrap(await init(createStub(c, create, id), create, id));
  await insertSession(c.env.DB, { tenant, id, agent: body.agent, metadata, created_at: info.created_at });
  return c.json(created(info), 201);
}

/**
 * A create with the client's id: the index row first, then the object (so a DELETE, run or create of the id that
 * comes between finds the row); if the object's init fails, the row this create wrote is deleted again unless the
 * object holds the session (its init created it, or another create answered for it), and a row another request
 * wrote is kept; the row is made to describe the object's own session if it already held one. A retried create of
 * the same session answers it again, and one that finds a row with no session behind it, left by a create cut
 * short, finishes it.
 */
async function createNamed(c: Context<AppEnv>, create: Create, id: string) {
  const { tenant, body, created_at, metadata } = create;
  const stub = createStub(c, create, id);
  const inserted = await insertSession(c.env.DB, { tenant, id, agent: body.agent, metadata, created_at });
  if (!inserted) {
    // The id is indexed: a retry of a create whose answer was lost, or another session. The object says which.
    const held = await stub.describe();
    if (held.ok) return repeatedCreate(c, id, body, held.info);
    // An index row with no session behind it: a create cut short (D1 failed it after its row was written, or its
    // init failed and its row was not deleted), or one whose init is under way. This create finishes it; the row is
    // made to describe it below.
  }
  let made: { created: boolean; info: SessionInfo };
  try {
    made = unwrap(await init(stub, create, id));
  } catch (e) {
    // Keep the index and the object in step, and never lose the row of a session that exists: a row another
    // request wrote stays (another create that found it may have answered 201 for it, a create cut short leaves it
    // for its retry), and the row this create wrote goes only if the object holds no session, which the object
    // checks and deletes with nothing created between (Session.abandonCreate). When it cannot be asked the row
    // stays: a listed id that answers 404 until a retry of this create finishes it (or a DELETE removes it), rather
    // than a session answered created and never listed.
    if (inserted) {
      await stub
        .abandonCreate(tenant, id)
        .catch((err: unknown) => log("warn", "create_row_kept", { session: `${tenant}:${id}`, error: String(err) }));
    }
    throw e;
  }
  if (!made.created) {
    // The object already held this session (a webhook run for the id created it first; another create of the id
    // did, whose answer was lost or is under way) and kept its own: the row written or found above describes that
    // session, not this request.
    const held = made.info;
    const metadata = held.metadata ? JSON.stringify(held.metadata) : null;
    await upsertSessionRow(c.env.DB, { tenant, id, agent: held.agent, metadata, created_at: held.created_at });
    return repeatedCreate(c, id, body, held);
  }
  if (!inserted) {
    await upsertSessionRow(c.env.DB, { tenant, id, agent: body.agent, metadata, created_at: made.info.created_at });
  }
  return c.json(created(made.info), 201);
}

/** A created session as `POST /v1/sessions` answers it. */
function created(info: SessionInfo) {
  return { id: info.id, agent: info.agent, created_at: info.created_at, metadata: info.metadata };
}

/**
 * `POST /v1/sessions` for an id that already names `held`. A create asking for what `held` is (its agent, its
 * metadata, key order aside) is a retry whose first answer was lost: it gets that answer again, with 200 as a
 * replayed turn does, so a client may retry a create safely. Anything else is another session's id: 409, nothing
 * changed. `location_hint` is not compared: it only placed the object when it was created, and is not kept.
 */
function repeatedCreate(c: Context<AppEnv>, id: string, body: CreateBody, held: SessionInfo) {
  const same = held.agent === body.agent && canonical(held.metadata) === canonical(body.metadata ?? null);
  if (!same) throw new ApiError(409, "session_exists", `session "${id}" already exists`);
  return c.json(created(held), 200);
}

/** A page of the tenant's sessions (`limit`, `after` from the query); also the admin's list (routes/tenants.ts). */
export async function sessionsPage(c: Context<AppEnv>, tenant: string) {
  const limit = intParam(c.req.query("limit"), 50, 1, 200, "limit");
  const after = c.req.query("after") ?? "";
  const rows = await listSessions(c.env.DB, tenant, after, limit + 1);
  const { items, next } = pageOf(rows, limit, (s) => s.id);
  return { sessions: items, next };
}

/**
 * Deletes a session, 404 when there is none; also the admin's delete of any tenant's (routes/tenants.ts). The
 * object deletes the index row and the session's run records before its storage, with no create or run let in
 * between (Session.destroy), also when it holds nothing but the row is there (a repeated DELETE finishes a
 * half-done one): a run admitted meanwhile cannot leave a session that is live but unindexed. Debug mode: the
 * object's D1 statements join the request's (`objectReply`).
 */
export async function deleteSession(c: Context<AppEnv>, ref: SessionRef): Promise<void> {
  unwrap(objectReply(c, await ref.stub.destroy(ref.tenant, ref.id)));
}
