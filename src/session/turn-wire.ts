/**
 * How a turn call crosses between the worker and the session object: a POST to the object's `fetch`,
 * its answer a response. A streamed answer is the response's body, so the platform carries it as
 * HTTP over the object's channel; a ReadableStream returned over JS RPC cost the local workerd
 * 0.2 ms more CPU per turn (`bench/ab.mjs`, 6 rounds, README "The turn path"). Everything else, a
 * failure or a JSON-mode result, is the call's `Result` as JSON. The object is reached only through
 * its stub, so the call itself is trusted JSON from our own worker.
 */
import type { Result } from "../model/errors";

/** What crosses of an answer (rpc-types.ts TurnAnswer has this shape); a stream, when there is one, is the body. */
export interface WireAnswer {
  turn_id: string;
  replayed: boolean;
  stream?: ReadableStream<Uint8Array>;
  debug?: object;
}

const EVENT_STREAM = "text/event-stream";
/** The object's own URL space; the host is never resolved (a stub's fetch goes to its object). */
const CALL_URL = "https://session.internal/turn";

/** Worker side: the request that carries `call` (rpc-types.ts TurnCall) to the object. */
export function callRequest(call: object): Request {
  return new Request(CALL_URL, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(call),
  });
}

/** Object side: the call a request carries. */
export async function readCall<C extends object>(request: Request): Promise<C> {
  return (await request.json()) as C;
}

/** Object side: a call's answer as a response (a stream as its body, anything else as JSON). */
export function answerResponse<A extends WireAnswer>(answer: Result<A>): Response {
  if (!answer.ok || !answer.stream) return Response.json(answer);
  const headers: Record<string, string> = {
    "content-type": EVENT_STREAM,
    "x-turn-id": answer.turn_id,
    "x-turn-replayed": answer.replayed ? "1" : "0",
  };
  if (answer.debug) headers["x-turn-debug"] = JSON.stringify(answer.debug);
  return new Response(answer.stream, { status: 200, headers });
}

/** Worker side: the answer a response carries (the inverse of `answerResponse`). */
export async function readAnswer<A extends WireAnswer>(response: Response): Promise<Result<A>> {
  if (!(response.headers.get("content-type") ?? "").startsWith(EVENT_STREAM) || !response.body) {
    return (await response.json()) as Result<A>;
  }
  const debug = response.headers.get("x-turn-debug");
  const answer: WireAnswer = {
    turn_id: response.headers.get("x-turn-id") ?? "",
    replayed: response.headers.get("x-turn-replayed") === "1",
    stream: response.body,
    ...(debug ? { debug: JSON.parse(debug) as object } : {}),
  };
  return { ok: true, ...(answer as A) };
}
