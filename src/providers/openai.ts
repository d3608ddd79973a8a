/** The `openai` adapter: Chat Completions over SSE (and the servers that speak it). */
import { buildOpenAIBody, chatOutputTokens } from "./openai-body";
import { OpenAIStreamParser } from "./openai-stream";
import { bearer, sseAdapter } from "./stream-driver";

/** OpenAI Chat Completions over SSE; also DeepSeek, Qwen, Kimi, vLLM and Ollama. */
export const openai = sseAdapter({
  name: "openai",
  buildBody: buildOpenAIBody,
  outputTokens: chatOutputTokens,
  path: "/chat/completions",
  headers: (_req, endpoint) => bearer(endpoint),
  parser: () => new OpenAIStreamParser(),
});
