import { Hono } from "hono";
import { normalizeAgent } from "../../agents/normalize";
import { type AgentConfig, publicAgent } from "../../agents/types";
import { flag } from "../../env";
import { nowIso } from "../../storage/sql";
import { requireAdmin } from "../auth";
import { noteAgentEpoch } from "../directory";
import { ApiError } from "../errors";
import type { AppEnv } from "../types";
import { readJson } from "../validate";

const MAX_AGENT_BYTES = 1_900_000;

/** Bumps the agent-config epoch (see directory.ts); sessions re-read their agent at the next turn. */
function bumpEpoch(db: D1Database): D1PreparedStatement {
  return db.prepare("UPDATE agent_epoch SET epoch = epoch + 1 WHERE id = 1 RETURNING epoch");
}

/** This isolate passes the new epoch from its next turn on; others learn it within the cache bound. */
function noteEpoch(result: D1Result<{ epoch: number }> | undefined): void {
  const epoch = result?.results[0]?.epoch;
  if (typeof epoch === "number") noteAgentEpoch(epoch);
}

export const agentsRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  .put("/:agent", async (c) => {
    const agent = normalizeAgent(c.req.param("agent"), await readJson(c, 4 * 1024 * 1024), {
      allowPrivate: flag(c.env.SWITCHBOARD_ALLOW_PRIVATE_URLS),
    });
    const config = JSON.stringify(agent);
    // The agent is one D1 row; D1 rows are capped at 2 MB.
    if (new TextEncoder().encode(config).byteLength > MAX_AGENT_BYTES) {
      throw new ApiError(413, "payload_too_large", `agent configuration exceeds ${MAX_AGENT_BYTES} bytes once stored`);
    }
    const now = nowIso();
    const existed = await c.env.DB.prepare("SELECT 1 AS x FROM agents WHERE name = ?").bind(agent.name).first();
    // One batch = one transaction: the new config and the epoch bump that tells sessions to re-read it.
    const [, bumped] = await c.env.DB.batch<{ epoch: number }>([
      c.env.DB.prepare(
        `INSERT INTO agents (name, config, created_at, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at`,
      ).bind(agent.name, config, now, now),
      bumpEpoch(c.env.DB),
    ]);
    noteEpoch(bumped);
    return c.json(publicAgent(agent), existed ? 200 : 201);
  })
  .get("/", async (c) => {
    const { results } = await c.env.DB.prepare("SELECT config FROM agents ORDER BY name").all<{ config: string }>();
    return c.json({ agents: results.map((r) => publicAgent(JSON.parse(r.config) as AgentConfig)) });
  })
  .get("/:agent", async (c) => {
    const row = await c.env.DB.prepare("SELECT config FROM agents WHERE name = ?")
      .bind(c.req.param("agent"))
      .first<{ config: string }>();
    if (!row) throw new ApiError(404, "not_found", "agent not found");
    return c.json(publicAgent(JSON.parse(row.config) as AgentConfig));
  })
  .delete("/:agent", async (c) => {
    const [res, bumped] = await c.env.DB.batch<{ epoch: number }>([
      c.env.DB.prepare("DELETE FROM agents WHERE name = ?").bind(c.req.param("agent")),
      bumpEpoch(c.env.DB),
    ]);
    noteEpoch(bumped);
    if (!res?.meta.changes) throw new ApiError(404, "not_found", "agent not found");
    return c.json({ name: c.req.param("agent"), deleted: true });
  });
