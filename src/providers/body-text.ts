/**
 * The serialized JSON body of one step request, built once per request
 * object: the compactor's size estimate (before the request) and the adapter
 * that sends it share the same text, so a long history is not projected and
 * stringified twice on the way to the provider.
 */
import type { StepRequest } from "./types";

const texts = new WeakMap<StepRequest, string>();

/** `JSON.stringify(build(req))`, remembered for as long as `req` lives (a request is never changed once built). */
export function bodyText(req: StepRequest, build: (req: StepRequest) => Record<string, unknown>): string {
  let text = texts.get(req);
  if (text === undefined) {
    text = JSON.stringify(build(req));
    texts.set(req, text);
  }
  return text;
}
