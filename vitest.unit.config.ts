import { defineConfig } from "vitest/config";

// Pure logic (parsers, scorers, encoders, the mock server) and the workspace packages' own tests: plain Node.
export default defineConfig({
  test: {
    include: ["test/unit/**/*.test.ts", "packages/*/test/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
  },
});
