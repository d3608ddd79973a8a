// OpenAI Responses API wire format (`POST /v1/responses`): SSE events, response bodies, error bodies,
// the brain's view, and server-side compaction past `context_management` `compact_threshold`. A reply's `refusal`
// is a `refusal` content part of its message, streamed as `response.refusal.delta` / `.done`.
import { contentText } from "./brain.ts";
import { estimateTokens, jsonChunks, wordChunks } from "./chunks.ts";
import type { Codec, RequestContext, ServerCompaction } from "./codec.ts";
import { sealCompaction } from "./compaction.ts";
import { base62, toolCallId } from "./ids.ts";
import { authReject, errorBody } from "./openai.ts";
import type { TokenCount } from "./tokenizer.ts";
import { type BrainInput, isRecord, type JsonObject, type ReplySpec } from "./types.ts";
import { contextManagement, validateResponsesRequest } from "./validate-openai-responses.ts";

const SUMMARY_MAX_CHARS = 1200;

const itemsOf = (body: JsonObject): JsonObject[] =>
  Array.isArray(body.input)
    ? body.input.filter(isRecord)
    : typeof body.input === "string"
      ? [{ type: "message", role: "user", content: body.input }]
      : [];

/** What the API reads: everything before the last compaction item is dropped (the item itself stays). */
export function effectiveItems(items: JsonObject[]): JsonObject[] {
  for (let i = items.length - 1; i >= 0; i--) if (items[i]?.type === "compaction") return items.slice(i);
  return items;
}

/** Input tokens the API reads (as the model counts them, `count`): the request with what precedes its last compaction dropped. */
function inputTokens(body: JsonObject, count: TokenCount): number {
  return count(JSON.stringify({ ...body, input: effectiveItems(itemsOf(body)) }));
}

/** A bounded summary of what the request reads: the first words of every user message and tool output. */
function summaryOf(items: JsonObject[]): string {
  const lines: string[] = [];
  for (const item of effectiveItems(items)) {
    if (item.type === "compaction") lines.push("- earlier: (a previous compaction)");
    if ((item.type ?? "message") === "message" && item.role === "user")
      lines.push(`- user: ${contentText(item.content).slice(0, 40)}`);
    if (item.type === "function_call_output") lines.push(`- tool output: ${contentText(item.output).slice(0, 40)}`);
  }
  let text = `Compacted summary of ${lines.length} items:\n${lines.join("\n")}`;
  if (text.length > SUMMARY_MAX_CHARS) text = `Compacted summary (newest kept):\n…${text.slice(-SUMMARY_MAX_CHARS)}`;
  return text;
}

const serverCompaction: ServerCompaction = {
  reject(body, _headers, issued) {
    // Mock-only strictness: once the client surely holds a compaction of this model's, a request that asks for
    // compaction must send one it was given back verbatim (any of them: the API reads from whichever comes, and
    // a cut after a newer one may leave it with either), unless it opens with a summary of its own instead.
    const config = contextManagement(body.context_management);
    if (config === null || "status" in config || !issued.held) return null;
    const items = effectiveItems(itemsOf(body));
    const carried = items[0]?.type === "compaction" ? items[0].encrypted_content : null;
    if (typeof carried === "string" && issued.all.has(carried)) return null;
    if (JSON.stringify(items).includes("<conversation_summary>")) return null;
    return {
      status: 400,
      message: "input: no compaction item this model was given was sent back (mock: carry compaction items verbatim)",
      param: "input",
      code: null,
    };
  },
  tokens: inputTokens,
  compact(body, tokens, count) {
    const config = contextManagement(body.context_management);
    if (config === null || "status" in config || tokens <= config.threshold) return null;
    const content = summaryOf(itemsOf(body));
    const encrypted = sealCompaction(content);
    const after = count(JSON.stringify({ ...body, input: [{ type: "compaction", encrypted_content: encrypted }] }));
    return { content, encrypted_content: encrypted, tokens_before: tokens, tokens_after: after };
  },
};

interface Resolved {
  text: string;
  refusal: string;
  calls: { id: string; name: string; arguments: string }[];
  incomplete: string | null;
  usage: { input: number; output: number; cached: number | undefined };
}

function resolve(reply: ReplySpec, ctx: RequestContext): Resolved {
  const calls = (reply.tool_calls ?? []).map((c) => ({
    id: c.id ?? toolCallId(),
    name: c.name,
    arguments: JSON.stringify(c.input),
  }));
  const text = (reply.text ?? "") + (calls.length === 0 ? (reply.text_after ?? "") : "");
  const stop = reply.stop_reason;
  const incomplete =
    stop === "max_tokens" || stop === "length"
      ? "max_output_tokens"
      : stop === "refusal" || stop === "content_filter"
        ? "content_filter"
        : null;
  const refusal = reply.refusal ?? "";
  return {
    text,
    refusal,
    calls,
    incomplete,
    usage: {
      input: reply.usage?.input_tokens ?? reply.compaction?.tokens_after ?? inputTokens(ctx.body, ctx.count),
      output: reply.usage?.output_tokens ?? estimateTokens(text + refusal + calls.map((c) => c.arguments).join("")),
      cached: reply.usage?.cache_read_input_tokens,
    },
  };
}

/** The content parts of a reply's message: its text, then its refusal. */
function messageParts(r: Resolved): JsonObject[] {
  return [
    ...(r.text ? [{ type: "output_text", text: r.text, annotations: [] }] : []),
    ...(r.refusal ? [{ type: "refusal", refusal: r.refusal }] : []),
  ];
}

/** The output items of a reply: the compaction first (when the mock compacted), the message, the calls. */
function outputItems(reply: ReplySpec, r: Resolved): JsonObject[] {
  const items: JsonObject[] = [];
  if (reply.compaction)
    items.push({ id: `cmp_${base62(24)}`, type: "compaction", encrypted_content: reply.compaction.encrypted_content });
  const content = messageParts(r);
  if (content.length > 0)
    items.push({ id: `msg_${base62(24)}`, type: "message", status: "completed", role: "assistant", content });
  for (const c of r.calls)
    items.push({
      id: `fc_${base62(24)}`,
      type: "function_call",
      status: "completed",
      call_id: c.id,
      name: c.name,
      arguments: c.arguments,
    });
  return items;
}

function responseObject(reply: ReplySpec, r: Resolved, ctx: RequestContext, id: string, final: boolean): JsonObject {
  const usage: JsonObject = {
    input_tokens: r.usage.input,
    input_tokens_details: { cached_tokens: r.usage.cached ?? 0 },
    output_tokens: r.usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: r.usage.input + r.usage.output,
  };
  return {
    id,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: final ? (r.incomplete ? "incomplete" : "completed") : "in_progress",
    model: ctx.model,
    output: final ? outputItems(reply, r) : [],
    incomplete_details: final && r.incomplete ? { reason: r.incomplete } : null,
    error: null,
    usage: final ? usage : null,
  };
}

function streamFrames(reply: ReplySpec, ctx: RequestContext): string[] {
  const r = resolve(reply, ctx);
  const id = `resp_${base62(32)}`;
  const frames: string[] = [];
  let seq = 0;
  const emit = (type: string, data: JsonObject): void => {
    frames.push(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
  };
  emit("response.created", { response: responseObject(reply, r, ctx, id, false) });
  emit("response.in_progress", { response: responseObject(reply, r, ctx, id, false) });
  const items = outputItems(reply, r);
  items.forEach((item, output_index) => {
    if (item.type === "message") {
      const item_id = String(item.id);
      emit("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
      messageParts(r).forEach((done, content_index) => {
        const at = { item_id, output_index, content_index };
        if (done.type === "refusal") {
          emit("response.content_part.added", { ...at, part: { type: "refusal", refusal: "" } });
          for (const delta of wordChunks(r.refusal)) emit("response.refusal.delta", { ...at, delta });
          emit("response.refusal.done", { ...at, refusal: r.refusal });
        } else {
          emit("response.content_part.added", { ...at, part: { ...done, text: "" } });
          for (const delta of wordChunks(r.text)) emit("response.output_text.delta", { ...at, delta, logprobs: [] });
          emit("response.output_text.done", { ...at, text: r.text, logprobs: [] });
        }
        emit("response.content_part.done", { ...at, part: done });
      });
    } else if (item.type === "function_call") {
      const item_id = String(item.id);
      emit("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } });
      for (const delta of jsonChunks(String(item.arguments)))
        emit("response.function_call_arguments.delta", { item_id, output_index, delta });
      emit("response.function_call_arguments.done", {
        item_id,
        output_index,
        name: item.name,
        arguments: item.arguments,
      });
    } else {
      emit("response.output_item.added", { output_index, item });
    }
    emit("response.output_item.done", { output_index, item });
  });
  const final = responseObject(reply, r, ctx, id, true);
  emit(r.incomplete ? "response.incomplete" : "response.completed", { response: final });
  return frames;
}

/** Tools from tools[]; the trailing function_call_output items are this turn's results. */
function brainInput(body: JsonObject): BrainInput {
  const items = effectiveItems(itemsOf(body));
  const tools = (Array.isArray(body.tools) ? body.tools.filter(isRecord) : [])
    .filter((t) => typeof t.name === "string")
    .map((t) => ({ name: String(t.name), schema: t.parameters ?? { type: "object" } }));
  const names = new Map<string, string>();
  for (const item of items) if (item.type === "function_call") names.set(String(item.call_id), String(item.name));
  const toolResults = [];
  for (let i = items.length - 1; i >= 0 && items[i]?.type === "function_call_output"; i--) {
    const id = String(items[i]?.call_id);
    toolResults.unshift({ name: names.get(id) ?? id, content: contentText(items[i]?.output) });
  }
  const lastUser = [...items].reverse().find((m) => (m.type ?? "message") === "message" && m.role === "user");
  return { tools, userText: lastUser ? contentText(lastUser.content) : "", toolResults };
}

export const openaiResponsesCodec: Codec = {
  protocol: "openai-responses",
  requestIdHeader: "x-request-id",
  authReject,
  parseReject: () => ({ status: 400, message: "We could not parse the JSON body of your request." }),
  validate: validateResponsesRequest,
  errorBody,
  streamFrames,
  messageBody: (reply, ctx) =>
    JSON.stringify(responseObject(reply, resolve(reply, ctx), ctx, `resp_${base62(32)}`, true)),
  // The live API nests the error object (openai/openai-dotnet#881), unlike its documented flat shape.
  streamErrorFrame: (type, message, code) =>
    `event: error\ndata: ${JSON.stringify({
      type: "error",
      error: {
        type: type ?? "server_error",
        code: code ?? type ?? "server_error",
        message: message ?? "The server had an error while processing your request. Sorry about that!",
        param: null,
      },
      sequence_number: 0,
    })}\n\n`,
  streamErrorStatus: 500,
  malformedFrame: "event: response.output_text.delta\ndata: {not json\n\n",
  brainInput,
  overflowError: (tokens, window, output) => ({
    status: 400,
    type: "invalid_request_error",
    param: "input",
    code: "context_length_exceeded",
    message:
      output > 0
        ? `Your input exceeds the context window of this model. This model's maximum context length is ${window} tokens. However, you requested ${tokens + output} tokens (${tokens} in the input, ${output} in the output).`
        : `Your input exceeds the context window of this model. This model's maximum context length is ${window} tokens. However, your input resulted in ${tokens} tokens.`,
  }),
  outputTokens: (body) => (typeof body.max_output_tokens === "number" ? body.max_output_tokens : 0),
  serverCompaction,
};
