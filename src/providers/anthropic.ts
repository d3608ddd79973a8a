import type { StreamEvent } from "../model/stream";
import { type AnthropicMessage, buildAnthropicBody } from "./anthropic-body";
import { AnthropicStreamParser } from "./anthropic-stream";
import { bodyOf, bodyText } from "./body-text";
import { driveStream, resolveFetch, trimBaseUrl } from "./stream-driver";
import type { ProviderAdapter, ProviderEndpoint, RetryPolicy, StepRequest } from "./types";

export const ANTHROPIC_VERSION = "2023-06-01";
/** Deferred tools (`defer_loading`) and `tool_reference` blocks are a beta of the Messages API. */
export const TOOL_SEARCH_BETA = "advanced-tool-use-2025-11-20";
/** Server-side compaction: the request edit and the `compaction` blocks sent back. */
export const COMPACTION_BETA = "compact-2026-01-12";

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
    const betas = anthropicBetas(req, bodyOf(req, buildAnthropicBody));
    if (betas.length > 0) headers["anthropic-beta"] = betas.join(",");
    const init: RequestInit = { method: "POST", headers, body: bodyText(req, buildAnthropicBody) };
    const url = `${trimBaseUrl(endpoint.baseUrl)}/v1/messages`;
    yield* driveStream(new AnthropicStreamParser(), url, init, policy, signal, resolveFetch(endpoint.fetch));
  },
};

/** The betas a request needs: deferred tools, and server-side compaction (the edit or a block sent back). */
export function anthropicBetas(req: StepRequest, body: Record<string, unknown>): string[] {
  const betas: string[] = [];
  if (req.tools.some((t) => t.defer_loading)) betas.push(TOOL_SEARCH_BETA);
  const messages = (body.messages ?? []) as AnthropicMessage[];
  const blocks = messages.some((m) => m.content.some((b) => b.type === "compaction"));
  if (body.context_management !== undefined || blocks) betas.push(COMPACTION_BETA);
  return betas;
}
