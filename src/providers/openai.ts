import type { StreamEvent } from "../model/stream";
import { bodyText } from "./body-text";
import { buildOpenAIBody } from "./openai-body";
import { OpenAIStreamParser } from "./openai-stream";
import { driveStream, resolveFetch, trimBaseUrl } from "./stream-driver";
import type { ProviderAdapter, ProviderEndpoint, RetryPolicy, StepRequest } from "./types";

/** OpenAI Chat Completions over SSE; also DeepSeek, Qwen, Kimi, vLLM and Ollama. */
export const openai: ProviderAdapter = {
  name: "openai",
  buildBody: buildOpenAIBody,
  async *stream(
    req: StepRequest,
    endpoint: ProviderEndpoint,
    policy: RetryPolicy,
    signal: AbortSignal,
  ): AsyncGenerator<StreamEvent, void, void> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
    if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
    const init: RequestInit = { method: "POST", headers, body: bodyText(req, buildOpenAIBody) };
    const url = `${trimBaseUrl(endpoint.baseUrl)}/chat/completions`;
    yield* driveStream(new OpenAIStreamParser(), url, init, policy, signal, resolveFetch(endpoint.fetch));
  },
};
