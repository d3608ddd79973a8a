import { defineConfig } from "vitest/config";

// Pure logic (parsers, scorers, encoders, the mock server): plain Node.
export default defineConfig({
  test: {
    include: ["test/unit/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
  },
});
