// The workers suite's setup file (setupFiles in vitest.workers.config.ts): the D1 migrations applied to the test
// database.
import { applyD1Migrations, env } from "cloudflare:test";

// Setup files run before each test file; applying is idempotent.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
