import type { Env } from "./env";
import { buildApp } from "./http/app";
import { log } from "./observability/log";
import { sweepD1 } from "./retention/d1";

export { RateLimiter } from "./ratelimit/rate-limiter";
export { Session } from "./session/session";

const app = buildApp();

/** The worker: the HTTP API, and the retention cron (wrangler.toml `[triggers]`) that sweeps D1. */
export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  async scheduled(controller, env) {
    const report = await sweepD1(env, controller.scheduledTime);
    log("info", "retention_swept", { cron: controller.cron, ...report });
  },
} satisfies ExportedHandler<Env>;
