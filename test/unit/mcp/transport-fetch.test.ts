// The MCP transport's fetch (src/mcp/transport-fetch.ts) on SSE answers it is handed (the global fetch stubbed): an
// answer that carried the request's response is passed on as sent, and one that ended with only another request's
// response in it gets an error for its own request. How a turn fares when a real server drops the answer is in
// test/workers/mcp/transport-fetch.test.ts.
import { afterEach, describe, expect, it, vi } from "vitest";
import { ANSWER_DROPPED } from "../../../src/mcp/convert";
import { transportFetch } from "../../../src/mcp/transport-fetch";

afterEach(() => {
  vi.unstubAllGlobals();
});

/** The text of the answer transportFetch gives to a tools/call with `id` that the server answered with `sse`. */
async function passedOn(id: number, sse: string[]): Promise<string> {
  vi.stubGlobal("fetch", async () => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of sse) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  const request = JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "t", arguments: {} } });
  const res = await transportFetch("https://mcp.example.com/mcp", { method: "POST", body: request });
  return res.text();
}

describe("transportFetch on an SSE answer", () => {
  it("passes on as sent an answer that carried the request's response, in events split across chunks", async () => {
    const sse = [
      'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\n',
      'event: message\ndata: {"jsonrpc":"2.0","id":7,"res',
      'ult":{"content":[{"type":"text","text":"done"}]}}\n\n',
    ];
    expect(await passedOn(7, sse)).toBe(sse.join(""));
  });

  it("ends an answer that carried only another request's response with an error for its own request", async () => {
    const other = 'event: message\ndata: {"jsonrpc":"2.0","id":8,"result":{"content":[]}}\n\n';
    const text = await passedOn(7, [other]);
    expect(text.startsWith(other)).toBe(true);
    const data = text.slice(other.length).match(/^\n\nevent: message\ndata: (.*)\n\n$/)?.[1];
    expect(JSON.parse(String(data))).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: ANSWER_DROPPED } });
  });
});
