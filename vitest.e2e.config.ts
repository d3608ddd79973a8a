// The e2e suite's Vitest config (`npm run test:e2e`): the public HTTP API of the real worker in workerd
// (`wrangler dev`), with the mock model server behind both provider base URLs. One wrangler for the whole run
// (global setup); files run one after another because they share it.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/e2e/**/*.test.ts"],
    environment: "node",
    globalSetup: ["test/e2e/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    retry: 0,
  },
});
