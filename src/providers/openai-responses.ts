/** The `openai-responses` adapter: OpenAI Responses API over SSE (server-side compaction via `compact_threshold`). */
import { buildResponsesBody, RESPONSES_COMPACTION_PROVIDER, responsesOutputTokens } from "./openai-responses-body";
import { ResponsesStreamParser } from "./openai-responses-stream";
import { bearer, sseAdapter } from "./stream-driver";

/** OpenAI Responses API (`POST /responses`, stateless: `store: false`, the whole input every step). */
export const openaiResponses = sseAdapter({
  name: "openai-responses",
  buildBody: buildResponsesBody,
  outputTokens: responsesOutputTokens,
  opaqueCompactionFrom: RESPONSES_COMPACTION_PROVIDER,
  path: "/responses",
  headers: (_req, endpoint) => bearer(endpoint),
  parser: () => new ResponsesStreamParser(),
});
