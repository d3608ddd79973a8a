/**
 * The worker's HTTP application: `buildApp` mounts every route group on one Hono app, in the order their
 * guards need, with D1's own failures marked (d1/unavailable.ts), debug D1 statement counting, the web client as
 * the not-found fallback, and the error handler (an ApiError becomes its JSON error body and status; a D1 call
 * that D1 failed a logged `503 database_unavailable` with Retry-After; anything else a logged 500 `internal_error`).
 */
import type { MiddlewareHandler } from "hono";
import { Hono } from "hono";
import { D1Unavailable, withD1Marked } from "../d1/unavailable";
import { log } from "../observability/log";
import { countedD1, probeFor } from "../storage/debug-counters";
import { sessionCors, setHeaders } from "./cors";
import { ApiError, apiError, errorBody } from "./errors";
import { agentsRoutes } from "./routes/agents";
import { debugRoutes } from "./routes/debug";
import { healthRoutes } from "./routes/health";
import { keysRoutes } from "./routes/keys";
import { runsRoutes } from "./routes/runs";
import { sessionsRoutes } from "./routes/sessions";
import { tenantsRoutes } from "./routes/tenants";
import { tokensRoutes } from "./routes/tokens";
import { turnsRoutes } from "./routes/turns";
import type { AppEnv } from "./types";
import { webClient } from "./web-client";

/**
 * Debug mode (SWITCHBOARD_DEBUG_CHECKS, or SWITCHBOARD_DEBUG_D1_DELAY_MS): the
 * request's D1 binding counts (and delays) every statement, and the answer
 * says how many ran in `x-debug-d1-statements` (the worker's and the session
 * object's, which its answers carry: session-ref.ts). Work left to waitUntil after the answer is not in the figure.
 */
function debugD1(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const probe = probeFor(c.env);
    if (!probe) return next();
    c.env = { ...c.env, DB: countedD1(c.env.DB, probe) };
    await next();
    const total = probe.mark().d1_statements + (c.get("objectD1Statements") ?? 0);
    setHeaders(c, { "x-debug-d1-statements": String(total) });
  };
}

/**
 * Every D1 call the request makes throws D1Unavailable when D1 fails it (d1/unavailable.ts), for onError to tell a
 * D1 outage (503) from a bug of ours (500). First, so the debug count wraps the marked binding.
 */
function markD1Failures(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.env = withD1Marked(c.env);
    await next();
  };
}

/** `debugSeed`: also serve the debug seeding route (routes/debug.ts); only for SWITCHBOARD_DEBUG_SEED. */
export function buildApp(opts: { debugSeed?: boolean } = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(markD1Failures());
  app.use(debugD1());
  app.route("/", healthRoutes);
  app.route("/v1/keys", keysRoutes);
  // POST /v1/agents/:agent/runs takes API keys or signatures; the agents router guards only its own routes.
  app.route("/", runsRoutes);
  app.route("/v1/agents", agentsRoutes);
  // "/v1/sessions/*" also matches "/v1/sessions" itself.
  app.use("/v1/sessions/*", sessionCors());
  app.route("/v1/tenants", tenantsRoutes);
  app.route("/v1/sessions", sessionsRoutes);
  app.route("/v1/sessions", tokensRoutes);
  app.route("/v1/sessions", turnsRoutes);
  if (opts.debugSeed) app.route("/v1/sessions", debugRoutes);
  app.notFound(webClient);
  app.onError((err, c) => {
    if (err instanceof D1Unavailable) log("warn", "database_unavailable", { path: c.req.path, error: err.message });
    const known = err instanceof D1Unavailable ? apiError(err.error) : err;
    if (known instanceof ApiError) {
      for (const [k, v] of Object.entries(known.headers)) c.header(k, v);
      return c.json(errorBody(known.code, known.message), known.status);
    }
    log("error", "unhandled", { error: String(err), stack: (err as Error).stack });
    return c.json(errorBody("internal_error", "internal error"), 500);
  });
  return app;
}
