// Builds the web client (web/) into web/dist, the static assets of its own worker (web/wrangler.toml).
import { defineConfig } from "vite";

export default defineConfig({
  root: import.meta.dirname,
  // React 19's automatic JSX runtime; no plugin needed for a production build.
  oxc: { jsx: { runtime: "automatic" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    rolldownOptions: {
      // swr (inside @ai-sdk/react) marks modules "use client"; meaningless in a client-only bundle.
      onwarn(warning, warn) {
        if (warning.code !== "MODULE_LEVEL_DIRECTIVE") warn(warning);
      },
    },
  },
  logLevel: "warn",
});
