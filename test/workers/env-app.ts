// withEnv: the worker's app called in-process under changed variables, for behaviour the suite's own settings hide;
// withEnvEarly: the same, answered before the work it left to waitUntil is done.
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
  const called = await call(vars, path, init);
  await called.settled;
  return conforming(called.request, called.res, init.undocumented);
}

/**
 * `withEnv`'s answer as soon as the app gives it; `settled` resolves once the work the request left to waitUntil is
 * done (for a test that must act, say release a held D1 call, before that work can end).
 */
export async function withEnvEarly(
  vars: Partial<Env>,
  path: string,
  init: RequestInit & { undocumented?: string } = {},
): Promise<{ res: Response; settled: Promise<void> }> {
  const called = await call(vars, path, init);
  return { res: await conforming(called.request, called.res, init.undocumented), settled: called.settled };
}

/** The app's answer to the request, and the end of the work it left to waitUntil. */
async function call(vars: Partial<Env>, path: string, init: RequestInit & { undocumented?: string }) {
  const { undocumented: _undocumented, ...rest } = init;
  const ctx = createExecutionContext();
  const request = new Request(`http://sb.test${path}`, rest);
  const res = await buildApp().fetch(request, { ...env, ...vars }, ctx);
  return { request, res, settled: waitOnExecutionContext(ctx) };
}
