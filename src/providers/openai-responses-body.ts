/**
 * OpenAI Responses API request body: the projection of a step onto `input` items (the subset we send), a call's
 * name in the characters the API accepts.
 */
import type { Part, ToolDeclaration } from "../model/message";
import { resultText } from "../model/message";
import { wireOnce } from "./body-text";
import { declaredSchema } from "./declared-schema";
import { wireToolName } from "./tool-name";
import { compactionText, type ModelConfig, RESPONSES_MIN_OUTPUT_TOKENS, type StepRequest } from "./types";

/** Responses API input items (the subset we send). */
type ResponsesItem =
  | { type: "message"; role: "user" | "assistant"; content: string }
  | { type: "function_call"; call_id: string; name: string; arguments: string }
  | { type: "function_call_output"; call_id: string; output: string }
  /** A compaction the API wrote (`context_management` `compact_threshold`), sent back verbatim. */
  | { type: "compaction"; encrypted_content: string };

interface ResponsesTool {
  type: "function";
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict: false;
}

/** The `context_management` entry type that asks the API to compact server-side. */
const RESPONSES_COMPACTION = "compaction";
/** Which provider's compaction parts this wire sends back natively. */
export const RESPONSES_COMPACTION_PROVIDER = "openai";
const TEXT_JOINER = "\n\n";

export function buildResponsesBody(req: StepRequest): Record<string, unknown> {
  const input: ResponsesItem[] = [];
  for (const message of req.messages) input.push(...projectMessage(message.role, message.parts));
  const body: Record<string, unknown> = { model: req.model.name };
  if (req.system !== "") body.instructions = req.system;
  body.input = input;
  if (req.tools.length > 0) body.tools = req.tools.map(wireTool);
  if (req.compaction) {
    body.context_management = [{ type: RESPONSES_COMPACTION, compact_threshold: req.compaction.trigger }];
  }
  // The session keeps the history itself: nothing is stored server-side, every request is complete.
  body.store = false;
  body.stream = true;
  const maxOutput = responsesOutputTokens(req.model);
  if (maxOutput > 0) body.max_output_tokens = maxOutput;
  return body;
}

/**
 * The `max_output_tokens` a request for `model` carries: the agent's `max_tokens`, or none (0). PUT refuses less
 * than the API's minimum, but an agent stored before that check may still hold it: raised here, or the API would
 * refuse every turn of that agent.
 */
export function responsesOutputTokens(model: ModelConfig): number {
  return model.max_tokens === undefined ? 0 : Math.max(RESPONSES_MIN_OUTPUT_TOKENS, model.max_tokens);
}

/** One wire object per schema, name and description (body-text.ts): serialized once, not at every step. */
function wireTool(tool: ToolDeclaration): ResponsesTool {
  return wireOnce("openai-responses", tool.input_schema, [tool.name, tool.description], () => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: declaredSchema(tool.input_schema),
    strict: false,
  }));
}

/**
 * One canonical message as items. An assistant message: its compaction first (where the API wrote
 * it), then its text, then its calls. A user message: its call outputs first (they must follow the
 * calls they answer), then its text in one message. Thinking is not sent back (no reasoning items).
 */
function projectMessage(role: "user" | "assistant", parts: readonly Part[]): ResponsesItem[] {
  const lead: ResponsesItem[] = [];
  const texts: string[] = [];
  const tail: ResponsesItem[] = [];
  for (const part of parts) {
    switch (part.type) {
      case "compaction":
        if (part.provider === RESPONSES_COMPACTION_PROVIDER && part.encrypted !== undefined) {
          lead.push({ type: "compaction", encrypted_content: part.encrypted });
        } else if (part.content) {
          texts.push(compactionText(part.content));
        }
        break;
      case "text":
      case "notice":
        if (part.text.trim() !== "") texts.push(part.text);
        break;
      case "tool_use":
        tail.push({
          type: "function_call",
          call_id: part.id,
          name: wireToolName(part.name),
          arguments: JSON.stringify(part.input),
        });
        break;
      case "tool_result":
        lead.push({ type: "function_call_output", call_id: part.tool_use_id, output: resultText(part.content) });
        break;
      case "thinking":
      case "tool_declarations":
        break;
    }
  }
  const text: ResponsesItem[] = texts.length > 0 ? [{ type: "message", role, content: texts.join(TEXT_JOINER) }] : [];
  return [...lead, ...text, ...tail];
}
