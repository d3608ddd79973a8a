/**
 * Builds the Anthropic Messages API request body from a StepRequest (`buildAnthropicBody`): prompt-cache
 * breakpoints, thinking (`anthropic-thinking.ts`), native compaction, and history projected into a form the API accepts (roles
 * alternate, tool results lead, empty text is dropped, an error result is never empty, references to removed tools
 * become text, a call's id and name are sent in characters the API accepts). Pure.
 */

import { cyrb53 } from "../crypto/cyrb53";
import type { Part, ToolDeclaration, ToolResultContent } from "../model/message";
import { anthropicThinking } from "./anthropic-thinking";
import { wireOnce } from "./body-text";
import { declaredSchema } from "./declared-schema";
import { wireToolName } from "./tool-name";
import { compactionText, type ModelConfig, type StepRequest } from "./types";

/** The content of an error result that has none (the API refuses an empty one). */
export const ERROR_WITHOUT_MESSAGE = "the tool reported an error without a message";

/** Messages API request body (the subset we send). */
type AnthropicBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | {
      type: "tool_result";
      tool_use_id: string;
      content: ToolResultContent;
      is_error?: true;
    }
  | {
      type: "compaction";
      content: string | null;
      encrypted_content?: string;
      cache_control?: typeof EPHEMERAL;
    };

export interface AnthropicMessage {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

const EPHEMERAL = { type: "ephemeral" } as const;
/** Server-side compaction (`context_management` edit `compact_20260112`) is a beta of the Messages API. */
const COMPACTION_EDIT = "compact_20260112";
/** The API refuses a compaction trigger below this many input tokens. */
export const MIN_COMPACTION_TRIGGER = 50_000;
const DEFAULT_MAX_TOKENS = 8192;

/** The `max_tokens` a request for `model` carries: the agent's, or our default (the API requires one). */
export function anthropicOutputTokens(model: ModelConfig): number {
  return model.max_tokens ?? DEFAULT_MAX_TOKENS;
}

export function buildAnthropicBody(req: StepRequest): Record<string, unknown> {
  const { model } = req;
  const maxTokens = anthropicOutputTokens(model);
  const body: Record<string, unknown> = { model: model.name, max_tokens: maxTokens };
  if (req.system !== "") {
    body.system = model.capabilities.prompt_cache
      ? [{ type: "text", text: req.system, cache_control: EPHEMERAL }]
      : req.system;
  }
  const native = req.compaction !== undefined || model.capabilities.native_compaction === true;
  const messages = projectMessages(req.messages, new Set(req.tools.map((t) => t.name)), {
    native,
    references: model.capabilities.native_tool_search,
  });
  if (model.capabilities.prompt_cache) {
    cacheCompaction(messages);
    if (req.cacheMessages !== false) cacheConversation(messages);
  }
  body.messages = messages;
  if (req.tools.length > 0) body.tools = projectTools(req.tools, model.capabilities.prompt_cache);
  if (req.compaction) {
    body.context_management = {
      edits: [{ type: COMPACTION_EDIT, trigger: { type: "input_tokens", value: req.compaction.trigger } }],
    };
  }
  body.stream = true;
  Object.assign(body, anthropicThinking(model, maxTokens, messages));
  return body;
}

function projectTools(tools: ToolDeclaration[], cache: boolean): Array<Record<string, unknown>> {
  // One breakpoint on the last loaded tool caches the tools prefix; the API refuses
  // cache_control on a deferred tool, which is not part of the prompt until referenced.
  let breakpoint = -1;
  tools.forEach((tool, i) => {
    if (!tool.defer_loading) breakpoint = i;
  });
  // One wire object per schema and fields (body-text.ts): its text is serialized once, not at every step.
  return tools.map((tool, i) => {
    const deferred = tool.defer_loading === true;
    const cached = cache && i === breakpoint;
    return wireOnce("anthropic", tool.input_schema, [tool.name, tool.description, deferred, cached], () => {
      const wire: Record<string, unknown> = {
        name: tool.name,
        description: tool.description,
        input_schema: declaredSchema(tool.input_schema),
      };
      if (deferred) wire.defer_loading = true;
      if (cached) wire.cache_control = EPHEMERAL;
      return wire;
    });
  });
}

/**
 * Maps parts to blocks, drops messages left empty, then merges neighbours of
 * the same role: the API requires alternation, while canonical history may
 * hold e.g. a tool-results user message followed by the user's own text.
 */
function projectMessages(
  messages: StepRequest["messages"],
  declared: ReadonlySet<string> = new Set(),
  opts: ProjectOptions = { native: false },
): AnthropicMessage[] {
  const out: AnthropicMessage[] = [];
  for (const message of messages) {
    const content = message.parts.flatMap((p) => projectPart(p, declared, opts));
    if (content.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.role === message.role) {
      last.content = mergeContent(last.content, content);
    } else {
      out.push({ role: message.role, content });
    }
  }
  return out;
}

const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * A tool call id as Anthropic accepts it (`^[a-zA-Z0-9_-]+$`). Another provider's ids may hold other characters
 * (Kimi's `functions.get_weather:0`) and stay as they are in history, where that provider expects them; an agent
 * moved to Anthropic would otherwise have every request refused. The same id always maps the same way, so a
 * tool_use and its tool_result still pair, and the digest keeps two ids that differ only in such characters apart.
 */
export function anthropicId(id: string): string {
  if (ANTHROPIC_ID.test(id)) return id;
  return `${id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64)}_${cyrb53(id)}`;
}

/** tool_result blocks must lead a user message, so results from both halves go first, in order. */
function mergeContent(a: AnthropicBlock[], b: AnthropicBlock[]): AnthropicBlock[] {
  const all = [...a, ...b];
  return [...all.filter((x) => x.type === "tool_result"), ...all.filter((x) => x.type !== "tool_result")];
}

/**
 * A tool_reference must name a tool in tools[]; one whose tool was removed
 * since (agent reconfigured, server gone) would make the API refuse the whole
 * request, so it is replaced by a short text. A model without tool search
 * (`references` false) gets every reference as text: its loaded tools are in
 * tools[] (the plain projection).
 */
function resultContent(
  content: ToolResultContent,
  declared: ReadonlySet<string>,
  references = true,
): ToolResultContent {
  if (typeof content === "string") return content;
  // The API refuses empty and whitespace-only text blocks here too (an MCP result with no content, a 204 from an
  // http tool, a client's empty block): kept in history, one would refuse every later request.
  const blocks = content.filter((b) => b.type !== "text" || b.text.trim() !== "");
  if (blocks.length === 0) return "";
  return blocks.map((b) => {
    if (b.type !== "tool_reference") return b;
    // Without tool search a reference is history only: the tool may have been unloaded since, and loads again.
    if (!references) return { type: "text", text: `[tool ${b.tool_name} was loaded here]` };
    if (!declared.has(b.tool_name)) return { type: "text", text: `[tool ${b.tool_name} is no longer available]` };
    return b;
  });
}

/**
 * prompt_cache: one breakpoint on the last compaction block that holds a summary, the one the API reads from (what it
 * replaced never changes). The API allows 4 breakpoints and system, tools and the conversation's last block take
 * 3; a failed compaction (content null, a no-op kept in history) gets none, or a few of them would make every later
 * request refused.
 */
function cacheCompaction(messages: AnthropicMessage[]): void {
  for (let n = messages.length - 1; n >= 0; n--) {
    const block = (messages[n] as AnthropicMessage).content.findLast(
      (b) => b.type === "compaction" && b.content !== null,
    );
    if (block?.type === "compaction") {
      block.cache_control = EPHEMERAL;
      return;
    }
  }
}

/** A block that may carry cache_control: neither kind of thinking block takes one. */
type CacheableBlock = Exclude<AnthropicBlock, { type: "thinking" } | { type: "redacted_thinking" }> & {
  cache_control?: typeof EPHEMERAL;
};

/** Whether a breakpoint may go on `block`: not on thinking, nor on an empty tool result or a failed compaction. */
function cacheable(block: AnthropicBlock): block is CacheableBlock {
  switch (block.type) {
    case "thinking":
    case "redacted_thinking":
      return false;
    case "tool_result":
      return block.content.length > 0;
    case "compaction":
      return block.content !== null;
    default:
      return true;
  }
}

/**
 * prompt_cache: one breakpoint on the last block of the last message that can carry one, so the next step reads
 * the whole conversation so far from the cache and pays the full input price only for what it adds (the API
 * reads the cache only at a breakpoint, looking back about 20 blocks for the longest prefix it holds). It moves
 * to the end at every step; the blocks before it are sent as before, and a breakpoint is no part of the prefix, so
 * the prefix the cache holds still matches. With system, tools and compaction that is at most the API's 4
 * breakpoints; a last block that is the summarised compaction block has its one already.
 */
function cacheConversation(messages: AnthropicMessage[]): void {
  const block = messages.at(-1)?.content.findLast(cacheable);
  if (block) block.cache_control = EPHEMERAL;
}

/** How compaction parts are projected: native blocks (the model declares it) or their summary as text. */
interface ProjectOptions {
  native: boolean;
  /** native_tool_search: tool_reference blocks are sent; without it each becomes a line of text. */
  references?: boolean;
}

function projectPart(part: Part, declared: ReadonlySet<string>, opts: ProjectOptions): AnthropicBlock[] {
  switch (part.type) {
    case "compaction": {
      if (opts.native && part.provider === "anthropic") {
        const block: AnthropicBlock = { type: "compaction", content: part.content };
        if (part.encrypted !== undefined) block.encrypted_content = part.encrypted;
        return [block];
      }
      return part.content ? [{ type: "text", text: compactionText(part.content) }] : [];
    }
    case "text":
    case "notice":
      // The API refuses empty and whitespace-only text blocks.
      return part.text.trim() === "" ? [] : [{ type: "text", text: part.text }];
    case "thinking":
      if (part.redacted !== undefined) return [{ type: "redacted_thinking", data: part.redacted }];
      // Unsigned thinking (e.g. from an OpenAI-compatible model) cannot be verified by Anthropic.
      return part.signature === undefined
        ? []
        : [{ type: "thinking", thinking: part.thinking, signature: part.signature }];
    case "tool_use":
      return [{ type: "tool_use", id: anthropicId(part.id), name: wireToolName(part.name), input: part.input }];
    case "tool_result": {
      const content = resultContent(part.content, declared, opts.references);
      const id = anthropicId(part.tool_use_id);
      if (!part.is_error) return [{ type: "tool_result", tool_use_id: id, content }];
      // The API refuses an error result with empty content; kept in history (an MCP error with an empty text
      // block, a client's `{content: "", is_error: true}`), one would refuse every later request of the session.
      const blank = typeof content === "string" && content.trim() === "";
      return [
        { type: "tool_result", tool_use_id: id, content: blank ? ERROR_WITHOUT_MESSAGE : content, is_error: true },
      ];
    }
    case "tool_declarations":
      return [];
  }
}
