// Validation of OpenAI Chat Completions requests: the shape checks and the pairing invariant P,
// answered with the real API's 400 messages.
import { isRecord, type JsonObject, type Rejection } from "./types.ts";

const ROLES = ["system", "developer", "user", "assistant", "tool", "function"];
const NAME_PATTERN = /^[a-zA-Z0-9_-]+$/;
/** The longest function name the API accepts. */
const MAX_NAME = 64;

/** A 400 in OpenAI's error shape (message, param, code); shared with the Responses validator. */
export const bad = (message: string, param: string | null = null, code: string | null = null): Rejection => ({
  status: 400,
  message,
  param,
  code,
});
const missing = (param: string): Rejection =>
  bad(`Missing required parameter: '${param}'.`, param, "missing_required_parameter");
/** Chat Completions accepts at most this many tools. */
const MAX_TOOLS = 128;
const wrongType = (param: string, expected: string, value: unknown): Rejection =>
  bad(`Invalid type for '${param}': expected ${expected}, but got ${describe(value)} instead.`, param, "invalid_type");
/** A 400 that breaks the pairing invariant P (counted apart by the mock's stats). */
export const unpaired = (message: string, param: string): Rejection => ({
  status: 400,
  message,
  param,
  code: null,
  pairing: true,
});

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a decimal";
  return `a ${typeof value}`;
}

export function validateOpenAIRequest(body: unknown): Rejection | null {
  if (!isRecord(body)) return bad("Invalid request body: expected a JSON object.");
  if (typeof body.model !== "string" || body.model.length === 0) return bad("you must provide a model parameter");
  if (body.messages === undefined) return missing("messages");
  if (!Array.isArray(body.messages)) return wrongType("messages", "an array of objects", body.messages);
  if (body.messages.length === 0)
    return bad(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      "messages",
      "empty_array",
    );
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== "boolean")
    return wrongType("stream", "a boolean", body.stream);
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true)
    return bad("The 'stream_options' parameter is only allowed when 'stream' is enabled.", "stream_options");
  const toolsProblem = checkTools(body.tools, "tools");
  if (toolsProblem) return toolsProblem;
  const messages: unknown[] = body.messages;
  for (let n = 0; n < messages.length; n++) {
    const problem = checkMessage(messages[n], n);
    if (problem) return problem;
  }
  return checkPairing(messages as JsonObject[]);
}

function checkTools(tools: unknown, at: string): Rejection | null {
  if (tools === undefined || tools === null) return null;
  if (!Array.isArray(tools)) return wrongType(at, "an array of objects", tools);
  // The API's own cap on function definitions (its 400 for a longer list).
  if (at === "tools" && tools.length > MAX_TOOLS) {
    return bad(
      `Invalid 'tools': array too long. Expected an array with maximum length ${MAX_TOOLS}, but got an array with length ${tools.length} instead.`,
      "tools",
      "array_above_max_length",
    );
  }
  for (let k = 0; k < tools.length; k++) {
    const tool: unknown = tools[k];
    const loc = `${at}[${k}]`;
    if (!isRecord(tool)) return wrongType(loc, "an object", tool);
    if (tool.type === undefined) return missing(`${loc}.type`);
    if (tool.type !== "function") continue;
    if (!isRecord(tool.function)) return missing(`${loc}.function`);
    const name = tool.function.name;
    if (name === undefined) return missing(`${loc}.function.name`);
    const invalid = functionNameProblem(name, `${loc}.function.name`);
    if (invalid) return invalid;
    const schema = parametersProblem(String(name), tool.function.parameters, `${loc}.function.parameters`);
    if (schema) return schema;
  }
  return null;
}

/**
 * A function name, declared in tools[] or of a call in history, is refused unless it matches `^[a-zA-Z0-9_-]+$`
 * and has at most 64 characters (GPT-4o's `multi_tool_use.parallel`, sent back, is refused so). Shared with the
 * Responses validator.
 */
export function functionNameProblem(name: unknown, param: string): Rejection | null {
  if (typeof name !== "string") return wrongType(param, "a string", name);
  if (!NAME_PATTERN.test(name))
    return bad(
      `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      param,
      "invalid_value",
    );
  if (name.length > MAX_NAME)
    return bad(
      `Invalid '${param}': string too long. Expected a string with maximum length ${MAX_NAME}, but got a string with length ${name.length} instead.`,
      param,
      "string_above_max_length",
    );
  return null;
}

/**
 * Function parameters must have a root `type: "object"` (a type list, or none, is refused); the API names the
 * type it got as Python prints it. Shared with the Responses validator.
 */
export function parametersProblem(name: string, parameters: unknown, param: string): Rejection | null {
  if (parameters === undefined || !isRecord(parameters) || parameters.type === "object") return null;
  const type = parameters.type;
  const got =
    type === undefined
      ? "None"
      : Array.isArray(type)
        ? `[${type.map((t) => `'${String(t)}'`).join(", ")}]`
        : String(type);
  return bad(
    `Invalid schema for function '${name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${got}"'.`,
    param,
    "invalid_function_parameters",
  );
}

function checkContent(content: unknown, loc: string): Rejection | null {
  if (typeof content === "string") return null;
  if (!Array.isArray(content)) return wrongType(`${loc}.content`, "one of an array of objects or string", content);
  for (let k = 0; k < content.length; k++) {
    const part: unknown = content[k];
    const partLoc = `${loc}.content[${k}]`;
    if (!isRecord(part)) return wrongType(partLoc, "an object", part);
    if (part.type === undefined) return missing(`${partLoc}.type`);
    if (part.type === "text" && typeof part.text !== "string") return missing(`${partLoc}.text`);
  }
  return null;
}

function checkMessage(message: unknown, n: number): Rejection | null {
  const loc = `messages[${n}]`;
  if (!isRecord(message)) return wrongType(loc, "an object", message);
  if (message.role === undefined) return missing(`${loc}.role`);
  if (typeof message.role !== "string" || !ROLES.includes(message.role))
    return bad(
      `Invalid value: '${String(message.role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
      `${loc}.role`,
      "invalid_value",
    );
  const toolsProblem = checkTools(message.tools, `${loc}.tools`);
  if (toolsProblem) return toolsProblem;
  if (message.role === "assistant") return checkAssistant(message, n);
  if (message.role === "tool") {
    if (message.tool_call_id === undefined) return missing(`${loc}.tool_call_id`);
    if (typeof message.tool_call_id !== "string")
      return wrongType(`${loc}.tool_call_id`, "a string", message.tool_call_id);
  }
  // Message-level tools (Kimi): a system message that only declares tools, with no content key at all.
  if (message.role === "system" && message.tools !== undefined) {
    if (!Array.isArray(message.tools) || message.tools.length === 0)
      return bad(`'${loc}.tools' must be a non-empty array.`, `${loc}.tools`, "invalid_value");
    if ("content" in message)
      return bad(`A tool declaration message must not have 'content'.`, `${loc}.content`, "invalid_value");
    return null;
  }
  if (message.content === undefined) return missing(`${loc}.content`);
  return checkContent(message.content, loc);
}

function checkAssistant(message: JsonObject, n: number): Rejection | null {
  const loc = `messages[${n}]`;
  const calls = message.tool_calls;
  const hasCalls = Array.isArray(calls) && calls.length > 0;
  if (message.content === undefined || message.content === null) {
    if (!hasCalls) return bad("Invalid value for 'content': expected a string, got null.", `messages.[${n}].content`);
  } else {
    const problem = checkContent(message.content, loc);
    if (problem) return problem;
  }
  if (calls === undefined || calls === null) return null;
  if (!Array.isArray(calls)) return wrongType(`${loc}.tool_calls`, "an array of objects", calls);
  for (let k = 0; k < calls.length; k++) {
    const call: unknown = calls[k];
    const callLoc = `${loc}.tool_calls[${k}]`;
    if (!isRecord(call)) return wrongType(callLoc, "an object", call);
    if (call.id === undefined) return missing(`${callLoc}.id`);
    if (typeof call.id !== "string") return wrongType(`${callLoc}.id`, "a string", call.id);
    if (call.type === undefined) return missing(`${callLoc}.type`);
    if (!isRecord(call.function)) return missing(`${callLoc}.function`);
    const fn = call.function;
    if (fn.name === undefined) return missing(`${callLoc}.function.name`);
    const invalid = functionNameProblem(fn.name, `${callLoc}.function.name`);
    if (invalid) return invalid;
    if (fn.arguments === undefined) return missing(`${callLoc}.function.arguments`);
    if (typeof fn.arguments !== "string") return wrongType(`${callLoc}.function.arguments`, "a string", fn.arguments);
    try {
      JSON.parse(fn.arguments);
    } catch {
      return bad(
        `Invalid '${callLoc}.function.arguments': the value must be a valid JSON string.`,
        `${callLoc}.function.arguments`,
        "invalid_value",
      );
    }
  }
  return null;
}

/** Invariant P on a shape-checked message list. */
function checkPairing(messages: JsonObject[]): Rejection | null {
  let pending: string[] = [];
  let open: { ids: string[]; answered: Set<string> } | null = null;
  const unanswered = (n: number): Rejection =>
    unpaired(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(", ")}`,
      `messages.[${n}].role`,
    );
  for (let n = 0; n < messages.length; n++) {
    const message = messages[n]!;
    if (message.role === "tool") {
      if (open === null)
        return unpaired(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${n}].role`,
        );
      const id = String(message.tool_call_id);
      if (!open.ids.includes(id))
        return unpaired(
          `Invalid parameter: 'tool_call_id' of '${id}' not found in 'tool_calls' of previous message.`,
          `messages.[${n}].tool_call_id`,
        );
      if (open.answered.has(id))
        return unpaired(
          `Invalid parameter: duplicate response for 'tool_call_id' of '${id}'. Each 'tool_call_id' must be answered by exactly one tool message.`,
          `messages.[${n}].tool_call_id`,
        );
      open.answered.add(id);
      pending = pending.filter((p) => p !== id);
      continue;
    }
    if (pending.length > 0) return unanswered(n);
    open = null;
    if (message.role === "assistant" && Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
      const ids = (message.tool_calls as JsonObject[]).map((c) => String(c.id));
      open = { ids, answered: new Set() };
      pending = [...ids];
    }
  }
  if (pending.length > 0) return unanswered(messages.length - 1);
  return null;
}
