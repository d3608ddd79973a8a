/**
 * Service routes: liveness, the OpenAPI document and its interactive reference at /docs (Scalar's Hono
 * middleware; the page loads Scalar's script from jsDelivr in the reader's browser, so /docs alone needs the
 * internet). The web client (web/, built into web/dist) is its own worker behind this one (web/wrangler.toml,
 * reached by ../web-client.ts), so `/` is the chat app.
 */
import { Scalar } from "@scalar/hono-api-reference";
import { Hono } from "hono";
import { OPENAPI } from "../openapi";
import type { AppEnv } from "../types";

/**
 * The Scalar bundle /docs loads, pinned: the middleware's default is the CDN's latest release, which could change
 * the page under us. 1.71.0 was the current release when the locked @scalar/hono-api-reference (0.12.4) was
 * published; move both together.
 */
const SCALAR_BUNDLE = "https://cdn.jsdelivr.net/npm/@scalar/api-reference@1.71.0/dist/browser/standalone.js";

export const healthRoutes = new Hono<AppEnv>()
  .get("/healthz", (c) => c.json({ ok: true }))
  .get("/openapi.json", (c) => c.json(OPENAPI))
  .get("/docs", Scalar({ url: "/openapi.json", pageTitle: "Switchboard API", cdn: SCALAR_BUNDLE }));
