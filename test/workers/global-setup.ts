import type { TestProject } from "vitest/node";
import { startMock } from "../../mock/server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    mockUrl: string;
  }
}

// The mock model server runs in Node beside the Workers runtime; DOs reach it over loopback.
export default async function setup(project: TestProject) {
  const mock = await startMock({ port: 0 });
  project.provide("mockUrl", mock.url);
  return async () => {
    await mock.close();
  };
}
