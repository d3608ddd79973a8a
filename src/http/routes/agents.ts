/**
 * Admin routes for agent configurations (`/v1/agents`, admin key only): PUT creates (201) or replaces (200),
 * GET lists a page of them by name or reads one, DELETE removes. A config is one D1 row (413 above
 * MAX_AGENT_BYTES once stored), and every write bumps the agent-config epoch in the same batch, so sessions
 * re-read the agent at their next turn.
 */
import { Hono } from "hono";
import { normalizeAgent } from "../../agents/normalize";
import { publicAgent } from "../../agents/types";
import { deleteAgent, listAgents, putAgent, readAgent } from "../../d1/agents";
import { flag } from "../../env-values";
import { utf8Bytes } from "../../storage/fit";
import { PAGE_BUDGET_BYTES } from "../../storage/limits";
import { nowIso } from "../../storage/sql";
import { requireAdmin } from "../auth";
import { noteAgentEpoch, noteWebhookSecrets } from "../directory";
import { ApiError } from "../errors";
import type { AppEnv } from "../types";
import { intParam, readJson } from "../validate";

const MAX_AGENT_BYTES = 1_900_000;

/** This isolate passes the new epoch from its next turn on; others learn it within the cache bound. */
function noteEpoch(epoch: number | null): void {
  if (epoch !== null) noteAgentEpoch(epoch);
}

export const agentsRoutes = new Hono<AppEnv>()
  .put("/:agent", requireAdmin(), async (c) => {
    const agent = normalizeAgent(c.req.param("agent"), await readJson(c, 4 * 1024 * 1024), {
      allowPrivate: flag(c.env.SWITCHBOARD_ALLOW_PRIVATE_URLS),
    });
    const config = JSON.stringify(agent);
    // The agent is one D1 row; D1 rows are capped at 2 MB.
    if (utf8Bytes(config) > MAX_AGENT_BYTES) {
      throw new ApiError(413, "payload_too_large", `agent configuration exceeds ${MAX_AGENT_BYTES} bytes once stored`);
    }
    const now = nowIso();
    // One batch = one transaction: whether the agent existed, the new config and the epoch bump that tells
    // sessions to re-read it.
    const { created, epoch } = await putAgent(c.env.DB, agent.name, config, now);
    noteEpoch(epoch);
    noteWebhookSecrets(agent.name, agent.webhook_secrets);
    return c.json(publicAgent(agent), created ? 201 : 200);
  })
  .get("/", requireAdmin(), async (c) => {
    // Paged as GET /v1/sessions is, by name; a page also ends before PAGE_BUDGET_BYTES of configs: 100 configs of
    // MAX_AGENT_BYTES would be ~190 MB, past an isolate's 128 MB and D1's result size.
    const limit = intParam(c.req.query("limit"), 20, 1, 100, "limit");
    const page = await listAgents(c.env.DB, c.req.query("after") ?? "", limit, PAGE_BUDGET_BYTES);
    return c.json({ agents: page.agents.map(publicAgent), next: page.next });
  })
  .get("/:agent", requireAdmin(), async (c) => {
    const { config } = await readAgent(c.env.DB, c.req.param("agent"));
    if (!config) throw new ApiError(404, "not_found", "agent not found");
    return c.json(publicAgent(config));
  })
  .delete("/:agent", requireAdmin(), async (c) => {
    const { deleted, epoch } = await deleteAgent(c.env.DB, c.req.param("agent"));
    noteEpoch(epoch);
    if (!deleted) throw new ApiError(404, "not_found", "agent not found");
    noteWebhookSecrets(c.req.param("agent"), []);
    return c.json({ name: c.req.param("agent"), deleted: true });
  });
