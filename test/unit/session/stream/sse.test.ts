// The session's SSE framing (sse.ts): frame writers, the keep-alive, headers, and `parseSseFrames` checked against
// eventsource-parser.
import { EventSourceParserStream } from "eventsource-parser/stream";
import { describe, expect, it } from "vitest";
import { parseSseFrames, SSE_PING, sseFrame, UI_STREAM_HEADERS } from "../../../../src/session/stream/sse";
import { encodeAll, toSse } from "./assemble";
import { FULL_TURN } from "./fixtures";

async function parseWithEventsourceParser(text: string): Promise<Array<{ id: string | undefined; data: string }>> {
  const events: Array<{ id: string | undefined; data: string }> = [];
  const stream = new ReadableStream<string>({
    start(controller) {
      controller.enqueue(text);
      controller.close();
    },
  }).pipeThrough(new EventSourceParserStream());
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return events;
    events.push({ id: value.id, data: value.data });
  }
}

describe("sse", () => {
  it("frames a chunk as id + one data line", () => {
    expect(sseFrame(7, { type: "text-delta", id: "a", delta: "x\ny\r\n" })).toBe(
      'id: 7\ndata: {"type":"text-delta","id":"a","delta":"x\\ny\\r\\n"}\n\n',
    );
  });

  it("sends the headers the AI SDK and proxies need", () => {
    expect(UI_STREAM_HEADERS).toEqual({
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "x-vercel-ai-ui-message-stream": "v1",
      "x-accel-buffering": "no",
    });
  });

  it("parseSseFrames agrees with eventsource-parser on a full turn", async () => {
    const sse = toSse(encodeAll(FULL_TURN));
    const ours = parseSseFrames(sse);
    const theirs = await parseWithEventsourceParser(sse);
    expect(ours.map((f) => ({ id: f.id === null ? undefined : String(f.id), data: f.data }))).toEqual(theirs);
  });

  it("ends a response with [DONE] under the id of its last frame, as an SSE client reads it", async () => {
    const chunks = encodeAll(FULL_TURN);
    const events = await parseWithEventsourceParser(toSse(chunks));
    expect(events.at(-1)).toEqual({ id: String(chunks.length), data: "[DONE]" });
  });

  it("parses the AI SDK's own fixture stream, skipping comments", () => {
    const text = [
      ": source: test",
      'data: {"type":"start"}',
      "",
      'data: {"type":"finish","finishReason":"stop"}',
      "",
      "data: [DONE]",
      "",
      "",
    ].join("\n");
    expect(parseSseFrames(text)).toEqual([
      { id: null, data: '{"type":"start"}' },
      { id: null, data: '{"type":"finish","finishReason":"stop"}' },
      { id: null, data: "[DONE]" },
    ]);
  });

  it("a keep-alive between frames is no event to either parser: the events and their ids are the frames'", async () => {
    const sse = toSse(encodeAll(FULL_TURN));
    const cut = sse.indexOf("\n\n") + 2;
    const pinged = `${SSE_PING}${sse.slice(0, cut)}${SSE_PING}${SSE_PING}${sse.slice(cut)}`;
    expect(parseSseFrames(pinged)).toEqual(parseSseFrames(sse));
    expect(await parseWithEventsourceParser(pinged)).toEqual(await parseWithEventsourceParser(sse));
  });

  it("handles CRLF, multi-line data, id-only events and an unterminated tail", () => {
    const text = "id: 1\r\ndata: a\r\ndata: b\r\n\r\nid: 2\n\n:comment\ndata:c\n\nid: 3\ndata: cut";
    expect(parseSseFrames(text)).toEqual([
      { id: 1, data: "a\nb" },
      { id: null, data: "c" },
    ]);
  });
});
