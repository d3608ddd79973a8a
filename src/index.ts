import { type Env, flag } from "./env";
import { buildApp } from "./http/app";
import { sweepD1 } from "./retention/d1";

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

/** The worker: the HTTP API, and the retention cron (wrangler.toml `[triggers]`) that sweeps D1. */
export default {
  fetch: (request, env, ctx) => appFor(env).fetch(request, env, ctx),
  async scheduled(controller, env) {
    const report = await sweepD1(env, controller.scheduledTime);
    console.log(JSON.stringify({ level: "info", msg: "retention_swept", cron: controller.cron, ...report }));
  },
} satisfies ExportedHandler<Env>;
