import { buildApp } from "./http/app";
import type { WorkerEnv } from "./http/types";
import { sweepD1 } from "./retention/cron";

export { RateLimiter } from "./ratelimit/rate-limiter";
export { Session } from "./session/session";

const app = buildApp();

/** The worker: the HTTP API, and the retention cron (wrangler.toml `[triggers]`) that sweeps D1. */
export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),
  async scheduled(controller, env) {
    const report = await sweepD1(env, controller.scheduledTime);
    console.log(JSON.stringify({ level: "info", msg: "retention_swept", cron: controller.cron, ...report }));
  },
} satisfies ExportedHandler<WorkerEnv>;
