/**
 * A stored message's estimated tokens (`messageTokens`: `textTokens` of its parts), sized once per parts array:
 * what the context budget adds up for the view and a compaction weighs to choose its boundary.
 */
import type { Message } from "../../model/message";
import { textTokens } from "./estimate";

/**
 * `messageTokens` by parts array. A stored message's parts are never changed in place (appending to one assigns
 * a new array, and a reload from SQL makes new ones), so the entry lives exactly as long as the parts it sizes:
 * GET /v1/sessions/{id} (polled for state) and each compaction size only what is new since the last look.
 */
const sizedParts = new WeakMap<readonly unknown[], number>();

/** Estimated tokens of a message's parts (what the boundary choice weighs). */
export function messageTokens(m: Message): number {
  let tokens = sizedParts.get(m.parts);
  if (tokens === undefined) {
    tokens = textTokens(JSON.stringify(m.parts));
    sizedParts.set(m.parts, tokens);
  }
  return tokens;
}
