/**
 * The serialized JSON body of one step request, built once per request
 * object: the compactor's size estimate (before the request) and the adapter
 * that sends it share the same text, so a long history is not projected and
 * stringified twice on the way to the provider.
 */
import type { StepRequest } from "./types";

const bodies = new WeakMap<StepRequest, Record<string, unknown>>();
const texts = new WeakMap<StepRequest, string>();

/** `build(req)`, remembered for as long as `req` lives (the adapter reads it for headers, e.g. Anthropic betas). */
export function bodyOf(
  req: StepRequest,
  build: (req: StepRequest) => Record<string, unknown>,
): Record<string, unknown> {
  let body = bodies.get(req);
  if (body === undefined) {
    body = build(req);
    bodies.set(req, body);
  }
  return body;
}

/** `JSON.stringify(build(req))`, remembered for as long as `req` lives (a request is never changed once built). */
export function bodyText(req: StepRequest, build: (req: StepRequest) => Record<string, unknown>): string {
  let text = texts.get(req);
  if (text === undefined) {
    text = JSON.stringify(bodyOf(req, build));
    texts.set(req, text);
  }
  return text;
}
