// The e2e suite's global setup: builds the web client when web/dist is missing, starts one mock model server and
// one `wrangler dev` (real workerd) for the whole run, and hands the tests their URLs and the admin key.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startMock } from "../../mock/server.ts";
import { nodeBinary, repoRoot, startWrangler, WITH_WEB_CLIENT } from "../../scripts/lib/process.mjs";
import { workerVars } from "../helpers/wrangler.ts";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    mockUrl: string;
    adminKey: string;
  }
}

export const ADMIN_KEY = "e2e-admin-key";

// One mock model server and one `wrangler dev` (real workerd) for the whole e2e run.
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The web client's worker (web/wrangler.toml) serves web/dist behind the API; `npm test` builds it first.
  if (!existsSync(path.join(repoRoot, "web", "dist", "index.html"))) {
    execFileSync(
      nodeBinary(),
      [path.join(repoRoot, "node_modules", "vite", "bin", "vite.js"), "build", "--config", "web/vite.config.ts"],
      {
        cwd: repoRoot,
        stdio: "inherit",
      },
    );
  }
  const mock = await startMock({ port: 0 });
  let worker: Awaited<ReturnType<typeof startWrangler>>;
  try {
    worker = await startWrangler({
      extraArgs: WITH_WEB_CLIENT,
      vars: workerVars(mock.url, ADMIN_KEY, {
        SWITCHBOARD_IDLE_TIMEOUT_MS: "3000",
        // MCP calls time out fast so the timeout test stays short; lists keep the default TTL.
        SWITCHBOARD_MCP_CALL_TIMEOUT_MS: "1500",
      }),
    });
  } catch (error) {
    await mock.close();
    throw error;
  }
  project.provide("baseUrl", worker.url);
  project.provide("mockUrl", mock.url);
  project.provide("adminKey", ADMIN_KEY);
  return async () => {
    await worker.stop();
    await mock.close();
    // The worker's own logs (requests, console output, uncaught errors) for post-mortems.
    const logFile = path.join(tmpdir(), "switchboard-e2e-wrangler.log");
    await writeFile(logFile, worker.output());
    console.log(`e2e: wrangler output saved to ${logFile} (set E2E_WRANGLER_LOGS=1 to stream it live)`);
  };
}
