// An answer checked as a client reads it (test/helpers/checked-answer.ts): a JSON body at once, a UI message stream
// frame by frame as it is read (erroring at the first frame the document does not give, and reporting it), and the
// web client's pages not at all.
import { describe, expect, it } from "vitest";
import { OPENAPI } from "../../../src/http/openapi";
import { checkedAnswer } from "../../helpers/checked-answer.ts";
import { dereferenced } from "../../helpers/conformance.ts";

const doc = dereferenced(JSON.parse(JSON.stringify(OPENAPI)));
const at = (path: string) => `http://sb.test${path}`;

/** A UI message stream answer whose body is `frames` (one chunk each). */
function uiStream(frames: string[]): Response {
  const bytes = frames.map((f) => new TextEncoder().encode(f));
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const b of bytes) controller.enqueue(b);
      controller.close();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "x-vercel-ai-ui-message-stream": "v1" },
  });
}

describe("checkedAnswer", () => {
  it("throws at once for a JSON body the document does not give", async () => {
    const res = Response.json({ id: 42 }, { status: 200 });
    await expect(checkedAnswer(doc, "GET", at("/v1/sessions/s1"), res)).rejects.toThrow(/does not match the document/);
  });

  it("leaves a JSON answer that matches readable", async () => {
    const res = Response.json({ error: { code: "not_found", message: "none" } }, { status: 404 });
    const checked = await checkedAnswer(doc, "GET", at("/v1/sessions/s1"), res);
    expect(await checked.json()).toEqual({ error: { code: "not_found", message: "none" } });
  });

  it("reads a stream whose frames match through unchanged", async () => {
    const frames = ['id: 1\ndata: {"type":"start"}\n\n', ": ping\n\n", 'id: 2\ndata: {"type":"fin', 'ish"}\n\n'];
    const checked = await checkedAnswer(doc, "POST", at("/v1/sessions/s1/messages"), uiStream(frames));
    expect(await checked.text()).toBe(frames.join(""));
  });

  it("errors a stream at the first frame the document does not give, and reports it", async () => {
    const reported: Error[] = [];
    const frames = ['id: 1\ndata: {"type":"start"}\n\n', 'id: 2\ndata: {"type":"text-delta"}\n\n'];
    const checked = await checkedAnswer(doc, "POST", at("/v1/sessions/s1/messages"), uiStream(frames), (e) =>
      reported.push(e),
    );
    await expect(checked.text()).rejects.toThrow(/a frame of \/v1\/sessions\/s1\/messages does not match/);
    expect(reported.map((e) => e.message)).toEqual([expect.stringMatching(/does not match the document/)]);
  });

  it("does not check the web client's pages", async () => {
    const page = new Response("<html></html>", { headers: { "content-type": "text/html" } });
    expect(await checkedAnswer(doc, "GET", at("/chat/s1"), page)).toBe(page);
  });
});
