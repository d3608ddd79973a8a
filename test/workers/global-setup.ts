// The workers suite's global setup: starts the mock model server in Node and hands the tests its URL and the chaos
// test's CHAOS_SEEDS and CHAOS_OPS.
import type { TestProject } from "vitest/node";
import { startMock } from "../../mock/server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    mockUrl: string;
    /** CHAOS_SEEDS and CHAOS_OPS from the shell, for session-chaos.test.ts ("" when unset). */
    chaos: { seeds: string; ops: string };
  }
}

// The mock model server runs in Node beside the Workers runtime; DOs reach it over loopback.
export default async function setup(project: TestProject) {
  const mock = await startMock({ port: 0 });
  project.provide("mockUrl", mock.url);
  project.provide("chaos", { seeds: process.env.CHAOS_SEEDS ?? "", ops: process.env.CHAOS_OPS ?? "" });
  return async () => {
    await mock.close();
  };
}
