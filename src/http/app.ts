import { Hono } from "hono";
import type { Env } from "../env";
import type { Principal } from "./access";
import { sessionCors } from "./cors";
import { ApiError, errorBody } from "./errors";
import { agentsRoutes } from "./routes/agents";
import { healthRoutes } from "./routes/health";
import { keysRoutes } from "./routes/keys";
import { runsRoutes } from "./routes/runs";
import { sessionsRoutes } from "./routes/sessions";
import { tenantsRoutes } from "./routes/tenants";
import { tokensRoutes } from "./routes/tokens";
import { turnsRoutes } from "./routes/turns";

export interface AppEnv {
  Bindings: Env;
  Variables: {
    tenant: string;
    principal?: Principal;
    /** Set when a cross-origin request's Origin is allowed by its tenant (see cors.ts). */
    corsOrigin?: string;
  };
}

export function buildApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.route("/", healthRoutes);
  app.route("/v1/keys", keysRoutes);
  // Before the agents router: its admin guard covers /v1/agents/*, and runs take API keys or signatures.
  app.route("/", runsRoutes);
  app.route("/v1/agents", agentsRoutes);
  // "/v1/sessions/*" also matches "/v1/sessions" itself.
  app.use("/v1/sessions/*", sessionCors);
  app.route("/v1/tenants", tenantsRoutes);
  app.route("/v1/sessions", sessionsRoutes);
  app.route("/v1/sessions", tokensRoutes);
  app.route("/v1/sessions", turnsRoutes);
  app.notFound((c) =>
    c.json(errorBody("not_found", `no route for ${c.req.method} ${new URL(c.req.url).pathname}`), 404),
  );
  app.onError((err, c) => {
    if (err instanceof ApiError) {
      for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
      return c.json(errorBody(err.code, err.message), err.status);
    }
    console.error(
      JSON.stringify({ level: "error", msg: "unhandled", error: String(err), stack: (err as Error).stack }),
    );
    return c.json(errorBody("internal_error", "internal error"), 500);
  });
  return app;
}
