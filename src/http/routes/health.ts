/**
 * Service routes: liveness and the OpenAPI document. The web client (web/, built into web/dist) is served
 * by Workers static assets before the worker runs (wrangler.toml [assets]), so `/` is the chat app.
 */
import { Hono } from "hono";
import type { AppEnv } from "../app";
import { OPENAPI } from "../openapi";

export const healthRoutes = new Hono<AppEnv>()
  .get("/healthz", (c) => c.json({ ok: true }))
  .get("/openapi.json", (c) => c.json(OPENAPI));
