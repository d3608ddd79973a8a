// The bindings the workers suite adds to the worker's Env (cloudflare:test's `env`): the D1 migrations its setup
// file applies (TEST_MIGRATIONS) and the mock model server's URL (MOCK_URL).
import type { D1Migration } from "cloudflare:test";
import type { WorkerEnv } from "../src/http/types";

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      TEST_MIGRATIONS: D1Migration[];
      MOCK_URL: string;
    }
  }
}
