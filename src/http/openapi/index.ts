/**
 * The OpenAPI 3.1 document served at /openapi.json (and rendered at /docs): its info, its components
 * (components.ts) and the table of its paths, each method an operation of the file named after the router that
 * serves it (routes/<name>.ts → openapi/<name>.ts). The e2e suite validates the document with an OpenAPI
 * validator and generates its typed client from it, and the e2e and Workers suites check every answer they read
 * against it (test/helpers/conformance.ts), so a contract change the document misses fails the build.
 * docs/API.md is the prose version of this contract.
 */
import * as agents from "./agents";
import { COMPONENTS } from "./components";
import { health } from "./health";
import * as keys from "./keys";
import * as runs from "./runs";
import * as sessions from "./sessions";
import * as tenants from "./tenants";
import { mintToken } from "./tokens";
import * as turns from "./turns";

export const OPENAPI = {
  openapi: "3.1.0",
  info: {
    title: "Switchboard",
    version: "1.0.0",
    description:
      "Chat and agent sessions for tool-using LLMs. Authenticate with `Authorization: Bearer <key>`: the " +
      "admin key, a tenant API key, or a session token (scoped to one session and some actions; the only " +
      'credential a browser or mobile app should hold). Every error is `{"error": {"code", "message"}}`.',
  },
  servers: [{ url: "/" }],
  components: COMPONENTS,
  paths: {
    "/healthz": { get: health },
    "/v1/keys": { post: keys.createKey, get: keys.listKeys },
    "/v1/keys/{id}": { delete: keys.revokeKey },
    "/v1/agents": { get: agents.listAgents },
    "/v1/agents/{agent}": { put: agents.putAgent, get: agents.getAgent, delete: agents.deleteAgent },
    "/v1/agents/{agent}/runs": { post: runs.startRun },
    "/v1/runs/{id}": { get: runs.getRun },
    "/v1/runs/{id}/approvals": { post: runs.answerRunApprovals },
    "/v1/sessions": { post: sessions.createSession, get: sessions.listSessions },
    "/v1/sessions/{id}": { get: sessions.getSession, delete: sessions.deleteSession },
    "/v1/sessions/{id}/messages": { get: sessions.listMessages, post: turns.sendMessage },
    "/v1/sessions/{id}/tool-results": { post: turns.submitToolResults },
    "/v1/sessions/{id}/tool-approvals": { post: turns.answerToolApprovals },
    "/v1/sessions/{id}/chat": { post: turns.chat },
    "/v1/sessions/{id}/stream": { get: turns.openStream },
    "/v1/sessions/{id}/chat/{chatId}/stream": { get: turns.resumeChatStream },
    "/v1/sessions/{id}/retry": { post: turns.retryTurn },
    "/v1/sessions/{id}/cancel": { post: turns.cancelTurn },
    "/v1/sessions/{id}/compact": { post: sessions.compactSession },
    "/v1/sessions/{id}/clear": { post: sessions.clearSession },
    "/v1/sessions/{id}/events": { get: sessions.listEvents },
    "/v1/sessions/{id}/tokens": { post: mintToken },
    "/v1/tenants/{tenant}/cors": { put: tenants.putCors, get: tenants.getCors },
    "/v1/tenants/{tenant}/sessions": { get: tenants.listTenantSessions },
    "/v1/tenants/{tenant}/sessions/{id}": { delete: tenants.deleteTenantSession },
    "/v1/tenants/{tenant}/sessions/{id}/clear": { post: tenants.clearTenantSession },
  },
} as const;
