import { Hono } from "hono";
import { normalizeAgent } from "../../agents/normalize";
import { type AgentConfig, publicAgent } from "../../agents/types";
import { nowIso } from "../../storage/sql";
import type { AppEnv } from "../app";
import { requireAdmin } from "../auth";
import { ApiError } from "../errors";
import { readJson } from "../validate";

export const agentsRoutes = new Hono<AppEnv>()
  .use(requireAdmin)
  .put("/:agent", async (c) => {
    const agent = normalizeAgent(c.req.param("agent"), await readJson(c, 4 * 1024 * 1024));
    const now = nowIso();
    const existed = await c.env.DB.prepare("SELECT 1 AS x FROM agents WHERE name = ?").bind(agent.name).first();
    await c.env.DB.prepare(
      `INSERT INTO agents (name, config, created_at, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at`,
    )
      .bind(agent.name, JSON.stringify(agent), now, now)
      .run();
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
    const res = await c.env.DB.prepare("DELETE FROM agents WHERE name = ?").bind(c.req.param("agent")).run();
    if (!res.meta.changes) throw new ApiError(404, "not_found", "agent not found");
    return c.json({ name: c.req.param("agent"), deleted: true });
  });
