// Validation of Anthropic Messages requests: the shape checks and the pairing invariant P,
// answered with the real API's 400 messages (N and M are 0-based indexes).
import Ajv2020 from "ajv/dist/2020.js";
import { checkCompactionBlock, effectiveMessages } from "./compaction.ts";
import { isRecord, type JsonObject, type Rejection } from "./types.ts";

const ID_PATTERN = /^[a-zA-Z0-9_-]+$/;
const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,128}$/;
/** A tool_use of history is held to a stricter rule than a declared tool's name. */
const TOOL_USE_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_TOOL_USE_NAME = 64;
const MESSAGE_BLOCK_TYPES = [
  "text",
  "image",
  "document",
  "search_result",
  "thinking",
  "redacted_thinking",
  "tool_use",
  "tool_result",
  "server_tool_use",
  "web_search_tool_result",
  "web_fetch_tool_result",
  "code_execution_tool_result",
  "bash_code_execution_tool_result",
  "text_editor_code_execution_tool_result",
  "tool_search_tool_result",
  "mcp_tool_use",
  "mcp_tool_result",
  "container_upload",
  "compaction",
];
const TOOL_RESULT_BLOCK_TYPES = ["text", "image", "document", "search_result", "tool_reference"];

/** Prompt-cache breakpoints the API accepts in one request (system, tools and message blocks together). */
const MAX_CACHE_BREAKPOINTS = 4;

/** The API checks every input_schema against the JSON Schema 2020-12 meta-schema (draft-04's boolean bounds, a
 * draft-07 tuple `items` array fail it); Ajv holds that meta-schema. */
const metaSchema = new Ajv2020({ strict: false });

const bad = (message: string): Rejection => ({ status: 400, message });
const unpaired = (message: string): Rejection => ({ status: 400, message, pairing: true });
const tagError = (loc: string, tag: string, expected: string[]): Rejection =>
  bad(
    `${loc}.type: Input tag '${tag}' found using 'type' does not match any of the expected tags: ${expected
      .map((t) => `'${t}'`)
      .join(", ")}`,
  );

export function validateAnthropicRequest(body: unknown): Rejection | null {
  if (!isRecord(body)) return bad("Request body must be a JSON object");
  if (body.model === undefined) return bad("model: Field required");
  if (typeof body.model !== "string") return bad("model: Input should be a valid string");
  if (body.max_tokens === undefined) return bad("max_tokens: Field required");
  if (typeof body.max_tokens !== "number" || !Number.isInteger(body.max_tokens))
    return bad("max_tokens: Input should be a valid integer");
  if (body.max_tokens < 1) return bad("max_tokens: Input should be greater than or equal to 1");
  if (body.stream !== undefined && typeof body.stream !== "boolean")
    return bad("stream: Input should be a valid boolean");
  if (body.system !== undefined && typeof body.system !== "string" && !Array.isArray(body.system))
    return bad("system: Input should be a valid string");
  if (body.messages === undefined) return bad("messages: Field required");
  if (!Array.isArray(body.messages)) return bad("messages: Input should be a valid list");
  const tools = checkTools(body.tools);
  if ("status" in tools) return tools;
  const messages: unknown[] = body.messages;
  if (messages.length === 0) return bad("messages: at least one message is required");
  for (let n = 0; n < messages.length; n++) {
    const problem = checkMessage(messages[n], n, n === messages.length - 1, tools.names);
    if (problem) return problem;
  }
  if (isRecord(messages[0]) && messages[0].role !== "user")
    return bad('messages: first message must use the "user" role');
  const breakpoints = countCacheControl(body.system) + countCacheControl(body.tools) + countCacheControl(messages);
  if (breakpoints > MAX_CACHE_BREAKPOINTS)
    return bad(
      `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`,
    );
  const thinking = checkThinking(body);
  if (thinking) return thinking;
  // The API drops everything before the last compaction block; P and the thinking loop are checked on what it reads.
  const effective = effectiveMessages(messages as JsonObject[]);
  if (isRecord(body.thinking) && body.thinking.type === "enabled") {
    const loop = checkThinkingLoop(effective, messages.length - effective.length);
    if (loop) return loop;
  }
  return checkPairing(effective);
}

/**
 * Models that take only adaptive thinking (Opus 4.7 and later, Mythos, Fable) and the later families (5 and up),
 * as the mock treats them: `thinking.type: "enabled"` is refused. Matched anywhere in the name.
 */
const ADAPTIVE_ONLY = /claude-(?:opus-4-[7-9](?!\d)|(?:opus|sonnet|haiku)-(?:[5-9]|[1-9]\d)(?!\d)|mythos|fable)/;
const THINKING_TYPES = ["enabled", "disabled", "adaptive"];
const EFFORTS = ["low", "medium", "high", "xhigh", "max"];
const MIN_THINKING_BUDGET = 1024;

/** `thinking` and `output_config.effort`: their shape, a budget's bounds, and `enabled` on an adaptive-only model. */
function checkThinking(body: JsonObject): Rejection | null {
  const effort = isRecord(body.output_config) ? body.output_config.effort : undefined;
  if (effort !== undefined && effort !== null && !EFFORTS.includes(String(effort)))
    return bad(`output_config.effort: Input should be ${EFFORTS.map((e) => `'${e}'`).join(", ")}`);
  const thinking = body.thinking;
  if (thinking === undefined || thinking === null) return null;
  if (!isRecord(thinking)) return bad("thinking: Input should be a valid dictionary");
  if (typeof thinking.type !== "string") return bad("thinking.type: Field required");
  if (!THINKING_TYPES.includes(thinking.type)) return tagError("thinking", thinking.type, THINKING_TYPES);
  if (thinking.type === "adaptive" && thinking.budget_tokens !== undefined)
    return bad("thinking.adaptive.budget_tokens: Extra inputs are not permitted");
  if (thinking.type !== "enabled") return null;
  if (ADAPTIVE_ONLY.test(String(body.model)))
    return bad(
      '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
    );
  const budget = thinking.budget_tokens;
  if (budget === undefined) return bad("thinking.enabled.budget_tokens: Field required");
  if (typeof budget !== "number" || !Number.isInteger(budget))
    return bad("thinking.enabled.budget_tokens: Input should be a valid integer");
  if (budget < MIN_THINKING_BUDGET)
    return bad(`thinking.enabled.budget_tokens: Input should be greater than or equal to ${MIN_THINKING_BUDGET}`);
  if (budget >= Number(body.max_tokens)) return bad("`max_tokens` must be greater than `thinking.budget_tokens`");
  return null;
}

/**
 * With a thinking budget, the tool loop a request goes on with (its last message tool results alone) must open with
 * thinking: the first assistant message after the last user message holding more than tool results must start with
 * a thinking or redacted_thinking block (after a compaction block it opens with). `offset`: messages the API
 * dropped before `messages` (a compaction), for the index in the message.
 */
function checkThinkingLoop(messages: JsonObject[], offset: number): Rejection | null {
  const blocks = (m: JsonObject | undefined): JsonObject[] =>
    Array.isArray(m?.content) ? (m.content as unknown[]).filter(isRecord) : [{ type: "text" }];
  const onlyResults = (m: JsonObject | undefined) => blocks(m).every((b) => b.type === "tool_result");
  const last = messages[messages.length - 1];
  if (last?.role !== "user" || !onlyResults(last)) return null;
  let start = messages.length - 1;
  while (start > 0 && !(messages[start - 1]?.role === "user" && !onlyResults(messages[start - 1]))) start--;
  const first = messages[start];
  if (first?.role !== "assistant") return null;
  const at = blocks(first).findIndex((b) => b.type !== "compaction");
  const lead = blocks(first)[at];
  if (lead === undefined || lead.type === "thinking" || lead.type === "redacted_thinking") return null;
  return bad(
    `messages.${start + offset}.content.${at}.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(lead.type)}\`. ` +
      "When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of " +
      "`tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this " +
      "requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking",
  );
}

/** Blocks carrying cache_control anywhere in a value (a tool_result's inner blocks count too). */
function countCacheControl(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + countCacheControl(v), 0);
  if (!isRecord(value)) return 0;
  const own = value.cache_control !== undefined && value.cache_control !== null ? 1 : 0;
  return own + countCacheControl(value.content);
}

function checkTools(value: unknown): Rejection | { names: Set<string> } {
  const names = new Set<string>();
  if (value === undefined) return { names };
  if (!Array.isArray(value)) return bad("tools: Input should be a valid list");
  let deferred = 0;
  for (let k = 0; k < value.length; k++) {
    const tool: unknown = value[k];
    if (!isRecord(tool)) return bad(`tools.${k}: Input should be a valid dictionary`);
    const custom = tool.type === undefined || tool.type === "custom";
    if (custom) {
      if (tool.name === undefined) return bad(`tools.${k}.custom.name: Field required`);
      if (typeof tool.name !== "string" || !TOOL_NAME_PATTERN.test(tool.name))
        return bad(`tools.${k}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`);
      if (tool.input_schema === undefined) return bad(`tools.${k}.custom.input_schema: Field required`);
      if (!isRecord(tool.input_schema))
        return bad(`tools.${k}.custom.input_schema: Input should be a valid dictionary`);
      // The API takes only an object root: a type list such as ["object", "null"] is refused too.
      if (tool.input_schema.type === undefined) return bad(`tools.${k}.custom.input_schema.type: Field required`);
      if (tool.input_schema.type !== "object")
        return bad(`tools.${k}.custom.input_schema.type: Input should be 'object'`);
      if (!metaSchema.validateSchema(tool.input_schema))
        return bad(
          `tools.${k}.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 ` +
            "(https://json-schema.org/draft/2020-12). Learn more about tool use at https://docs.claude.com/en/docs/tool-use.",
        );
    }
    if (typeof tool.name === "string") {
      if (names.has(tool.name)) return bad("tools: Tool names must be unique.");
      names.add(tool.name);
    }
    if (tool.defer_loading === true) {
      deferred++;
      if (tool.cache_control !== undefined && tool.cache_control !== null)
        return bad(`tools.${k}: \`defer_loading\` and \`cache_control\` cannot be used together on the same tool`);
    }
  }
  if (value.length > 0 && deferred === value.length)
    return bad("tools: At least one tool must have defer_loading=false. All tools cannot be deferred");
  return { names };
}

function checkMessage(message: unknown, n: number, last: boolean, toolNames: Set<string>): Rejection | null {
  if (!isRecord(message)) return bad(`messages.${n}: Input should be a valid dictionary`);
  if (message.role === undefined) return bad(`messages.${n}.role: Field required`);
  if (message.role !== "user" && message.role !== "assistant")
    return bad(`messages.${n}.role: Input should be 'user' or 'assistant'`);
  const content = message.content;
  if (content === undefined) return bad(`messages.${n}.content: Field required`);
  const finalAssistant = last && message.role === "assistant";
  const empty = "all messages must have non-empty content except for the optional final assistant message";
  if (typeof content === "string") {
    if (content.length === 0 && !finalAssistant) return bad(`messages.${n}: ${empty}`);
    if (finalAssistant && /\s$/.test(content))
      return bad("final assistant content cannot end with trailing whitespace");
    return null;
  }
  if (!Array.isArray(content)) return bad(`messages.${n}.content: Input should be a valid list`);
  if (content.length === 0 && !finalAssistant) return bad(`messages.${n}: ${empty}`);
  for (let m = 0; m < content.length; m++) {
    const problem = checkBlock(content[m], `messages.${n}.content.${m}`, message.role, toolNames);
    if (problem) return problem;
  }
  const lastBlock: unknown = content[content.length - 1];
  if (finalAssistant && isRecord(lastBlock) && lastBlock.type === "text" && /\s$/.test(String(lastBlock.text)))
    return bad("final assistant content cannot end with trailing whitespace");
  return null;
}

function checkBlock(block: unknown, loc: string, role: string, toolNames: Set<string>): Rejection | null {
  if (!isRecord(block)) return bad(`${loc}: Input should be a valid dictionary`);
  if (typeof block.type !== "string") return bad(`${loc}.type: Field required`);
  if (!MESSAGE_BLOCK_TYPES.includes(block.type)) return tagError(loc, block.type, MESSAGE_BLOCK_TYPES);
  switch (block.type) {
    case "text":
      return checkText(block, loc);
    case "thinking":
      if (typeof block.thinking !== "string") return bad(`${loc}.thinking.thinking: Field required`);
      if (typeof block.signature !== "string") return bad(`${loc}.thinking.signature: Field required`);
      return null;
    case "redacted_thinking":
      return typeof block.data === "string" ? null : bad(`${loc}.redacted_thinking.data: Field required`);
    case "tool_use":
      if (role !== "assistant") return bad(`${loc}: \`tool_use\` blocks are only allowed in assistant messages`);
      if (typeof block.id !== "string") return bad(`${loc}.tool_use.id: Field required`);
      if (!ID_PATTERN.test(block.id)) return bad(`${loc}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
      if (typeof block.name !== "string") return bad(`${loc}.tool_use.name: Field required`);
      if (block.name.length > MAX_TOOL_USE_NAME)
        return bad(`${loc}.tool_use.name: String should have at most ${MAX_TOOL_USE_NAME} characters`);
      if (!TOOL_USE_NAME_PATTERN.test(block.name))
        return bad(`${loc}.tool_use.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
      if (block.input === undefined) return bad(`${loc}.tool_use.input: Field required`);
      if (!isRecord(block.input)) return bad(`${loc}.tool_use.input: Input should be a valid dictionary`);
      return null;
    case "tool_result":
      return checkToolResult(block, loc, role, toolNames);
    case "compaction":
      return checkCompactionBlock(block, loc, role);
    default:
      return null;
  }
}

function checkText(block: JsonObject, loc: string): Rejection | null {
  if (typeof block.text !== "string") return bad(`${loc}.text.text: Field required`);
  if (block.text.length === 0) return bad("messages: text content blocks must be non-empty");
  if (block.text.trim().length === 0) return bad("messages: text content blocks must contain non-whitespace text");
  return null;
}

function checkToolResult(block: JsonObject, loc: string, role: string, toolNames: Set<string>): Rejection | null {
  if (role !== "user") return bad(`${loc}: \`tool_result\` blocks are only allowed in user messages`);
  if (typeof block.tool_use_id !== "string") return bad(`${loc}.tool_result.tool_use_id: Field required`);
  if (block.is_error !== undefined && typeof block.is_error !== "boolean")
    return bad(`${loc}.tool_result.is_error: Input should be a valid boolean`);
  const content = block.content;
  const empty = content === undefined || content === "" || (Array.isArray(content) && content.length === 0);
  if (block.is_error === true && empty)
    return bad(`${loc}.tool_result: content cannot be empty if \`is_error\` is true`);
  if (content === undefined || typeof content === "string") return null;
  if (!Array.isArray(content)) return bad(`${loc}.tool_result.content: Input should be a valid list`);
  for (let k = 0; k < content.length; k++) {
    const inner: unknown = content[k];
    const innerLoc = `${loc}.content.${k}`;
    if (!isRecord(inner)) return bad(`${innerLoc}: Input should be a valid dictionary`);
    if (typeof inner.type !== "string") return bad(`${innerLoc}.type: Field required`);
    if (!TOOL_RESULT_BLOCK_TYPES.includes(inner.type)) return tagError(innerLoc, inner.type, TOOL_RESULT_BLOCK_TYPES);
    if (inner.type === "text") {
      const problem = checkText(inner, innerLoc);
      if (problem) return problem;
    }
    if (inner.type === "tool_reference") {
      if (typeof inner.tool_name !== "string") return bad(`${innerLoc}.tool_reference.tool_name: Field required`);
      if (!toolNames.has(inner.tool_name))
        return bad(
          `${innerLoc}: \`tool_reference\` names unknown tool '${inner.tool_name}'. Each referenced tool must be defined in \`tools\`.`,
        );
    }
  }
  return null;
}

/** Invariant P on a shape-checked message list. */
function checkPairing(messages: JsonObject[]): Rejection | null {
  const seenToolUse = new Set<string>();
  for (let n = 0; n < messages.length; n++) {
    const message = messages[n]!;
    const blocks = Array.isArray(message.content) ? (message.content as JsonObject[]) : [];
    if (message.role === "user") {
      const previous = messages[n - 1];
      const expected = previous?.role === "assistant" ? toolUseIds(previous) : [];
      const answered = new Set<string>();
      let otherSeen = false;
      for (let m = 0; m < blocks.length; m++) {
        const block = blocks[m]!;
        if (block.type !== "tool_result") {
          otherSeen = true;
          continue;
        }
        const id = String(block.tool_use_id);
        if (otherSeen)
          return unpaired(
            `messages.${n}: \`tool_result\` blocks must come first in the user message content, before any other blocks.`,
          );
        if (!expected.includes(id))
          return unpaired(
            `messages.${n}.content.${m}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          );
        if (answered.has(id))
          return unpaired(
            `messages.${n}.content.${m}: each tool_use must have a single result. Found multiple \`tool_result\` blocks with id: ${id}`,
          );
        answered.add(id);
      }
      continue;
    }
    for (let m = 0; m < blocks.length; m++) {
      const block = blocks[m]!;
      if (block.type !== "tool_use") continue;
      const id = String(block.id);
      if (seenToolUse.has(id)) return unpaired(`messages.${n}.content.${m}: \`tool_use\` ids must be unique`);
      seenToolUse.add(id);
    }
    const ids = toolUseIds(message);
    if (ids.length === 0) continue;
    const next = messages[n + 1];
    const results = new Set<string>();
    if (next?.role === "user" && Array.isArray(next.content)) {
      for (const block of next.content as JsonObject[]) {
        if (block.type === "tool_result") results.add(String(block.tool_use_id));
      }
    }
    const missing = ids.filter((id) => !results.has(id));
    if (missing.length > 0)
      return unpaired(
        `messages.${n}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
  }
  return null;
}

function toolUseIds(message: JsonObject): string[] {
  if (!Array.isArray(message.content)) return [];
  return (message.content as JsonObject[]).filter((b) => b.type === "tool_use").map((b) => String(b.id));
}
