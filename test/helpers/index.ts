// Node-side helpers shared by the e2e tests, benchmarks and scripts. Imports carry `.ts` extensions and use
// only erasable TypeScript, so Node ≥ 22.18 can also load these files directly (type stripping).
export * from "./api.ts";
export * from "./fixtures.ts";
export * from "./mock.ts";
export * from "./ports.ts";
export * from "./sse.ts";
export * from "./tool-server.ts";
export * from "./wrangler.ts";
