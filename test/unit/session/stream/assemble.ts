// Test helpers for the UI message stream: turn events → chunks → SSE text as the session sends it, read back the
// way the AI SDK client does.
import { parseJsonEventStream } from "@ai-sdk/provider-utils";
import { readUIMessageStream, type UIMessage, type UIMessageChunk, uiMessageChunkSchema } from "ai";
import { sseDone, sseFrame } from "../../../../src/session/stream/sse";
import type { TurnEvent } from "../../../../src/session/stream/turn-events";
import type { UiChunk } from "../../../../src/session/stream/ui-chunks";
import { UiEncoder } from "../../../../src/session/stream/ui-encoder";
import { SERVER_TOOLS } from "./fixtures";

export function encodeAll(events: TurnEvent[]): UiChunk[] {
  const encoder = new UiEncoder((name) => SERVER_TOOLS.has(name));
  return events.flatMap((ev) => encoder.push(ev));
}

/** SSE frames with log ids 1..n, as the session serves its stream log. */
export function toFrames(chunks: UiChunk[]): string[] {
  return chunks.map((chunk, i) => sseFrame(i + 1, chunk));
}

/** A whole response as the session sends it: the frames, then [DONE] with the last frame's id (`sseDone`). */
export function toSse(chunks: UiChunk[]): string {
  return toFrames(chunks).join("") + sseDone(chunks.length);
}

/** Bytes in 7-byte pieces, so frames and multi-byte characters straddle reads as on a real network. */
function byteStream(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 7) controller.enqueue(bytes.slice(i, i + 7));
      controller.close();
    },
  });
}

/** The AI SDK client's own SSE + schema parsing (what DefaultChatTransport does). */
export async function parseWithSdk(sse: string): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  const reader = parseJsonEventStream({ stream: byteStream(sse), schema: uiMessageChunkSchema }).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    if (!value.success) throw value.error;
    chunks.push(value.value);
  }
}

export interface Assembled {
  message: UIMessage | undefined;
  /** Errors the SDK reported: `error` chunks and any stream-processing failure. */
  errors: Error[];
}

/**
 * Assembles the assistant message the way useChat does, from one or more
 * connections whose chunks feed one continuous client state (a resume).
 */
export async function assembleConnections(connections: string[]): Promise<Assembled> {
  const chunks: UIMessageChunk[] = [];
  for (const sse of connections) chunks.push(...(await parseWithSdk(sse)));
  const errors: Error[] = [];
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, onError: (e) => errors.push(asError(e)) })) {
    message = snapshot;
  }
  return { message, errors };
}

export function assemble(sse: string): Promise<Assembled> {
  return assembleConnections([sse]);
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}
