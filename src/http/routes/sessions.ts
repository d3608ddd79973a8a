import { Hono } from "hono";
import type { AgentConfig } from "../../agents/types";
import { deleteSessionIndex } from "../../retention/d1";
import { nowIso, pageOf } from "../../storage/sql";
import { sessionAccess } from "../access";
import type { AppEnv } from "../app";
import { requireTenant } from "../auth";
import { agentArg, noteAgentEpoch } from "../directory";
import { ApiError } from "../errors";
import { type LocationHint, SESSION_ID, sessionRef, sessionStub, unwrap } from "../session-ref";
import { readBody } from "../validate";

function intParam(raw: string | undefined, fallback: number, min: number, max: number, name: string): number {
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ApiError(400, "invalid_request", `${name} must be an integer between ${min} and ${max}`);
  }
  return n;
}

export const sessionsRoutes = new Hono<AppEnv>()
  // Guards are per route: session tokens reach only the read routes of their own session.
  .post("/", requireTenant, async (c) => {
    const body = await readBody<{
      agent: string;
      id?: string;
      metadata?: Record<string, unknown>;
      location_hint?: LocationHint;
    }>(c, "createSessionBody", 64 * 1024);
    const tenant = c.get("tenant");
    // The config and the epoch it belongs to, in one statement: they prime the session's agent cache.
    const agent = await c.env.DB.prepare(
      "SELECT config, (SELECT epoch FROM agent_epoch WHERE id = 1) AS epoch FROM agents WHERE name = ?",
    )
      .bind(body.agent)
      .first<{ config: string; epoch: number | null }>();
    if (!agent) throw new ApiError(404, "agent_not_found", `agent "${body.agent}" does not exist`);
    const id = body.id ?? `ses_${crypto.randomUUID().replaceAll("-", "")}`;
    const created_at = nowIso();
    const ins = await c.env.DB.prepare(
      "INSERT INTO sessions (tenant, id, agent, metadata, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
    )
      .bind(tenant, id, body.agent, body.metadata ? JSON.stringify(body.metadata) : null, created_at)
      .run();
    if (!ins.meta.changes) throw new ApiError(409, "session_exists", `session "${id}" already exists`);
    // The hint only matters here: the object is created by this first call and stays where it was placed.
    const stub = sessionStub(c.env, tenant, id, body.location_hint);
    try {
      const epoch = agent.epoch ?? 0;
      noteAgentEpoch(epoch);
      unwrap(
        await stub.init(
          { tenant, id, agent: body.agent, created_at, metadata: body.metadata ?? null },
          { config: JSON.parse(agent.config) as AgentConfig, epoch },
        ),
      );
    } catch (e) {
      // Keep the index and the object in step: no index row without an object.
      await c.env.DB.prepare("DELETE FROM sessions WHERE tenant = ? AND id = ?").bind(tenant, id).run();
      throw e;
    }
    return c.json({ id, agent: body.agent, created_at, metadata: body.metadata ?? null }, 201);
  })
  .get("/", requireTenant, async (c) => {
    const limit = intParam(c.req.query("limit"), 50, 1, 200, "limit");
    const after = c.req.query("after") ?? "";
    const { results } = await c.env.DB.prepare(
      "SELECT id, agent, created_at FROM sessions WHERE tenant = ? AND id > ? ORDER BY id LIMIT ?",
    )
      .bind(c.get("tenant"), after, limit + 1)
      .all<{ id: string; agent: string; created_at: string }>();
    const { items, next } = pageOf(results, limit, (s) => s.id);
    return c.json({ sessions: items, next });
  })
  .get("/:id", sessionAccess("read"), async (c) => {
    const ref = sessionRef(c);
    // The object adds the agent's context window and compaction threshold to the context block.
    const { ok: _ok, ...state } = unwrap(await ref.stub.state(await agentArg(c)));
    return c.json(state);
  })
  .get("/:id/messages", sessionAccess("read"), async (c) => {
    const ref = sessionRef(c);
    const after = intParam(c.req.query("after"), 0, 0, Number.MAX_SAFE_INTEGER, "after");
    const limit = intParam(c.req.query("limit"), 100, 1, 1000, "limit");
    const { ok: _ok, ...page } = unwrap(await ref.stub.messages(after, limit));
    return c.json(page);
  })
  .get("/:id/events", sessionAccess("read"), async (c) => {
    const ref = sessionRef(c);
    const after = intParam(c.req.query("after"), 0, 0, Number.MAX_SAFE_INTEGER, "after");
    const limit = intParam(c.req.query("limit"), 100, 1, 1000, "limit");
    const { ok: _ok, ...page } = unwrap(await ref.stub.events(after, limit));
    return c.json(page);
  })
  .post("/:id/compact", requireTenant, async (c) => {
    const ref = sessionRef(c);
    const { ok: _ok, ...info } = unwrap(await ref.stub.compact(await agentArg(c)));
    return c.json({ id: ref.id, compacted: true, ...info });
  })
  .post("/:id/clear", requireTenant, async (c) => {
    const ref = sessionRef(c);
    unwrap(await ref.stub.clear());
    return c.json({ id: ref.id, cleared: true });
  })
  .delete("/:id", requireTenant, async (c) => {
    const ref = sessionRef(c);
    const destroyed = await ref.stub.destroy();
    // The index row and the session's run records go with it, even when the object holds nothing (an index
    // row left without its object; a repeated DELETE finishes a half-done one).
    const indexed = await deleteSessionIndex(c.env.DB, ref.tenant, ref.id);
    if (!destroyed.ok && !indexed) unwrap(destroyed);
    return c.json({ id: ref.id, deleted: true });
  });

export { SESSION_ID };
