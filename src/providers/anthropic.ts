/** The `anthropic` adapter: the Messages API over SSE, with the betas a request needs. */
import {
  type AnthropicMessage,
  anthropicId,
  anthropicOutputTokens,
  buildAnthropicBody,
  MIN_COMPACTION_TRIGGER,
} from "./anthropic-body";
import { AnthropicStreamParser } from "./anthropic-stream";
import { bodyOf } from "./body-text";
import { sseAdapter } from "./stream-driver";
import type { StepRequest } from "./types";

const ANTHROPIC_VERSION = "2023-06-01";
/** Deferred tools (`defer_loading`) and `tool_reference` blocks are a beta of the Messages API. */
export const TOOL_SEARCH_BETA = "advanced-tool-use-2025-11-20";
/** Server-side compaction: the request edit and the `compaction` blocks sent back. */
export const COMPACTION_BETA = "compact-2026-01-12";

/** Anthropic Messages API over SSE. */
export const anthropic = sseAdapter({
  name: "anthropic",
  buildBody: buildAnthropicBody,
  outputTokens: anthropicOutputTokens,
  wireCallId: anthropicId,
  minCompactionTrigger: MIN_COMPACTION_TRIGGER,
  path: "/v1/messages",
  headers(req, endpoint) {
    const headers: Record<string, string> = { "anthropic-version": ANTHROPIC_VERSION };
    if (endpoint.apiKey) headers["x-api-key"] = endpoint.apiKey;
    const betas = anthropicBetas(req, bodyOf(req, buildAnthropicBody));
    if (betas.length > 0) headers["anthropic-beta"] = betas.join(",");
    return headers;
  },
  parser: () => new AnthropicStreamParser(),
});

/**
 * The betas a request needs: deferred tools or a `tool_reference` block (one kept across a compaction that made
 * every deferred tool a loaded one still needs it), and server-side compaction (the edit or a block sent back).
 */
export function anthropicBetas(req: StepRequest, body: Record<string, unknown>): string[] {
  const betas: string[] = [];
  const messages = (body.messages ?? []) as AnthropicMessage[];
  if (req.tools.some((t) => t.defer_loading) || messages.some(hasToolReference)) betas.push(TOOL_SEARCH_BETA);
  const blocks = messages.some((m) => m.content.some((b) => b.type === "compaction"));
  if (body.context_management !== undefined || blocks) betas.push(COMPACTION_BETA);
  return betas;
}

function hasToolReference(message: AnthropicMessage): boolean {
  return message.content.some(
    (b) => b.type === "tool_result" && Array.isArray(b.content) && b.content.some((c) => c.type === "tool_reference"),
  );
}
