import { Hono } from "hono";
import { normalizeAgent } from "../../agents/normalize";
import { type AgentConfig, publicAgent } from "../../agents/types";
import { flag } from "../../env";
import { nowIso } from "../../storage/sql";
import type { AppEnv } from "../app";
import { requireAdmin } from "../auth";
import { ApiError } from "../errors";
import { readJson } from "../validate";

const MAX_AGENT_BYTES = 1_900_000;

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
    await c.env.DB.prepare(
      `INSERT INTO agents (name, config, created_at, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at`,
    )
      .bind(agent.name, config, now, now)
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
