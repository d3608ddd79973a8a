import { Hono } from "hono";
import type { AppEnv } from "../app";

export const healthRoutes = new Hono<AppEnv>()
  .get("/healthz", (c) => c.json({ ok: true }))
  .get("/", (c) =>
    c.html(`<!doctype html><meta charset="utf-8"><title>Switchboard</title>
<h1>Switchboard</h1><p>Chat and agent sessions for tool-using LLMs. See <a href="/healthz">/healthz</a> and the README.</p>`),
  );
