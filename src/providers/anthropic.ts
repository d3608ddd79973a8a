import type { StreamEvent } from "../model/stream";
import { buildAnthropicBody } from "./anthropic-body";
import { AnthropicStreamParser } from "./anthropic-stream";
import { bodyText } from "./body-text";
import { driveStream, resolveFetch, trimBaseUrl } from "./stream-driver";
import type { ProviderAdapter, ProviderEndpoint, RetryPolicy, StepRequest } from "./types";

export const ANTHROPIC_VERSION = "2023-06-01";
/** Deferred tools (`defer_loading`) and `tool_reference` blocks are a beta of the Messages API. */
export const TOOL_SEARCH_BETA = "advanced-tool-use-2025-11-20";

/** Anthropic Messages API over SSE. */
export const anthropic: ProviderAdapter = {
  name: "anthropic",
  buildBody: buildAnthropicBody,
  async *stream(
    req: StepRequest,
    endpoint: ProviderEndpoint,
    policy: RetryPolicy,
    signal: AbortSignal,
  ): AsyncGenerator<StreamEvent, void, void> {
    const headers: Record<string, string> = {
      "anthropic-version": ANTHROPIC_VERSION,
      "content-type": "application/json",
      accept: "text/event-stream",
    };
    if (endpoint.apiKey) headers["x-api-key"] = endpoint.apiKey;
    if (req.tools.some((t) => t.defer_loading)) headers["anthropic-beta"] = TOOL_SEARCH_BETA;
    const init: RequestInit = { method: "POST", headers, body: bodyText(req, buildAnthropicBody) };
    const url = `${trimBaseUrl(endpoint.baseUrl)}/v1/messages`;
    yield* driveStream(new AnthropicStreamParser(), url, init, policy, signal, resolveFetch(endpoint.fetch));
  },
};
