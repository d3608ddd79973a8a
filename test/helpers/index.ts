// Node-side helpers shared by the e2e tests, benchmarks and scripts. Imports carry `.ts` extensions and use
// only erasable TypeScript, so Node ≥ 22.18 can also load these files directly (type stripping). The process
// helpers (wrangler dev, the mock as a process, free ports, clean kills) are scripts/lib/process.mjs, re-exported.
export * from "../../scripts/lib/process.mjs";
export * from "./api.ts";
export * from "./fixtures.ts";
export * from "./mock.ts";
export * from "./sse.ts";
export * from "./tool-server.ts";
export * from "./wrangler.ts";
