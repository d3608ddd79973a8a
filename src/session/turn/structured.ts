/**
 * Structured output for turns with a `json_schema`: the stored schema compiled again as the turn's contract, the
 * synthetic `structured_output` tool's declaration, the check of its arguments against that schema, and the fixed
 * answers and errors for the cases around it.
 */
import { type CompiledSchema, compileDeclared, formatIssues, issueLine } from "../../json-schema/index";
import type { ErrorInfo, Result } from "../../model/errors";
import type { JsonObject } from "../../model/json";
import type { Message, ToolDeclaration, ToolUsePart } from "../../model/message";
import { headChars, jsonBytes } from "../../storage/fit";
import { STRUCTURED_RESULT_BUDGET_BYTES } from "../../storage/limits";
import type { TurnRow } from "./turn-store";

/** The synthetic tool a turn with `json_schema` offers; its first valid call ends the turn. */
export const STRUCTURED_OUTPUT = "structured_output";

export interface OutputContract {
  schema: JsonObject;
  compiled: CompiledSchema;
}

/**
 * The turn's contract (null: it asked for no structured output), or why its stored json_schema fails the turn: the
 * schema is compiled as one is accepted now. The worker accepted it before the turn was admitted, but under the
 * checks of that deploy: a schema stored earlier (a run queued, a turn paused or retried across a deploy that
 * tightened them, such as a pattern the linear-time engine cannot run) may no longer compile, and the turn fails
 * with why, not retryable (the same schema fails again), rather than run without its contract.
 */
export function contractOf(turn: TurnRow): Result<{ contract: OutputContract | null }> {
  if (!turn.json_schema) return { ok: true, contract: null };
  const schema = JSON.parse(turn.json_schema) as JsonObject;
  const compiled = compileDeclared(schema);
  if (!compiled.ok) {
    return {
      ok: false,
      error: {
        code: "invalid_schema",
        message: `the turn's json_schema is no longer accepted: ${compiled.error}`,
        retryable: false,
      },
    };
  }
  return { ok: true, contract: { schema, compiled: compiled.schema } };
}

export function structuredDeclaration(contract: OutputContract): ToolDeclaration {
  return {
    name: STRUCTURED_OUTPUT,
    description:
      "Deliver your final answer as structured data. Call this exactly once, when you are done, " +
      "with arguments matching the schema; the turn ends when the call is valid.",
    input_schema: contract.schema,
  };
}

type StructuredCheck = { ok: true; value: JsonObject } | { ok: false; message: string; errors: string[] };

export function checkStructured(call: ToolUsePart, contract: OutputContract): StructuredCheck {
  const result = contract.compiled.validate(call.input);
  if (!result.ok) {
    return {
      ok: false,
      errors: result.issues.map(issueLine),
      message: `structured_output arguments do not match the schema:\n${formatIssues(result.issues)}\nFix them and call structured_output again.`,
    };
  }
  // Stored and streamed whole or not at all: a cut value would no longer match its schema.
  const bytes = jsonBytes(call.input);
  if (bytes > STRUCTURED_RESULT_BUDGET_BYTES) {
    const why = `arguments are ${bytes} bytes of JSON; at most ${STRUCTURED_RESULT_BUDGET_BYTES} bytes are accepted`;
    return {
      ok: false,
      errors: [why],
      message: `structured_output ${why}. Make the answer shorter and call structured_output again.`,
    };
  }
  return { ok: true, value: call.input };
}

export const SKIPPED = "skipped: the turn ended with structured output before this call ran";

/** The answer to a structured_output call in a turn that asked for no structured output. */
export const NOT_OFFERED =
  "structured_output is not available in this turn: no output schema (json_schema) was requested. " +
  "Answer in plain text, or call one of the tools offered in this turn.";

/**
 * The turn ended (plain text, or max_steps) without a valid structured_output call. The preview quotes this
 * turn's last assistant text only: a turn that stored no text of its own must not quote an earlier turn's.
 * `messages` is the session's history as the turn left it, oldest first.
 */
export function missingStructured(
  steps: number,
  messages: readonly Message[],
  turnId: string,
  end: "model" | "max_steps",
): ErrorInfo {
  const last = [...messages].reverse().find((m) => m.role === "assistant" && m.turn_id === turnId);
  const text = (last?.parts ?? [])
    .map((p) => (p.type === "text" ? p.text : ""))
    .join("")
    .trim();
  const preview = text.length > 200 ? `${headChars(text, 197)}...` : text;
  const ended =
    end === "max_steps"
      ? `the turn reached its max_steps (${steps} step(s))`
      : `the model ended the turn after ${steps} step(s)`;
  return {
    code: "structured_output_missing",
    message: `${ended} without a valid structured_output call${preview ? `; it said: "${preview}"` : ""}`,
    // True only when POST /retry accepts the turn (SessionEngine.retry): history ends with a user message, the
    // turn's input or its tool results (max_steps, an empty answer). A turn the model ended with its own text
    // has nothing to re-run from: /retry answers nothing_to_retry, so a client must send a new message instead.
    retryable: messages.at(-1)?.role === "user",
  };
}

/**
 * The step's structured_output call was cut off (stripped, never run: DESIGN §3, P5) by the output limit or a
 * refusal, and the step made no other call. Not the model giving up: the message names the cause. Not retryable:
 * the same request would be cut, or refused, again. `outputTokens` is the limit the request carried (0: none, the
 * server's default).
 */
export function cutStructured(stop: "max_tokens" | "refusal", outputTokens: number): ErrorInfo {
  const limit = outputTokens > 0 ? `max_tokens ${outputTokens}` : "max_tokens: the server's default";
  return {
    code: "structured_output_missing",
    message:
      stop === "max_tokens"
        ? `structured_output was cut off by the output limit (${limit}); raise model.max_tokens or ask for a shorter answer`
        : "structured_output was cut off by a refusal: the model (or the provider's content filter) refused to finish it",
    retryable: false,
  };
}
