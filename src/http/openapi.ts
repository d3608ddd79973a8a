/** A compact OpenAPI description of the v1 contract (docs/API.md is the source of truth). */
const bearer = [{ bearer: [] }];
const error = { $ref: "#/components/responses/Error" };
const json = (description: string) => ({
  description,
  content: { "application/json": { schema: { type: "object" } } },
});
const turn = {
  description: "AI SDK UI message stream (text/event-stream), or the turn result with Accept: application/json",
  content: { "text/event-stream": {}, "application/json": { schema: { type: "object" } } },
};
const op = (summary: string, responses: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  summary,
  security: bearer,
  responses: { ...responses, "400": error, "401": error, "403": error, "404": error, "429": error },
  ...extra,
});

export const OPENAPI = {
  openapi: "3.1.0",
  info: { title: "Switchboard", version: "1.0.0", description: "Chat and agent sessions for tool-using LLMs." },
  components: {
    securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    responses: {
      Error: {
        description: "Error",
        content: {
          "application/json": {
            schema: {
              type: "object",
              properties: {
                error: { type: "object", properties: { code: { type: "string" }, message: { type: "string" } } },
              },
            },
          },
        },
      },
    },
  },
  paths: {
    "/healthz": { get: { summary: "Liveness", responses: { "200": json("ok") } } },
    "/v1/keys": {
      post: op("Create an API key (admin)", { "201": json("key") }),
      get: op("List keys (admin)", { "200": json("keys") }),
    },
    "/v1/keys/{id}": { delete: op("Revoke a key (admin)", { "200": json("revoked") }) },
    "/v1/agents": { get: op("List agents (admin)", { "200": json("agents") }) },
    "/v1/agents/{agent}": {
      put: op("Create or replace an agent (admin)", { "200": json("agent"), "201": json("agent") }),
      get: op("Read an agent (admin)", { "200": json("agent") }),
      delete: op("Delete an agent (admin)", { "200": json("deleted") }),
    },
    "/v1/agents/{agent}/runs": {
      post: op(
        "Start a run (bearer key, or Standard Webhooks signature: webhook-id, webhook-timestamp, webhook-signature)",
        { "202": json("run_id, session_id, status"), "409": error, "422": error },
      ),
    },
    "/v1/runs/{id}": { get: op("Run status, result and callback attempts", { "200": json("run") }) },
    "/v1/sessions": {
      post: op("Create a session", { "201": json("session"), "409": error }),
      get: op("List the tenant's sessions", { "200": json("sessions") }),
    },
    "/v1/sessions/{id}": {
      get: op("Session state", { "200": json("state") }),
      delete: op("Delete a session", { "200": json("deleted") }),
    },
    "/v1/sessions/{id}/messages": {
      get: op("Canonical history", { "200": json("messages") }),
      post: op("Start a turn", { "200": turn, "201": turn, "409": error, "413": error }),
    },
    "/v1/sessions/{id}/tool-results": { post: op("Answer client tool calls", { "200": turn, "409": error }) },
    "/v1/sessions/{id}/chat": { post: op("AI SDK useChat endpoint", { "200": turn, "409": error }) },
    "/v1/sessions/{id}/stream": {
      get: op("Resume the turn stream (Last-Event-ID)", { "200": turn, "204": { description: "nothing active" } }),
    },
    "/v1/sessions/{id}/retry": {
      post: op("Re-run the last failed or interrupted turn", { "200": turn, "201": turn, "409": error }),
    },
    "/v1/sessions/{id}/cancel": { post: op("Cancel the running turn", { "200": json("status"), "409": error }) },
    "/v1/sessions/{id}/clear": { post: op("Empty history and loaded tools", { "200": json("cleared"), "409": error }) },
    "/v1/sessions/{id}/events": { get: op("Typed session events", { "200": json("events") }) },
    "/v1/sessions/{id}/tokens": {
      post: op("Mint a short-lived session token (API key only)", { "201": json("token"), "503": error }),
    },
    "/v1/tenants/{tenant}/cors": {
      put: op("Replace a tenant's allowed browser origins (admin)", { "200": json("cors") }),
      get: op("A tenant's allowed browser origins (admin)", { "200": json("cors") }),
    },
  },
} as const;
