/**
 * The admission size check: what a stored row could not hold is refused
 * before anything changes. The user's own parts and the turn's json_schema
 * each have a byte budget (src/storage/limits.ts); supplied tool results are
 * cut instead, so they are not checked here.
 */
import { failure } from "../model/errors";
import { jsonBytes } from "../storage/fit";
import { JSON_SCHEMA_BUDGET_BYTES, USER_PARTS_BUDGET_BYTES } from "../storage/limits";
import type { SendInput } from "./rpc-types";

/** A 413 failure when the message's parts or its json_schema is over its budget, else null. */
export function oversized(input: SendInput) {
  const parts = jsonBytes(input.content);
  if (parts > USER_PARTS_BUDGET_BYTES) {
    return failure(
      "message_too_large",
      `the message's parts are ${parts} bytes as stored; at most ${USER_PARTS_BUDGET_BYTES} are accepted`,
    );
  }
  const schema = input.json_schema ? jsonBytes(input.json_schema) : 0;
  if (schema > JSON_SCHEMA_BUDGET_BYTES) {
    return failure(
      "schema_too_large",
      `json_schema is ${schema} bytes as stored; at most ${JSON_SCHEMA_BUDGET_BYTES} are accepted`,
    );
  }
  return null;
}
