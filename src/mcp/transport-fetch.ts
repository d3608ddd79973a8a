/**
 * The fetch of McpConnection's transport. It follows no redirect itself, and it reads the answer to a POST (a request:
 * initialize, tools/list, tools/call) so that the SDK always gets an answer for that request: one over
 * MAX_MCP_RESPONSE_BYTES, and an SSE answer that ends or breaks off before it carried the request's response, become
 * a JSON-RPC error for the request's own id. That fails the one call at once, and no other call on the link, where
 * the SDK would wait for its timeout (it answers a request only from a response the server sent).
 */

import { JSONRPCResponseSchema } from "@modelcontextprotocol/sdk/types.js";
import { createParser } from "eventsource-parser";
import { ANSWER_DROPPED, ANSWER_TOO_LARGE } from "./convert";
import { MAX_MCP_RESPONSE_BYTES } from "./limits";

/** A JSON-RPC error answering request `id` with `code` (convert.ts's failureKind reads it). */
function rpcError(id: unknown, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });
}

/** The error for an answer over the byte cap. */
function tooLarge(id: unknown): string {
  return rpcError(id, ANSWER_TOO_LARGE, `the answer is over ${MAX_MCP_RESPONSE_BYTES} bytes; it was not read further`);
}

/** The error for an SSE answer that ended (`cause` null) or broke off with `cause`, with no response in it. */
function dropped(id: unknown, cause: unknown): string {
  const how =
    cause === null
      ? "ended before it answered"
      : `broke off before it answered (${cause instanceof Error ? cause.message : String(cause)})`;
  return rpcError(id, ANSWER_DROPPED, `the server's answer stream ${how}; the call may have run`);
}

/**
 * Whether an SSE answer has carried the response to request `id`, fed the bytes the SDK reads and parsed as it parses
 * them: a `message` event (or one with no type) whose data is a JSON-RPC result or error the SDK matches to that id.
 */
function responseWatch(id: string | number | null): { feed(text: string): void; answered(): boolean } {
  let answered = false;
  const parser = createParser({
    onEvent(event) {
      if (answered || (event.event && event.event !== "message")) return;
      try {
        const msg = JSONRPCResponseSchema.safeParse(JSON.parse(event.data));
        // The SDK matches a response to its request by Number(id), as here.
        answered = msg.success && Number(msg.data.id) === Number(id);
      } catch {
        // Not JSON: the SDK reports it and reads on, as this does.
      }
    },
  });
  return { feed: (text) => parser.feed(text), answered: () => answered };
}

/**
 * A POST's answer read up to `max` bytes. Past it the rest is not read, and the answer ends with a JSON-RPC error for
 * the request's own id. An SSE answer that ends, or breaks off, with no response to that id in it ends with one too.
 */
function capped(res: Response, id: string | number | null, max: number): Response {
  const sse = (res.headers.get("content-type") ?? "").includes("text/event-stream");
  const encoder = new TextEncoder();
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let seen = 0;
  /** Ends the answer with `error` (SSE: the event that was cut is ended first, then one event with it). */
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, error: string) => {
    controller.enqueue(encoder.encode(sse ? `\n\nevent: message\ndata: ${error}\n\n` : error));
    controller.close();
  };
  const over = async (controller: ReadableStreamDefaultController<Uint8Array>) => {
    await reader.cancel().catch(() => {});
    fail(controller, tooLarge(id));
  };
  if (sse) {
    const decoder = new TextDecoder();
    const watch = responseWatch(id);
    /**
     * The stream ended, or broke off with `cause`: a request not answered in it is answered with an error; else it
     * ends as it did (a break reaches the SDK, which reports it).
     */
    const ended = (controller: ReadableStreamDefaultController<Uint8Array>, broke: boolean, cause?: unknown) => {
      if (id !== null && !watch.answered()) return fail(controller, dropped(id, broke ? cause : null));
      if (broke) controller.error(cause);
      else controller.close();
    };
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let r: ReadableStreamReadResult<Uint8Array>;
        try {
          r = await reader.read();
        } catch (e) {
          return ended(controller, true, e);
        }
        if (r.done) return ended(controller, false);
        seen += r.value.byteLength;
        if (seen > max) return over(controller);
        if (id !== null && !watch.answered()) watch.feed(decoder.decode(r.value, { stream: true }));
        controller.enqueue(r.value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  }
  const body = new ReadableStream<Uint8Array>({
    // The SDK reads a JSON answer whole: it is buffered up to the cap and sent on whole, or replaced.
    async start(controller) {
      const chunks: Uint8Array[] = [];
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        seen += r.value.byteLength;
        if (seen > max) return over(controller);
        chunks.push(r.value);
      }
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/**
 * The JSON-RPC id of a request body (a single message; batches are not sent by this client), or null for a
 * notification or a response (the client's answer to a server's request), which no answer of the server's answers.
 */
function requestId(body: unknown): string | number | null {
  if (typeof body !== "string") return null;
  try {
    const msg = JSON.parse(body) as { method?: unknown; id?: unknown };
    const id = msg.id;
    return typeof msg.method === "string" && (typeof id === "string" || typeof id === "number") ? id : null;
  } catch {
    return null;
  }
}

/**
 * The transport's fetch. It follows no redirect itself: one to another host could lead past the outbound URL
 * policy. The SDK wraps it and follows a redirect within the server's origin only (same host and port, or its
 * https form; `fetchWithinOrigin`), where the policy's verdict cannot differ. An
 * answer to a request (POST: tools/list, tools/call) is read up to MAX_MCP_RESPONSE_BYTES (`capped`), so a faulty
 * or hostile server cannot fill the object's memory; the notification stream (GET) is long-lived and not capped.
 */
export async function transportFetch(url: string | URL, init?: RequestInit): Promise<Response> {
  const res = await fetch(url, { ...init, redirect: "manual" });
  if (init?.method !== "POST" || !res.body) return res;
  return capped(res, requestId(init.body), MAX_MCP_RESPONSE_BYTES);
}
