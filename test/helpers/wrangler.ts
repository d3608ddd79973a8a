// The worker variables of the e2e suite's `wrangler dev`. Starting and stopping wrangler itself (and the mock,
// free ports, clean kills) is scripts/lib/process.mjs, shared with `npm start` and the benches.

/**
 * The worker variables every e2e `wrangler dev` runs with: the mock model behind both providers (fake keys),
 * private URLs allowed (tools on loopback) and the debug checks on (invariant P, the 2 MB cell limit).
 */
export function workerVars(
  mockUrl: string,
  adminKey: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    SWITCHBOARD_ADMIN_KEY: adminKey,
    ANTHROPIC_API_KEY: "e2e-anthropic-key",
    ANTHROPIC_BASE_URL: mockUrl,
    OPENAI_API_KEY: "e2e-openai-key",
    OPENAI_BASE_URL: `${mockUrl}/v1`,
    SWITCHBOARD_ALLOW_PRIVATE_URLS: "true",
    SWITCHBOARD_DEBUG_CHECKS: "true",
    ...extra,
  };
}
