/**
 * Admin routes for agent configurations (`/v1/agents`, admin key only): PUT creates (201) or replaces (200),
 * GET lists a page of them by name or reads one, DELETE removes. A config is one D1 row (413 above
 * MAX_AGENT_BYTES once stored). A PUT that changes the agent, and a DELETE, bump the agent-config epoch and the
 * agent's version in the same batch, so the agent's sessions re-read it at their next turn; a PUT of the config
 * already stored (once normalised) writes nothing and answers as any replacing PUT.
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
import { noteAgentChanges, noteWebhookSecrets } from "../directory";
import { ApiError } from "../errors";
import type { AppEnv } from "../types";
import { intParam, readJson } from "../validate";

const MAX_AGENT_BYTES = 1_900_000;

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
    // One batch = one transaction: whether the agent existed, the new config and the epoch bump and version that
    // tell its sessions to re-read it (none of them when the config is the one stored).
    const { created, changes } = await putAgent(c.env.DB, agent.name, config, now);
    // This isolate passes the change from its next turn on; others learn it within the cache bound.
    noteAgentChanges(changes);
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
    const { deleted, changes } = await deleteAgent(c.env.DB, c.req.param("agent"));
    noteAgentChanges(changes);
    if (!deleted) throw new ApiError(404, "not_found", "agent not found");
    noteWebhookSecrets(c.req.param("agent"), []);
    return c.json({ name: c.req.param("agent"), deleted: true });
  });
