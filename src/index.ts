/**
 * The worker's entry module: exports the Durable Object classes (`Session`, `RateLimiter`) and the default
 * handler, whose `fetch` serves the HTTP app (plus the debug seeding route only when SWITCHBOARD_DEBUG_SEED is
 * on) and whose `scheduled` runs the D1 retention sweep and the idle-expiry walk over the session index.
 */
import type { Env } from "./env";
import { flag } from "./env-values";
import { buildApp } from "./http/app";
import type { WorkerEnv } from "./http/types";
import { log } from "./observability/log";
import { sweepD1, walkIdleSessions } from "./retention/cron";

export { RateLimiter } from "./ratelimit/rate-limiter";
export { Session } from "./session/session";

const app = buildApp();
/** Built only when SWITCHBOARD_DEBUG_SEED is on (benches): the same app plus the debug seeding route. */
let debugApp: ReturnType<typeof buildApp> | null = null;

function appFor(env: Env): ReturnType<typeof buildApp> {
  if (!flag(env.SWITCHBOARD_DEBUG_SEED)) return app;
  debugApp ??= buildApp({ debugSeed: true });
  return debugApp;
}

/** The worker: the HTTP API, and the retention cron (wrangler.toml `[triggers]`) that sweeps D1 and walks the session index. */
export default {
  fetch: (request, env, ctx) => appFor(env).fetch(request, env, ctx),
  async scheduled(controller, env) {
    const report = await sweepD1(env, controller.scheduledTime);
    const idle = await walkIdleSessions(env);
    log("info", "retention_swept", { cron: controller.cron, ...report, ...idle });
  },
} satisfies ExportedHandler<WorkerEnv>;
