/**
 * The Workers tests' `api` (helpers.ts) checks every answer against the OpenAPI document, as the e2e client does:
 * an answer the document does not give fails the test, a stream's frames included, unless the request says why it
 * wants one; the web client's pages are not the API's and are not checked.
 */
import { afterEach, describe, expect, it } from "vitest";
import { StreamLog } from "../../src/session/stream/stream-log";
import type { UiChunk } from "../../src/session/stream/ui-chunks";
import { api, patch, readRest, restorePatches, script, setup } from "./helpers";

afterEach(restorePatches);

describe("api", () => {
  it("fails on an answer the document does not give", async () => {
    await expect(api("/v1/nowhere")).rejects.toThrow(/not in the OpenAPI document: no documented path/);
  });

  it("takes an undocumented answer from a request that says why it wants one", async () => {
    const res = await api("/v1/nowhere", { undocumented: "no such route: its 404 is the point" });
    expect(res.status).toBe(404);
  });

  it("does not check the web client's pages", async () => {
    const res = await api("/settings");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("web client: GET /settings");
  });

  // `fails`: this test must fail, though nothing in it does: a test whose stream has a frame the document does not
  // give fails even when it swallows the stream's error (readRest answers "dropped" for any).
  it.fails("fails a test whose stream has a frame the document does not give, though it swallows the error", async () => {
    const append = StreamLog.prototype.append;
    patch(StreamLog.prototype, "append", function (this: StreamLog, turnId: string, chunks: UiChunk[]) {
      const broken = chunks.map((c) => (c.type === "text-delta" ? { ...c, delta: 42 as unknown as string } : c));
      append.call(this, turnId, broken);
    });
    const s = await setup();
    await script(s.model, [{ reply: { text: "Hello." } }]);
    const res = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "hi" },
    });
    expect(res.status).toBe(200);
    await readRest((res.body as ReadableStream<Uint8Array>).getReader());
  });
});
