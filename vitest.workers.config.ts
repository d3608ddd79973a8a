// The workers suite's Vitest config (`npm run test:workers`): Durable Object behaviour inside the Workers runtime
// (miniflare, through @cloudflare/vitest-plugin), with the worker's own wrangler.toml and test values for its
// variables. The mock model server and an MCP server run in the Node side (globalSetup) and are reached over loopback.
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

/**
 * The web client's worker (web/wrangler.toml) as a stand-in that has every path but /missing… and /down… (that
 * one answered as a worker that is not running): the tests check which requests the API forwards to it
 * (test/workers/web-client.test.ts), not the built web app.
 */
function webClientStandIn(request: Request): Response {
  const { pathname } = new URL(request.url);
  if (pathname.startsWith("/missing")) return new Response(null, { status: 404 });
  if (pathname.startsWith("/down")) return new Response("worker not found", { status: 503 });
  return new Response(`web client: ${request.method} ${pathname}`, { headers: { "content-type": "text/plain" } });
}

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
    plugins: [
      cloudflareTest(({ inject }) => ({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          serviceBindings: { WEB: webClientStandIn },
          bindings: {
            TEST_MIGRATIONS: migrations,
            ANTHROPIC_BASE_URL: inject<string>("mockUrl"),
            OPENAI_BASE_URL: `${inject<string>("mockUrl")}/v1`,
            ANTHROPIC_API_KEY: "test-anthropic-key",
            OPENAI_API_KEY: "test-openai-key",
            SWITCHBOARD_ADMIN_KEY: "test-admin-key",
            SWITCHBOARD_ALLOW_PRIVATE_URLS: "true",
            SWITCHBOARD_DEBUG_CHECKS: "true",
            // The debug seeding route (src/http/routes/debug.ts); debug-seed.test.ts checks it is off without it.
            SWITCHBOARD_DEBUG_SEED: "true",
            SWITCHBOARD_LOG_EVENTS: "false",
            SWITCHBOARD_IDLE_TIMEOUT_MS: "1500",
            // Keep-alives on client streams quiet for 1 s (15 s deployed): session/stream/subscribers.test.ts waits for them
            // during a slow tool, and every other stream of the suite is read with them in it.
            SWITCHBOARD_STREAM_PING_MS: "1000",
            // The step deadline: longer than any stream of the suite, with room for a slow host (a 2-core machine
            // under load stretched one structured-output stream to 6 s). session/turn/step.test.ts checks that a step
            // is asked under it, and reads its steady stream under a deadline of a fraction of a second instead.
            SWITCHBOARD_STEP_TIMEOUT_MS: "15000",
            // Idle-session expiry is off by default; on here (far out) so retention.test.ts can reach it.
            SWITCHBOARD_RETENTION_SESSION_IDLE_DAYS: "400",
            MOCK_URL: inject<string>("mockUrl"),
          },
        },
      })),
    ],
    test: {
      include: ["test/workers/**/*.test.ts"],
      globalSetup: ["test/workers/global-setup.ts"],
      setupFiles: ["test/workers/apply-migrations.ts"],
      testTimeout: 60_000,
      // Structured event lines are for log drains; keep test output readable.
      onConsoleLog: (log: string) => !log.startsWith('{"level":"info"'),
    },
  };
});
