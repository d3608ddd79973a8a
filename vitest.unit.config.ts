// The unit suite's Vitest config (`npm run test:unit`): pure logic (parsers, scorers, encoders, the mock server)
// and the workspace packages' own tests, in plain Node.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/unit/**/*.test.ts", "packages/*/test/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
  },
});
