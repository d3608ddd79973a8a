// Anthropic Messages wire format: SSE frames, message bodies, error bodies, and the brain's view.
import type { IncomingHttpHeaders } from "node:http";
import { contentText } from "./brain.ts";
import { anthropicStopReason, estimateTokens, jsonChunks, wordChunks } from "./chunks.ts";
import type { Codec, ErrorSpec, RequestContext, ServerCompaction } from "./codec.ts";
import {
  COMPACTION_BETA,
  carriedCompaction,
  compactionConfig,
  compactionSummary,
  effectiveMessages,
  hasBeta,
  sealCompaction,
} from "./compaction.ts";
import { messageId, thinkingSignature, toolUseId } from "./ids.ts";
import type { TokenCount } from "./tokenizer.ts";
import { type BrainInput, isRecord, type JsonObject, type Rejection, type ReplySpec } from "./types.ts";
import { validateAnthropicRequest } from "./validate-anthropic.ts";

const ERROR_DEFAULTS: Record<number, [string, string]> = {
  400: ["invalid_request_error", "Invalid request"],
  401: ["authentication_error", "invalid x-api-key"],
  403: ["permission_error", "Your API key does not have permission to use the specified resource."],
  404: ["not_found_error", "Not found"],
  408: ["timeout_error", "Request timed out"],
  413: ["request_too_large", "Request exceeds the maximum allowed number of bytes."],
  429: ["rate_limit_error", "Number of requests has exceeded your per-minute rate limit"],
  500: ["api_error", "Internal server error"],
  529: ["overloaded_error", "Overloaded"],
};
const PING = 'event: ping\ndata: {"type": "ping"}\n\n';

const frame = (type: string, data: unknown): string => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;

interface Resolved {
  thinking: string | undefined;
  text: string | undefined;
  toolCalls: { id: string; name: string; input: Record<string, unknown> }[];
  textAfter: string | undefined;
  stopReason: string;
  usage: { input: number; output: number; cacheRead: number; cacheCreation: number };
}

function resolve(reply: ReplySpec, ctx: RequestContext): Resolved {
  const toolCalls = (reply.tool_calls ?? []).map((c) => ({ id: c.id ?? toolUseId(), name: c.name, input: c.input }));
  const textAfter = toolCalls.length === 0 && reply.text_after ? reply.text_after : undefined;
  const text = (reply.text ?? "") + (reply.refusal ?? "");
  const produced = [reply.thinking, text, textAfter, ...toolCalls.map((c) => JSON.stringify(c.input))].join("");
  return {
    thinking: reply.thinking || undefined,
    text: text || undefined,
    toolCalls,
    textAfter,
    stopReason: anthropicStopReason(reply.stop_reason ?? (reply.refusal ? "refusal" : undefined), toolCalls.length > 0),
    usage: {
      input: reply.usage?.input_tokens ?? reply.compaction?.tokens_after ?? inputTokens(ctx.body, ctx.count),
      output: reply.usage?.output_tokens ?? estimateTokens(produced),
      cacheRead: reply.usage?.cache_read_input_tokens ?? 0,
      cacheCreation: reply.usage?.cache_creation_input_tokens ?? 0,
    },
  };
}

function streamFrames(reply: ReplySpec, ctx: RequestContext): string[] {
  const r = resolve(reply, ctx);
  const frames: string[] = [];
  frames.push(
    frame("message_start", {
      type: "message_start",
      message: {
        id: messageId(),
        type: "message",
        role: "assistant",
        model: ctx.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: r.usage.input,
          cache_creation_input_tokens: r.usage.cacheCreation,
          cache_read_input_tokens: r.usage.cacheRead,
          output_tokens: 1,
          service_tier: "standard",
        },
      },
    }),
  );
  let index = 0;
  const compaction = reply.compaction;
  const start = (block: JsonObject): void => {
    frames.push(frame("content_block_start", { type: "content_block_start", index, content_block: block }));
    if (index === 0) frames.push(PING);
  };
  const delta = (d: JsonObject): void => {
    frames.push(frame("content_block_delta", { type: "content_block_delta", index, delta: d }));
  };
  const stop = (): void => {
    frames.push(frame("content_block_stop", { type: "content_block_stop", index }));
    index++;
  };
  const textBlock = (text: string): void => {
    start({ type: "text", text: "" });
    for (const chunk of wordChunks(text)) delta({ type: "text_delta", text: chunk });
    stop();
  };
  if (compaction) {
    // The summary comes first and whole: one compaction_delta carries it with its opaque state.
    start({ type: "compaction", content: null });
    delta({ type: "compaction_delta", content: compaction.content, encrypted_content: compaction.encrypted_content });
    stop();
  }
  if (r.thinking) {
    start({ type: "thinking", thinking: "", signature: "" });
    for (const chunk of wordChunks(r.thinking)) delta({ type: "thinking_delta", thinking: chunk });
    delta({ type: "signature_delta", signature: thinkingSignature() });
    stop();
  }
  if (r.text) textBlock(r.text);
  for (const call of r.toolCalls) {
    start({ type: "tool_use", id: call.id, name: call.name, input: {} });
    delta({ type: "input_json_delta", partial_json: "" });
    for (const chunk of jsonChunks(JSON.stringify(call.input)))
      delta({ type: "input_json_delta", partial_json: chunk });
    stop();
  }
  if (r.textAfter) textBlock(r.textAfter);
  if (index === 0) frames.push(PING);
  frames.push(
    frame("message_delta", {
      type: "message_delta",
      delta: { stop_reason: r.stopReason, stop_sequence: null },
      usage: compaction
        ? {
            output_tokens: r.usage.output,
            // Top-level usage leaves the compaction iteration out; `iterations` has both.
            iterations: [
              {
                type: "compaction",
                input_tokens: compaction.tokens_before,
                output_tokens: estimateTokens(compaction.content),
              },
              { type: "message", input_tokens: r.usage.input, output_tokens: r.usage.output },
            ],
          }
        : { output_tokens: r.usage.output },
    }),
  );
  frames.push(frame("message_stop", { type: "message_stop" }));
  return frames;
}

function messageBody(reply: ReplySpec, ctx: RequestContext): string {
  const r = resolve(reply, ctx);
  const content: JsonObject[] = [];
  if (reply.compaction)
    content.push({
      type: "compaction",
      content: reply.compaction.content,
      encrypted_content: reply.compaction.encrypted_content,
    });
  if (r.thinking) content.push({ type: "thinking", thinking: r.thinking, signature: thinkingSignature() });
  if (r.text) content.push({ type: "text", text: r.text });
  for (const call of r.toolCalls) content.push({ type: "tool_use", id: call.id, name: call.name, input: call.input });
  if (r.textAfter) content.push({ type: "text", text: r.textAfter });
  return JSON.stringify({
    id: messageId(),
    type: "message",
    role: "assistant",
    model: ctx.model,
    content,
    stop_reason: r.stopReason,
    stop_sequence: null,
    usage: {
      input_tokens: r.usage.input,
      cache_creation_input_tokens: r.usage.cacheCreation,
      cache_read_input_tokens: r.usage.cacheRead,
      output_tokens: r.usage.output,
      service_tier: "standard",
    },
  });
}

function errorBody(error: ErrorSpec, requestId: string): string {
  const [type, message] =
    ERROR_DEFAULTS[error.status] ?? (error.status >= 500 ? ERROR_DEFAULTS[500]! : ERROR_DEFAULTS[400]!);
  return JSON.stringify({
    type: "error",
    error: { type: error.type ?? type, message: error.message ?? message },
    request_id: requestId,
  });
}

function authReject(headers: IncomingHttpHeaders): Rejection | null {
  const key = headers["x-api-key"];
  if (typeof key !== "string" || key.length === 0)
    return { status: 401, type: "authentication_error", message: "x-api-key header is required" };
  const version = headers["anthropic-version"];
  if (typeof version !== "string" || version.length === 0)
    return { status: 400, message: "anthropic-version: header is required" };
  return null;
}

/** The messages the API reads: those from the last compaction block on (`effectiveMessages`). */
function readMessages(body: JsonObject): JsonObject[] {
  return effectiveMessages(Array.isArray(body.messages) ? body.messages.filter(isRecord) : []);
}

/**
 * The tools in the context: all non-deferred tools, plus deferred ones a tool_reference in `messages` (those the API
 * reads) has loaded. A tool_reference before a compaction block was dropped with it: that tool is not loaded any more.
 */
function contextTools(body: JsonObject, messages: JsonObject[]): JsonObject[] {
  const referenced = new Set<string>();
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (!isRecord(block) || block.type !== "tool_result" || !Array.isArray(block.content)) continue;
      for (const inner of block.content) {
        if (isRecord(inner) && inner.type === "tool_reference") referenced.add(String(inner.tool_name));
      }
    }
  }
  const tools = Array.isArray(body.tools) ? body.tools.filter(isRecord) : [];
  return tools.filter((t) => t.defer_loading !== true || referenced.has(String(t.name)));
}

/** Tools the model may call: those in the context (`contextTools`). */
function brainInput(body: JsonObject): BrainInput {
  const messages = readMessages(body);
  const names = new Map<string, string>();
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (isRecord(block) && block.type === "tool_use") names.set(String(block.id), String(block.name));
    }
  }
  const tools = contextTools(body, messages)
    .filter((t) => typeof t.name === "string" && t.input_schema !== undefined)
    .map((t) => ({ name: String(t.name), schema: t.input_schema }));
  const last = [...messages].reverse().find((m) => m.role === "user");
  const content = last?.content;
  if (typeof content === "string") return { tools, userText: content, toolResults: [] };
  const blocks = Array.isArray(content) ? content.filter(isRecord) : [];
  const toolResults = [];
  for (const block of blocks) {
    if (block.type !== "tool_result") break;
    const id = String(block.tool_use_id);
    toolResults.push({ name: names.get(id) ?? id, content: contentText(block.content) });
  }
  const userText = blocks
    .filter((b) => b.type === "text")
    .map((b) => String(b.text))
    .join("\n");
  return { tools, userText, toolResults };
}

/**
 * Input tokens the API reads (as the model counts them, `count`): the request with what precedes its last
 * compaction dropped, and with only the tools in the context (`contextTools`: a deferred one once a tool_reference
 * has loaded it, its whole definition then).
 */
function inputTokens(body: JsonObject, count: TokenCount): number {
  const messages = readMessages(body);
  const seen: JsonObject = { ...body, messages };
  if (Array.isArray(body.tools)) seen.tools = contextTools(body, messages);
  return count(JSON.stringify(seen));
}

const serverCompaction: ServerCompaction = {
  reject(body, headers, issued) {
    const beta = typeof headers["anthropic-beta"] === "string" ? headers["anthropic-beta"] : "";
    const config = compactionConfig(body, beta);
    if (config !== null && "status" in config) return config;
    const messages = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
    const blocks = JSON.stringify(messages).includes('"type":"compaction"');
    if (blocks && !hasBeta(beta))
      return { status: 400, message: `messages: \`compaction\` blocks require the ${COMPACTION_BETA} beta` };
    // Mock-only strictness: once the client surely holds a compaction of this model's, a request that asks for
    // compaction must send one it was given back, unless it opens with a summary of its own that replaced it.
    const carried = carriedCompaction(messages);
    if (config !== null && issued.held && !(carried !== null && issued.all.has(carried))) {
      if (!JSON.stringify(messages).includes("<conversation_summary>"))
        return {
          status: 400,
          message:
            "messages: no compaction block this model was given was sent back (mock: carry compaction blocks verbatim)",
        };
    }
    return null;
  },
  tokens: inputTokens,
  compact(body, tokens, count) {
    const config = compactionConfig(body, COMPACTION_BETA);
    if (config === null || "status" in config || tokens <= config.trigger) return null;
    const messages = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
    const content = compactionSummary(messages);
    const encrypted = sealCompaction(content);
    const block = { type: "compaction", content, encrypted_content: encrypted };
    const after = count(JSON.stringify({ ...body, messages: [{ role: "assistant", content: [block] }] }));
    return { content, encrypted_content: encrypted, tokens_before: tokens, tokens_after: after };
  },
};

export const anthropicCodec: Codec = {
  protocol: "anthropic",
  requestIdHeader: "request-id",
  authReject,
  parseReject: () => ({ status: 400, message: "There was an error parsing the body of your request: invalid JSON" }),
  validate: validateAnthropicRequest,
  errorBody,
  streamFrames,
  messageBody,
  streamErrorFrame: (type, message) =>
    frame("error", { type: "error", error: { type: type ?? "overloaded_error", message: message ?? "Overloaded" } }),
  streamErrorStatus: 529,
  malformedFrame: "event: content_block_delta\ndata: {not json\n\n",
  brainInput,
  // The older models' wording when the output budget is what tips it over.
  overflowError: (tokens, window, output) => ({
    status: 400,
    type: "invalid_request_error",
    message:
      output > 0 && tokens <= window
        ? `input length and \`max_tokens\` exceed context limit: ${tokens} + ${output} > ${window}, decrease input length or \`max_tokens\` and try again`
        : `prompt is too long: ${tokens} tokens > ${window} maximum`,
  }),
  outputTokens: (body) => (typeof body.max_tokens === "number" ? body.max_tokens : 0),
  serverCompaction,
};
