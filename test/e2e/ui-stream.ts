// The AI SDK client's side of our SSE, for e2e tests: its own event-stream + schema parser
// (`parseJsonEventStream` with `uiMessageChunkSchema`, what DefaultChatTransport runs) and its own
// message assembler (`readUIMessageStream`, what useChat runs). Nothing here trusts src/.
import { parseJsonEventStream } from "@ai-sdk/provider-utils";
import { readUIMessageStream, type UIMessage, type UIMessageChunk, uiMessageChunkSchema } from "ai";
import type { SseFrame } from "../helpers/index.ts";

/** Every chunk the SDK parser yields from an SSE byte stream; a chunk the SDK's schema refuses throws. */
export async function sdkChunks(body: ReadableStream<Uint8Array>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  const reader = parseJsonEventStream({ stream: body, schema: uiMessageChunkSchema }).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    if (!value.success) throw value.error;
    chunks.push(value.value);
  }
}

/** Re-serialises frames received by the test's own SSE reader, so the SDK parser can read them. */
export function framesToSse(frames: SseFrame[]): string {
  return frames
    .map(
      (f) =>
        `${f.id === null ? "" : `id: ${f.id}\n`}${f.event === null ? "" : `event: ${f.event}\n`}data: ${f.data}\n\n`,
    )
    .join("");
}

export function textStream(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

/** SDK chunks of frames received over one or more connections (in order), through the SDK parser. */
export function sdkChunksOfFrames(frames: SseFrame[]): Promise<UIMessageChunk[]> {
  return sdkChunks(textStream(framesToSse(frames)));
}

export interface Assembled {
  /** The last snapshot readUIMessageStream produced (the final message), or undefined when none. */
  message: UIMessage | undefined;
  /** Errors the SDK reported while assembling (error chunks, inconsistent chunk sequences). */
  errors: unknown[];
}

/** Assembles the assistant message the way useChat does. */
export async function assembleStream(stream: ReadableStream<UIMessageChunk>): Promise<Assembled> {
  const errors: unknown[] = [];
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, onError: (e) => errors.push(e) })) {
    message = snapshot;
  }
  return { message, errors };
}

export function assembleChunks(chunks: UIMessageChunk[]): Promise<Assembled> {
  return assembleStream(
    new ReadableStream<UIMessageChunk>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    }),
  );
}

/** A part of the assembled message, without the `data-*` parts (server status payloads). */
export function contentParts(message: UIMessage): UIMessage["parts"] {
  return message.parts.filter((p) => !p.type.startsWith("data-"));
}
