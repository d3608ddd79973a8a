// The default rate limit (src/ratelimit/enforce.ts) against the Workers rate-limiting binding wrangler.toml
// configures: the binding is the one the code reads, the exact limiter used without it limits at the binding's
// limit, and a refusal by the binding waits the binding's period. The binding's own counting is Cloudflare's.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { WorkerEnv } from "../../../src/http/types";
import { enforceRateLimit } from "../../../src/ratelimit/enforce";

const root = new URL("../../../", import.meta.url).pathname;

/** The `[[ratelimits]]` entry of wrangler.toml: its binding name, and its `simple = { limit, period }`. */
function ratelimits(): { name: string | undefined; limit: number; period: number } {
  const toml = readFileSync(path.join(root, "wrangler.toml"), "utf8");
  // The table's lines: from its header to the next header or blank line.
  const table = /^\[\[ratelimits\]\]\n((?:[^[\n].*\n)*)/m.exec(toml)?.[1];
  if (table === undefined) throw new Error("wrangler.toml has no [[ratelimits]] table");
  const simple = /^simple\s*=\s*\{\s*limit\s*=\s*(\d+)\s*,\s*period\s*=\s*(\d+)\s*\}/m.exec(table);
  if (!simple) throw new Error(`wrangler.toml's [[ratelimits]] has no simple = { limit, period }: ${table}`);
  return {
    name: /^name\s*=\s*"([^"]+)"/m.exec(table)?.[1],
    limit: Number(simple[1]),
    period: Number(simple[2]),
  };
}

/** A worker env with only what enforceRateLimit reads. */
function workerEnv(bindings: Record<string, unknown>): WorkerEnv {
  return bindings as unknown as WorkerEnv;
}

/** What enforceRateLimit threw for one request, or null when it let the request go on. */
async function refusal(env: WorkerEnv): Promise<{ code?: string; headers?: Record<string, string> } | null> {
  try {
    await enforceRateLimit(env, "key:k1", null);
    return null;
  } catch (e) {
    return e as { code?: string; headers?: Record<string, string> };
  }
}

describe("the default rate limit and wrangler.toml's [[ratelimits]] binding", () => {
  it("binds RATE_LIMIT, the binding the default limit is counted by", () => {
    expect(ratelimits().name).toBe("RATE_LIMIT");
  });

  it("without the binding, limits at the binding's limit (one default either way)", async () => {
    const limits: number[] = [];
    const env = workerEnv({
      RATE_LIMITER: {
        getByName: () => ({
          take: async (perMin: number) => {
            limits.push(perMin);
            return { ok: true };
          },
        }),
      },
    });
    expect(await refusal(env)).toBeNull();
    expect(limits).toEqual([ratelimits().limit]);
  });

  it("answers a refusal by the binding with Retry-After of the binding's period", async () => {
    const env = workerEnv({ RATE_LIMIT: { limit: async () => ({ success: false }) } });
    const error = await refusal(env);
    expect(error?.code).toBe("rate_limited");
    expect(error?.headers?.["retry-after"]).toBe(String(ratelimits().period));
  });
});
