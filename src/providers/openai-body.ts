/**
 * The request body of the OpenAI Chat Completions protocol: `buildOpenAIBody` projects a StepRequest's canonical
 * messages to wire messages (same-role messages merged, tool results as `tool` messages, reasoning sent back
 * only for thinking models, message-level tool declarations as `system` messages, a call's name in the characters
 * the API accepts), streaming with usage, and the output limit under the name the agent gives or the server at
 * `baseUrl` reads (`maxTokensField`). Pure.
 */
import type { Message, ToolDeclaration } from "../model/message";
import { resultText } from "../model/message";
import { wireOnce } from "./body-text";
import { declaredSchema } from "./declared-schema";
import { wireToolName } from "./tool-name";
import { compactionText, type MaxTokensField, type ModelConfig, type StepRequest } from "./types";

/** Chat Completions messages (the subset we send). */
type OpenAIMessage =
  | { role: "system"; content: string }
  /** Kimi's message-level tools: declarations usable from this point on; no `content` key at all. */
  | { role: "system"; tools: OpenAITool[] }
  | { role: "user"; content: string }
  | { role: "tool"; tool_call_id: string; content: string }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: OpenAIToolCall[];
      reasoning_content?: string;
    };

interface OpenAITool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** One wire object per schema, name and description (body-text.ts): serialized once, not at every step. */
function wireTool(tool: ToolDeclaration): OpenAITool {
  return wireOnce("openai", tool.input_schema, [tool.name, tool.description], () => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: declaredSchema(tool.input_schema) },
  }));
}

interface OpenAIToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** Separator for several text parts of one message; the wire wants one string. */
const TEXT_JOINER = "\n\n";

export function buildOpenAIBody(req: StepRequest): Record<string, unknown> {
  const messages: OpenAIMessage[] = [];
  if (req.system !== "") messages.push({ role: "system", content: req.system });
  for (const message of mergeSameRole(req.messages)) {
    messages.push(
      ...(message.role === "assistant"
        ? projectAssistant(message, req)
        : projectUser(message, req.model.capabilities.message_level_tools)),
    );
  }
  const body: Record<string, unknown> = { model: req.model.name, messages };
  if (req.tools.length > 0) {
    body.tools = req.tools.map(wireTool);
  }
  body.stream = true;
  body.stream_options = { include_usage: true };
  const maxTokens = chatOutputTokens(req.model);
  if (maxTokens > 0) body[maxTokensField(req.model, req.baseUrl)] = maxTokens;
  return body;
}

/** The output limit a request for `model` carries: the agent's `max_tokens`, or none (0: the server's default). */
export function chatOutputTokens(model: ModelConfig): number {
  return model.max_tokens ?? 0;
}

/**
 * The name of the output limit: the agent's `model.max_tokens_field`, else the one the server at this base URL
 * reads. OpenAI's API takes `max_completion_tokens` and refuses `max_tokens` for its reasoning models (o-series,
 * gpt-5), and so do the hosts that serve it: Azure OpenAI (`*.openai.azure.com`), Azure AI Foundry
 * (`*.cognitiveservices.azure.com/openai/…`) and Cloudflare AI Gateway's OpenAI route
 * (`gateway.ai.cloudflare.com/v1/<account>/<gateway>/openai`). The other servers the adapter speaks to read
 * `max_tokens` (DeepSeek, Qwen, Kimi and Ollama document only it, DeepSeek ignores `max_completion_tokens`; vLLM,
 * sglang and llama.cpp take both). Absent: OpenAI's API.
 */
function maxTokensField(model: ModelConfig, baseUrl: string | undefined): MaxTokensField {
  if (model.max_tokens_field !== undefined) return model.max_tokens_field;
  if (baseUrl === undefined) return "max_completion_tokens";
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return "max_tokens";
  }
  return servesOpenAI(url) ? "max_completion_tokens" : "max_tokens";
}

/** Whether `url` is OpenAI's API or a host that passes requests on to it (see `maxTokensField`). */
function servesOpenAI(url: URL): boolean {
  const host = url.hostname;
  // "/v1/acct/gw/openai/..." splits to ["", "v1", "acct", "gw", "openai", ...].
  const segments = url.pathname.split("/");
  if (host === "api.openai.com" || host.endsWith(".openai.azure.com")) return true;
  if (host.endsWith(".cognitiveservices.azure.com")) return segments[1] === "openai";
  return host === "gateway.ai.cloudflare.com" && segments[4] === "openai";
}

type Merged = Pick<Message, "role" | "parts">;

/**
 * Tool messages must directly follow the assistant that called them, so a
 * user turn split over two canonical messages (results, then text) is
 * projected as one: all results first, then the text.
 */
function mergeSameRole(messages: Message[]): Merged[] {
  const out: Merged[] = [];
  for (const message of messages) {
    const last = out[out.length - 1];
    if (last && last.role === message.role) {
      last.parts = [...last.parts, ...message.parts];
    } else {
      out.push({ role: message.role, parts: [...message.parts] });
    }
  }
  return out;
}

function projectAssistant(message: Merged, req: StepRequest): OpenAIMessage[] {
  const texts: string[] = [];
  const reasoning: string[] = [];
  const toolCalls: OpenAIToolCall[] = [];
  for (const part of message.parts) {
    if (part.type === "text" && part.text !== "") texts.push(part.text);
    // A provider's compaction (Chat Completions has none of its own): its summary, as text.
    else if (part.type === "compaction" && part.content) texts.push(compactionText(part.content));
    else if (part.type === "thinking" && part.thinking !== "") reasoning.push(part.thinking);
    else if (part.type === "tool_use") {
      toolCalls.push({
        id: part.id,
        type: "function",
        function: { name: wireToolName(part.name), arguments: JSON.stringify(part.input) },
      });
    }
  }
  // An assistant message with neither content nor calls is refused by most servers.
  if (texts.length === 0 && toolCalls.length === 0) return [];
  const wire: OpenAIMessage = { role: "assistant", content: texts.length > 0 ? texts.join(TEXT_JOINER) : null };
  if (toolCalls.length > 0) wire.tool_calls = toolCalls;
  // Reasoning models that accept their reasoning back (DeepSeek, Kimi) need it across tool calls. Kimi with thinking
  // refuses every request whose history holds a tool-call message without the field, so one that has no reasoning
  // (written by another provider or a non-thinking model, redacted, or a step that returned none) sends "".
  if (req.model.capabilities.thinking && (reasoning.length > 0 || toolCalls.length > 0)) {
    wire.reasoning_content = reasoning.join(TEXT_JOINER);
  }
  return [wire];
}

function projectUser(message: Merged, messageLevelTools: boolean): OpenAIMessage[] {
  const out: OpenAIMessage[] = [];
  const texts: string[] = [];
  for (const part of message.parts) {
    if (part.type === "tool_result") {
      out.push({ role: "tool", tool_call_id: part.tool_use_id, content: resultText(part.content) });
    } else if (part.type === "tool_declarations") {
      // Declarations follow the tool messages they came with; other projections carry loaded tools in tools[].
      if (messageLevelTools && part.tools.length > 0) out.push({ role: "system", tools: part.tools.map(wireTool) });
    } else if ((part.type === "text" || part.type === "notice") && part.text !== "") {
      texts.push(part.text);
    }
  }
  if (texts.length > 0) out.push({ role: "user", content: texts.join(TEXT_JOINER) });
  return out;
}
