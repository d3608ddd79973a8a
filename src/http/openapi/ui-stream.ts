/**
 * The answers that carry a turn's AI SDK UI message stream: `turnResponse` (the stream, or the turn's JSON result)
 * and `streamResponse` (the stream only), with the stream's headers and the shape of its SSE frames.
 */
import { ref } from "./content";

const uiStreamHeaders = {
  "x-vercel-ai-ui-message-stream": { description: "Always `v1`.", schema: { const: "v1" } },
  "x-turn-id": { description: "The turn this stream belongs to.", schema: { type: "string" } },
};
const UI_STREAM = {
  type: "string",
  description:
    "An AI SDK UI message stream (v1) as Server-Sent Events: every frame has `id: <n>` (its row in the " +
    "session's stream log) and `data: <UIMessageChunk JSON>` (start, start-step, text-*, reasoning-*, " +
    "tool-input-*, tool-output-*, tool-approval-request, tool-approval-response, data-*, finish-step, finish, " +
    "error, abort; the `UIMessageChunk` schema); the last frame is `data: [DONE]`. Reconnect with `Last-Event-ID` " +
    "to get exactly the frames after it, one turn per stream: a resume inside a turn older than the newest ends " +
    "with `[DONE]` at that turn's last frame, and a reconnect with that id gets the next turn. A stream that has sent nothing for a while (15 s by default) gets a " +
    "keep-alive comment, `: ping`, which has no id and which SSE parsers skip.",
};
/**
 * One event of the stream, in the shape of OpenAPI 3.2's `itemSchema` for `text/event-stream` (an extension
 * here: the document is 3.1, which has no way to describe a stream's items; rename it when moving to 3.2).
 */
const UI_STREAM_ITEM = {
  type: "object",
  required: ["id", "data"],
  properties: {
    id: { type: "string", description: "The frame's row in the stream log (`[DONE]` repeats the last one)." },
    data: {
      anyOf: [
        { type: "string", contentMediaType: "application/json", contentSchema: ref("UIMessageChunk") },
        { const: "[DONE]" },
      ],
    },
  },
};
const uiStream = { schema: UI_STREAM, "x-itemSchema": UI_STREAM_ITEM };
/** A turn's answer, a UI message stream or its JSON result; `byAccept`: the Accept header chooses which. */
export const turnResponse = (description: string, byAccept = true) => ({
  description: byAccept
    ? `${description}. SSE (default) or, with \`Accept: application/json\`, the turn result once it ends.`
    : description,
  headers: uiStreamHeaders,
  content: {
    "text/event-stream": uiStream,
    "application/json": { schema: ref("TurnResult") },
  },
});
export const streamResponse = (description: string) => ({
  description,
  headers: uiStreamHeaders,
  content: { "text/event-stream": uiStream },
});
