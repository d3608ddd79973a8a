/**
 * Server-sent events for the session's UI message stream: frame writers (`sseFrame`, `sseDone`; every frame
 * has a stream-log id, so `Last-Event-ID` resumes exactly), the keep-alive comment (`SSE_PING`), the response
 * headers, and `parseSseFrames`, which reads such text back into events.
 */
import type { UiChunk } from "./ui-chunks";

/**
 * One SSE event per chunk. `id` is the chunk's stream-log id, so a client that
 * reconnects with `Last-Event-ID` gets exactly the chunks after it. A single
 * `data:` line is enough: JSON.stringify escapes every CR and LF, so the JSON
 * can never break the frame.
 */
export function sseFrame(id: number, chunk: UiChunk): string {
  return sseFrameJson(id, JSON.stringify(chunk));
}

/** `sseFrame` for a chunk already serialized (the stream log serializes each chunk once). */
export function sseFrameJson(id: number, json: string): string {
  return `id: ${id}\ndata: ${json}\n\n`;
}

/**
 * End of our responses. Every frame carries an id, so [DONE] repeats the id of
 * the last chunk this response delivered (or the position it resumed from):
 * it is not a stream-log row of its own, so a fresh id would collide with the
 * next turn's first chunk. A client that reconnects with it gets nothing it
 * already has. The AI SDK recognises [DONE] by its data alone.
 */
export function sseDone(lastId: number): string {
  return `id: ${lastId}\ndata: [DONE]\n\n`;
}

/**
 * A keep-alive: an SSE comment, which every SSE parser skips (the AI SDK's, `parseSseFrames`) and which carries no
 * id, so a client's `Last-Event-ID` stays that of the last frame. Sent on a stream that has been quiet for a while,
 * so proxies that cut idle connections (60 s is common) keep it open through a long tool call.
 */
export const SSE_PING = ": ping\n\n";

export const UI_STREAM_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  // Tells the AI SDK (and our own clients) that the body is a UI message stream, protocol v1.
  "x-vercel-ai-ui-message-stream": "v1",
  // Stops nginx-style proxies from buffering, which would turn a live stream into one late burst.
  "x-accel-buffering": "no",
};

interface SseFrame {
  /** The event's own `id` field, or null when it had none (the AI SDK's own servers send [DONE] without one). */
  id: number | null;
  data: string;
}

/**
 * Parses SSE text into events, following the WHATWG rules that matter here:
 * comments are skipped, multiple data lines join with LF, an event without
 * data is not dispatched, and an unterminated last event is dropped because a
 * live stream that ends mid-event was cut.
 */
export function parseSseFrames(text: string): SseFrame[] {
  const frames: SseFrame[] = [];
  let id: number | null = null;
  let data: string[] = [];
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  // The element after the last LF is either "" (terminated) or an unterminated line; neither completes an event.
  lines.pop();
  for (const line of lines) {
    if (line === "") {
      if (data.length > 0) frames.push({ id, data: data.join("\n") });
      id = null;
      data = [];
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data.push(value);
    else if (field === "id" && /^\d+$/.test(value)) id = Number(value);
  }
  return frames;
}
