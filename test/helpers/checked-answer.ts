// An answer of the API checked against the OpenAPI document as a client reads it (conformance.ts), for clients that
// read answers themselves (the AI SDK's transport, the Workers tests' `api`): its path, operation, status, media
// type and headers at once, a JSON body at once (strictly on request: no key the document does not declare), and a
// UI message stream frame by frame as it is read, the stream erroring at the first frame the document does not give.
import { checkAnswer, checkConformance, type Document, isContractPath, streamFrameCheck } from "./conformance.ts";
import { SseParser } from "./sse.ts";

/**
 * `res` checked against `doc` (throws when it does not match); a UI message stream comes back as an answer whose
 * body reads through the check (`report` also hears of a frame that does not match, for a reader that would
 * swallow the stream's error). `strict`: a JSON body may carry no key the document does not declare. A path the
 * document does not speak for (`isContractPath`) is not checked.
 */
export async function checkedAnswer(
  doc: Document,
  method: string,
  url: string,
  res: Response,
  report: (violation: Error) => void = () => undefined,
  strict = false,
): Promise<Response> {
  if (!isContractPath(doc, url)) return res;
  checkAnswer(doc, method, url, res.status, res.headers);
  const media = res.headers.get("content-type") ?? "";
  if (media.includes("application/json")) {
    checkConformance(doc, method, url, res.status, await res.clone().json(), strict);
  }
  if (!media.includes("text/event-stream") || res.body === null) return res;
  const check = streamFrameCheck(doc, url, res.status);
  const parser = new SseParser();
  const decoder = new TextDecoder();
  const frames = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      try {
        for (const frame of parser.feed(decoder.decode(chunk, { stream: true }))) check(frame);
      } catch (error) {
        report(error as Error);
        throw error;
      }
      controller.enqueue(chunk);
    },
  });
  const checked = new Response(res.body.pipeThrough(frames), res);
  Object.defineProperty(checked, "url", { value: res.url });
  return checked;
}
