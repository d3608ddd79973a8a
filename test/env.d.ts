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
