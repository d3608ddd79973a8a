/**
 * The web client behind the API: a GET or HEAD the API has no route for goes to the web client's worker
 * (web/wrangler.toml, an assets-only worker reached through the WEB service binding), so `/` is the chat app
 * while every API request reaches this worker first, with no asset router in front of it. API paths (`/v1/…`),
 * what the web client does not have, and a web client that is not running answer the API's JSON 404 (the
 * last one says so).
 */
import type { Context } from "hono";
import { errorBody } from "./errors";
import type { AppEnv } from "./types";

export async function webClient(c: Context<AppEnv>): Promise<Response> {
  const pathname = c.req.path;
  let detail = "";
  if (c.env.WEB && (c.req.method === "GET" || c.req.method === "HEAD") && !pathname.startsWith("/v1/")) {
    const res = await c.env.WEB.fetch(c.req.raw).catch(() => null);
    if (res && res.status !== 404 && res.status < 500) return res;
    await res?.body?.cancel();
    // `wrangler dev` of the API alone answers for the missing worker with a 503.
    if (!res || res.status >= 500) detail = " (the web client's worker, web/wrangler.toml, is not reachable)";
  }
  return c.json(errorBody("not_found", `no route for ${c.req.method} ${pathname}${detail}`), 404);
}
