/**
 * Entry point of the provider layer: `getAdapter` by provider name, `endpointFromEnv` (base URL and API key
 * from the environment) and the retry policy (`DEFAULT_RETRY_POLICY`, `policyFor`). Re-exports the provider
 * types, the size of a request's prompt (`promptSize`) and the wire-level invariant check (`checkWireInvariant`):
 * what the session takes of the provider layer, it takes from here (or types.ts).
 */
import { positive } from "../env-values";
import { anthropic } from "./anthropic";
import { openai } from "./openai";
import { openaiResponses } from "./openai-responses";
import { trimBaseUrl } from "./stream-driver";
import type { ProviderAdapter, ProviderEndpoint, ProviderName, RetryPolicy } from "./types";

export { promptSize } from "./body-text";
export { checkWireInvariant } from "./check-invariant";
export * from "./types";

const ADAPTERS: Record<ProviderName, ProviderAdapter> = { anthropic, openai, "openai-responses": openaiResponses };

export function getAdapter(name: ProviderName): ProviderAdapter {
  return ADAPTERS[name];
}

interface ProviderEnv {
  ANTHROPIC_API_KEY?: string;
  ANTHROPIC_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
}

const DEFAULT_BASE_URLS: Record<ProviderName, string> = {
  anthropic: "https://api.anthropic.com",
  openai: "https://api.openai.com/v1",
  "openai-responses": "https://api.openai.com/v1",
};

/**
 * A missing key is passed on as empty (and its header left out) rather than
 * refused: local servers such as Ollama or a mock need none, and the real
 * APIs answer 401 with a clear message. Both OpenAI protocols read the OpenAI variables.
 */
export function endpointFromEnv(provider: ProviderName, env: ProviderEnv): ProviderEndpoint {
  const [baseUrl, apiKey] =
    provider === "anthropic"
      ? [env.ANTHROPIC_BASE_URL, env.ANTHROPIC_API_KEY]
      : [env.OPENAI_BASE_URL, env.OPENAI_API_KEY];
  return { baseUrl: trimBaseUrl(baseUrl || DEFAULT_BASE_URLS[provider]), apiKey: apiKey ?? "" };
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 4,
  baseDelayMs: 250,
  maxDelayMs: 8000,
  idleTimeoutMs: 60_000,
  stepTimeoutMs: 20 * 60_000,
  connectTimeoutMs: 30_000,
});

/** The provider retry policy, with the idle timeout and the step deadline from the environment. */
export function policyFor(env: {
  SWITCHBOARD_IDLE_TIMEOUT_MS?: string;
  SWITCHBOARD_STEP_TIMEOUT_MS?: string;
}): RetryPolicy {
  if (!env.SWITCHBOARD_IDLE_TIMEOUT_MS && !env.SWITCHBOARD_STEP_TIMEOUT_MS) return DEFAULT_RETRY_POLICY;
  return {
    ...DEFAULT_RETRY_POLICY,
    idleTimeoutMs: positive(env.SWITCHBOARD_IDLE_TIMEOUT_MS, DEFAULT_RETRY_POLICY.idleTimeoutMs),
    stepTimeoutMs: positive(env.SWITCHBOARD_STEP_TIMEOUT_MS, DEFAULT_RETRY_POLICY.stepTimeoutMs),
  };
}
