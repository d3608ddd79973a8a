/**
 * Service routes: liveness, the OpenAPI document and its interactive reference at /docs (Scalar's Hono
 * middleware; the page loads Scalar's script from its CDN in the reader's browser). The web client (web/, built into web/dist) is its
 * own worker behind this one (web/wrangler.toml, reached by ../web-client.ts), so `/` is the chat app.
 */
import { Scalar } from "@scalar/hono-api-reference";
import { Hono } from "hono";
import { OPENAPI } from "../openapi";
import type { AppEnv } from "../types";

export const healthRoutes = new Hono<AppEnv>()
  .get("/healthz", (c) => c.json({ ok: true }))
  .get("/openapi.json", (c) => c.json(OPENAPI))
  .get("/docs", Scalar({ url: "/openapi.json", pageTitle: "Switchboard API" }));
