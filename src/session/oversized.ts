/**
 * The admission size check: what a stored row could not hold is refused
 * before anything changes. The user's own parts and the turn's json_schema
 * each have a byte budget (src/storage/limits.ts); supplied tool results are
 * cut instead, so they are not checked here. The worker checks a json_schema
 * with `schemaOversized` too, before it compiles it, and a run's input with `partsOversized`.
 */
import { failure } from "../model/errors";
import type { Part } from "../model/message";
import { jsonBytes } from "../storage/fit";
import { JSON_SCHEMA_BUDGET_BYTES, USER_PARTS_BUDGET_BYTES } from "../storage/limits";
import type { SendInput } from "./rpc-types";

/** A 413 failure when the message's parts or its json_schema is over its budget, else null. */
export function oversized(input: SendInput) {
  return partsOversized(input.content) ?? (input.json_schema ? schemaOversized(input.json_schema) : null);
}

/**
 * A 413 failure when a message's own parts are over their budget as stored, else null. The worker checks a
 * run's input with it too, so a run that could never start is refused at admission rather than failed later.
 */
export function partsOversized(content: readonly Part[]) {
  const parts = jsonBytes(content);
  if (parts <= USER_PARTS_BUDGET_BYTES) return null;
  return failure(
    "message_too_large",
    `the message's parts are ${parts} bytes as stored; at most ${USER_PARTS_BUDGET_BYTES} are accepted`,
  );
}

/** A 413 failure when a json_schema is over its budget as stored, else null. */
export function schemaOversized(schema: unknown) {
  const bytes = jsonBytes(schema);
  if (bytes <= JSON_SCHEMA_BUDGET_BYTES) return null;
  return failure(
    "schema_too_large",
    `json_schema is ${bytes} bytes as stored; at most ${JSON_SCHEMA_BUDGET_BYTES} are accepted`,
  );
}
