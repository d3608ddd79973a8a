// OpenAI Chat Completions wire format: SSE chunks, completion bodies, error bodies, and the brain's view. A reply's
// `refusal` streams in `delta.refusal` (the completion's `message.refusal`) under an ordinary finish.
import type { IncomingHttpHeaders } from "node:http";
import { contentText } from "./brain.ts";
import { estimateTokens, jsonChunks, openaiFinishReason, wordChunks } from "./chunks.ts";
import type { Codec, ErrorSpec, RequestContext } from "./codec.ts";
import { completionId, fingerprint, toolCallId } from "./ids.ts";
import { type BrainInput, isRecord, type JsonObject, type Rejection, type ReplySpec } from "./types.ts";
import { validateOpenAIRequest } from "./validate-openai.ts";

const ERROR_DEFAULTS: Record<number, [string, string, string | null]> = {
  400: ["invalid_request_error", "Invalid request", null],
  401: ["invalid_request_error", "Incorrect API key provided.", "invalid_api_key"],
  403: ["invalid_request_error", "You are not allowed to access this resource.", null],
  404: ["invalid_request_error", "The requested resource does not exist.", "model_not_found"],
  429: ["requests", "Rate limit reached for requests. Please try again later.", "rate_limit_exceeded"],
  500: ["server_error", "The server had an error while processing your request. Sorry about that!", null],
  503: ["server_error", "The engine is currently overloaded, please try again later.", null],
  529: ["overloaded_error", "Overloaded", null],
};
const NO_KEY =
  "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (i.e. YOUR_KEY) when using HTTP Basic auth. You can obtain an API key from https://platform.openai.com/account/api-keys.";

interface Resolved {
  thinking: string;
  content: string;
  refusal: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: string;
  usage: { prompt: number; completion: number; reasoning: number; cached: number | undefined };
}

function resolve(reply: ReplySpec, ctx: RequestContext): Resolved {
  const toolCalls = (reply.tool_calls ?? []).map((c) => ({
    id: c.id ?? toolCallId(),
    name: c.name,
    arguments: JSON.stringify(c.input),
  }));
  const content = (reply.text ?? "") + (toolCalls.length === 0 ? (reply.text_after ?? "") : "");
  const thinking = reply.thinking ?? "";
  const refusal = reply.refusal ?? "";
  const reasoning = thinking ? estimateTokens(thinking) : 0;
  return {
    thinking,
    content,
    refusal,
    toolCalls,
    finishReason: openaiFinishReason(reply.stop_reason, toolCalls.length > 0),
    usage: {
      prompt: reply.usage?.input_tokens ?? ctx.count(ctx.raw),
      completion:
        reply.usage?.output_tokens ??
        estimateTokens(thinking + content + refusal + toolCalls.map((c) => c.arguments).join("")),
      reasoning,
      cached: reply.usage?.cache_read_input_tokens,
    },
  };
}

function usageObject(r: Resolved): JsonObject {
  const usage: JsonObject = {
    prompt_tokens: r.usage.prompt,
    completion_tokens: r.usage.completion,
    total_tokens: r.usage.prompt + r.usage.completion,
  };
  if (r.usage.cached !== undefined) usage.prompt_tokens_details = { cached_tokens: r.usage.cached };
  usage.completion_tokens_details = { reasoning_tokens: r.usage.reasoning };
  return usage;
}

function streamFrames(reply: ReplySpec, ctx: RequestContext): string[] {
  const r = resolve(reply, ctx);
  const base = {
    id: completionId(),
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model: ctx.model,
    system_fingerprint: fingerprint(),
  };
  const frames: string[] = [];
  const chunk = (delta: JsonObject, finishReason: string | null = null): void => {
    const choice = { index: 0, delta, logprobs: null, finish_reason: finishReason };
    frames.push(`data: ${JSON.stringify({ ...base, choices: [choice] })}\n\n`);
  };
  if (r.refusal && !r.content) chunk({ role: "assistant", content: null, refusal: "" });
  else if (r.thinking || r.content) chunk({ role: "assistant", content: "", refusal: null });
  else chunk({ role: "assistant", content: null });
  for (const piece of wordChunks(r.thinking)) chunk({ content: null, reasoning_content: piece });
  for (const piece of wordChunks(r.content)) chunk({ content: piece });
  for (const piece of wordChunks(r.refusal)) chunk({ refusal: piece });
  r.toolCalls.forEach((call, index) => {
    chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] });
    for (const piece of jsonChunks(call.arguments)) chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  chunk({}, r.finishReason);
  const options = ctx.body.stream_options;
  if (isRecord(options) && options.include_usage === true)
    frames.push(`data: ${JSON.stringify({ ...base, choices: [], usage: usageObject(r) })}\n\n`);
  frames.push("data: [DONE]\n\n");
  return frames;
}

function messageBody(reply: ReplySpec, ctx: RequestContext): string {
  const r = resolve(reply, ctx);
  const message: JsonObject = { role: "assistant", content: r.content || null, refusal: r.refusal || null };
  if (r.thinking) message.reasoning_content = r.thinking;
  if (r.toolCalls.length > 0)
    message.tool_calls = r.toolCalls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }));
  return JSON.stringify({
    id: completionId(),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: ctx.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: r.finishReason }],
    usage: usageObject(r),
    system_fingerprint: fingerprint(),
  });
}

export function errorBody(error: ErrorSpec): string {
  const [type, message, code] =
    ERROR_DEFAULTS[error.status] ?? (error.status >= 500 ? ERROR_DEFAULTS[500]! : ERROR_DEFAULTS[400]!);
  return JSON.stringify({
    error: {
      message: error.message ?? message,
      type: error.type ?? type,
      param: error.param ?? null,
      code: error.code === undefined ? (error.type === undefined ? code : null) : error.code,
    },
  });
}

export function authReject(headers: IncomingHttpHeaders): Rejection | null {
  const auth = headers.authorization;
  if (typeof auth !== "string" || !/^Bearer\s+\S/i.test(auth))
    return { status: 401, message: NO_KEY, type: "invalid_request_error", code: null };
  return null;
}

function brainInput(body: JsonObject): BrainInput {
  const messages = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
  const toolsOf = (list: unknown): BrainInput["tools"] =>
    (Array.isArray(list) ? list.filter(isRecord) : [])
      .map((t) => (isRecord(t.function) ? t.function : {}))
      .filter((f) => typeof f.name === "string")
      .map((f) => ({ name: String(f.name), schema: f.parameters ?? { type: "object" } }));
  const tools = [...toolsOf(body.tools), ...messages.flatMap((m) => toolsOf(m.tools))];
  const names = new Map<string, string>();
  for (const message of messages) {
    if (!Array.isArray(message.tool_calls)) continue;
    for (const call of message.tool_calls.filter(isRecord)) {
      if (isRecord(call.function)) names.set(String(call.id), String(call.function.name));
    }
  }
  const toolResults = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === "tool"; i--) {
    const id = String(messages[i]!.tool_call_id);
    toolResults.unshift({ name: names.get(id) ?? id, content: contentText(messages[i]!.content) });
  }
  const lastUser = [...messages].reverse().find((m) => m.role === "user");
  return { tools, userText: lastUser ? contentText(lastUser.content) : "", toolResults };
}

export const openaiCodec: Codec = {
  protocol: "openai",
  requestIdHeader: "x-request-id",
  authReject,
  parseReject: () => ({
    status: 400,
    message:
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)",
  }),
  validate: validateOpenAIRequest,
  errorBody,
  streamFrames,
  messageBody,
  streamErrorFrame: (type, message, code) =>
    `data: ${JSON.stringify({
      error: {
        message: message ?? ERROR_DEFAULTS[500]![1],
        type: type ?? "server_error",
        param: null,
        code: code ?? null,
      },
    })}\n\n`,
  streamErrorStatus: 500,
  malformedFrame: "data: {not json\n\n",
  brainInput,
  overflowError: (tokens, window, output) => ({
    status: 400,
    type: "invalid_request_error",
    param: "messages",
    code: "context_length_exceeded",
    message:
      output > 0
        ? `This model's maximum context length is ${window} tokens. However, you requested ${tokens + output} tokens (${tokens} in the messages, ${output} in the completion). Please reduce the length of the messages or completion.`
        : `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
  }),
  outputTokens: (body) => {
    const limit = body.max_completion_tokens ?? body.max_tokens;
    return typeof limit === "number" ? limit : 0;
  },
};
