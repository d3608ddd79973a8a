// withEnv: the worker's app called in-process under changed variables, for behaviour the suite's own settings hide.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { Env } from "../../src/env";
import { buildApp } from "../../src/http/app";
import { conforming } from "./helpers";

/**
 * Calls the worker's app in-process with some variables changed, e.g. the
 * production URL policy (the suite's config allows private URLs globally) or
 * a low default rate limit. Bindings (D1, Durable Objects) are the suite's own.
 * The answer is checked against the OpenAPI document as `api`'s is (`undocumented`: why not).
 */
export async function withEnv(
  vars: Partial<Env>,
  path: string,
  init: RequestInit & { undocumented?: string } = {},
): Promise<Response> {
  const { undocumented, ...rest } = init;
  const ctx = createExecutionContext();
  const request = new Request(`http://sb.test${path}`, rest);
  const res = await buildApp().fetch(request, { ...env, ...vars }, ctx);
  await waitOnExecutionContext(ctx);
  return conforming(request, res, undocumented);
}
