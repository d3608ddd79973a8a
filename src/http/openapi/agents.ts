/** The operations of routes/agents.ts: the admin lists, writes, reads and deletes agents. */
import { PAGE_BUDGET_BYTES } from "../../storage/limits";
import { body, jsonOf, ref } from "./content";
import { errorResponse, op } from "./operation";
import { AGENTS_PAGE } from "./paging";
import { AGENT } from "./parameters";

export const listAgents = op(
  "listAgents",
  `List agents (admin), a page by name; a page ends before ${PAGE_BUDGET_BYTES / 1e6} MB of configs, so it may hold fewer than limit`,
  { "200": jsonOf(ref("AgentList"), "Agents") },
  { parameters: AGENTS_PAGE },
);
export const putAgent = op(
  "putAgent",
  "Create or replace an agent (admin); takes effect at the next turn of each session",
  {
    "200": jsonOf(ref("Agent"), "Replaced"),
    "201": jsonOf(ref("Agent"), "Created"),
    "413": errorResponse,
    "422": jsonOf(
      ref("Error"),
      "`invalid_schema`: a tool schema (`input_schema`, `discovery_schema`) is not a valid JSON Schema (or its root is not an object, or a `pattern` is one the linear-time regex engine cannot run, such as a lookahead or a backreference)",
    ),
  },
  { parameters: [AGENT], requestBody: body("AgentBody") },
);
export const getAgent = op(
  "getAgent",
  "Read an agent (admin)",
  { "200": jsonOf(ref("Agent"), "The agent") },
  { parameters: [AGENT] },
);
export const deleteAgent = op(
  "deleteAgent",
  "Delete an agent (admin)",
  { "200": jsonOf(ref("AgentDeleted"), "Deleted") },
  {
    parameters: [AGENT],
  },
);
