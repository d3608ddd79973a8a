/** The `openai-responses` adapter: OpenAI Responses API over SSE (server-side compaction via `compact_threshold`). */
import type { StreamEvent } from "../model/stream";
import { bodyText } from "./body-text";
import { buildResponsesBody } from "./openai-responses-body";
import { ResponsesStreamParser } from "./openai-responses-stream";
import { driveStream, resolveFetch, trimBaseUrl } from "./stream-driver";
import type { ProviderAdapter, ProviderEndpoint, RetryPolicy, StepRequest } from "./types";

/** OpenAI Responses API (`POST /responses`, stateless: `store: false`, the whole input every step). */
export const openaiResponses: ProviderAdapter = {
  name: "openai-responses",
  buildBody: buildResponsesBody,
  async *stream(
    req: StepRequest,
    endpoint: ProviderEndpoint,
    policy: RetryPolicy,
    signal: AbortSignal,
  ): AsyncGenerator<StreamEvent, void, void> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
    if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
    const init: RequestInit = { method: "POST", headers, body: bodyText(req, buildResponsesBody) };
    const url = `${trimBaseUrl(endpoint.baseUrl)}/responses`;
    yield* driveStream(new ResponsesStreamParser(), url, init, policy, signal, resolveFetch(endpoint.fetch));
  },
};
