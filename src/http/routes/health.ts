import { Hono } from "hono";
import type { AppEnv } from "../app";
import { DEMO_PAGE } from "../demo-page";
import { OPENAPI } from "../openapi";

export const healthRoutes = new Hono<AppEnv>()
  .get("/healthz", (c) => c.json({ ok: true }))
  .get("/openapi.json", (c) => c.json(OPENAPI))
  .get("/", (c) => c.html(DEMO_PAGE));
