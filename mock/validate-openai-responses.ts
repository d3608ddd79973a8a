// Validation of OpenAI Responses API requests (`POST /v1/responses`): the shape checks (max_output_tokens >= 16,
// function names in tools[] and in history), the `context_management` compaction entry, and the pairing of
// function_call and function_call_output items, answered with the real API's 400 messages.
import { isRecord, type Rejection } from "./types.ts";
import { bad, functionNameProblem, parametersProblem, unpaired } from "./validate-openai.ts";

const ROLES = ["user", "assistant", "system", "developer"];
/** The API's least `max_output_tokens`. */
const MIN_OUTPUT_TOKENS = 16;

export function validateResponsesRequest(body: unknown): Rejection | null {
  if (!isRecord(body)) return bad("Invalid request body: expected a JSON object.");
  if (typeof body.model !== "string" || body.model.length === 0)
    return bad("Missing required parameter: 'model'.", "model", "missing_required_parameter");
  if (body.instructions !== undefined && typeof body.instructions !== "string")
    return bad("Invalid type for 'instructions': expected a string.", "instructions", "invalid_type");
  const input = body.input;
  if (!Array.isArray(input) && typeof input !== "string")
    return bad("Invalid type for 'input': expected a string or an array of input items.", "input", "invalid_type");
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return bad("Invalid type for 'tools': expected an array.", "tools", "invalid_type");
    for (let i = 0; i < body.tools.length; i++) {
      const tool: unknown = body.tools[i];
      if (!isRecord(tool) || tool.type !== "function")
        return bad(`Invalid value for 'tools[${i}].type'.`, `tools[${i}].type`, "invalid_value");
      const invalid = functionNameProblem(tool.name, `tools[${i}].name`);
      if (invalid) return invalid;
      const schema = parametersProblem(String(tool.name), tool.parameters, `tools[${i}].parameters`);
      if (schema) return schema;
    }
  }
  const limit = body.max_output_tokens;
  if (limit !== undefined && limit !== null) {
    if (typeof limit !== "number" || !Number.isInteger(limit))
      return bad("Invalid type for 'max_output_tokens': expected an integer.", "max_output_tokens", "invalid_type");
    if (limit < MIN_OUTPUT_TOKENS)
      return bad(
        `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= ${MIN_OUTPUT_TOKENS}, but got ${limit} instead.`,
        "max_output_tokens",
        "integer_below_min_value",
      );
  }
  const cm = contextManagement(body.context_management);
  if (cm !== null && "status" in cm) return cm;
  return Array.isArray(input) ? checkItems(input) : null;
}

/** The compaction threshold a request asks for, null when none, or why it is refused. */
export function contextManagement(value: unknown): { threshold: number } | null | Rejection {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value))
    return bad("Invalid type for 'context_management': expected an array.", "context_management", "invalid_type");
  let threshold: number | null = null;
  for (let i = 0; i < value.length; i++) {
    const entry: unknown = value[i];
    const param = `context_management[${i}]`;
    if (!isRecord(entry) || entry.type !== "compaction")
      return bad(
        `Invalid value for '${param}.type': only 'compaction' is supported.`,
        `${param}.type`,
        "invalid_value",
      );
    const t = entry.compact_threshold;
    if (t !== undefined && t !== null && (typeof t !== "number" || !Number.isInteger(t) || t < 1))
      return bad(
        `Invalid '${param}.compact_threshold': expected a positive integer.`,
        `${param}.compact_threshold`,
        "invalid_value",
      );
    // The mock has no server default; a request without a threshold never compacts.
    if (typeof t === "number") threshold = t;
  }
  return threshold === null ? null : { threshold };
}

/** Item shapes, then P: every function_call answered once by a later output; no output without its call. */
function checkItems(items: unknown[]): Rejection | null {
  const calls = new Map<string, number>();
  const answered = new Set<string>();
  for (let i = 0; i < items.length; i++) {
    const item: unknown = items[i];
    const param = `input[${i}]`;
    if (!isRecord(item)) return bad(`Invalid type for '${param}': expected an object.`, param, "invalid_type");
    const type = item.type ?? "message";
    if (type === "message") {
      if (!ROLES.includes(String(item.role)))
        return bad(`Invalid value for '${param}.role'.`, `${param}.role`, "invalid_value");
      if (typeof item.content !== "string" && !Array.isArray(item.content))
        return bad(`Invalid type for '${param}.content'.`, `${param}.content`, "invalid_type");
      if (typeof item.content === "string" && item.content.length === 0 && item.role === "assistant")
        return bad(`Invalid '${param}.content': empty assistant message.`, `${param}.content`, "invalid_value");
    } else if (type === "function_call") {
      if (typeof item.call_id !== "string" || typeof item.name !== "string" || typeof item.arguments !== "string")
        return bad(
          `Invalid '${param}': function_call needs call_id, name and arguments strings.`,
          param,
          "invalid_value",
        );
      const invalid = functionNameProblem(item.name, `${param}.name`);
      if (invalid) return invalid;
      if (calls.has(item.call_id)) return unpaired(`Duplicate item found with call_id ${item.call_id}.`, param);
      calls.set(item.call_id, i);
    } else if (type === "function_call_output") {
      if (typeof item.call_id !== "string" || typeof item.output !== "string")
        return bad(
          `Invalid '${param}': function_call_output needs call_id and output strings.`,
          param,
          "invalid_value",
        );
      if (!calls.has(item.call_id))
        return unpaired(`No tool call found for function call output with call_id ${item.call_id}.`, param);
      if (answered.has(item.call_id))
        return unpaired(`Duplicate function call output for call_id ${item.call_id}.`, param);
      answered.add(item.call_id);
    } else if (type === "compaction") {
      if (typeof item.encrypted_content !== "string" || !item.encrypted_content.startsWith("mockcmp_"))
        return bad(
          `Invalid '${param}.encrypted_content': the compaction could not be decrypted.`,
          `${param}.encrypted_content`,
          "invalid_encrypted_content",
        );
    } else {
      return bad(
        `Invalid value for '${param}.type': '${String(type)}' (mock: unsupported item type).`,
        `${param}.type`,
        "invalid_value",
      );
    }
  }
  for (const [id, at] of calls) {
    if (!answered.has(id)) return unpaired(`No tool output found for function call ${id}.`, `input[${at}]`);
  }
  return null;
}
