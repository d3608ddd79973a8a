// The mock server's control side (mock/control.ts): recorded requests, per-model script queues, reset, /healthz,
// the cap on records, and close() ending stalled streams.
import { describe, expect, it } from "vitest";
import { MAX_RECORDS_PER_MODEL, MockState } from "../../../mock/control.ts";
import { startMock } from "../../../mock/server.ts";
import {
  anthropicRequest,
  mockPerFile,
  openaiRequest,
  parseSse,
  postAnthropic,
  postOpenAI,
  script,
} from "./helpers.ts";

const mock = mockPerFile();

const getJson = async (path: string) => (await fetch(`${mock.url}${path}`)).json();
const textOf = (sse: string): string =>
  parseSse(sse)
    .map((e) => JSON.parse(e.data))
    .filter((d) => d.delta?.type === "text_delta")
    .map((d) => d.delta.text)
    .join("");

describe("recording and scripting", () => {
  it("records exact raw bodies, redacted headers and rejections; a rejected request does not pop the queue", async () => {
    await script(mock.url, "c-rec", [{ reply: { text: "scripted answer" } }]);
    const badRaw = JSON.stringify(
      anthropicRequest("c-rec", {
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "x", input: {} }] },
        ],
      }),
    );
    expect((await postAnthropic(mock.url, badRaw)).status).toBe(400);
    const goodRaw = `{ "model": "c-rec",\n  "max_tokens": 5, "stream": true, "messages": [{"role":"user","content":"hi"}] }`;
    const res = await postAnthropic(mock.url, goodRaw);
    expect(textOf(await res.text())).toBe("scripted answer");
    const { requests } = await getJson("/_mock/requests?model=c-rec");
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({
      protocol: "anthropic",
      path: "/v1/messages",
      raw: badRaw,
      rejected: { status: 400 },
    });
    expect(requests[0].rejected.message).toMatch(/^messages\.1: `tool_use` ids were found/);
    expect(requests[1]).toMatchObject({ raw: goodRaw, rejected: null, body: JSON.parse(goodRaw) });
    expect(requests[1].seq).toBeGreaterThan(requests[0].seq);
    expect(requests[1].headers["x-api-key"]).toBe("[redacted]");
    expect(requests[1].headers["anthropic-version"]).toBe("2023-06-01");
    expect(typeof requests[1].at).toBe("string");
    const stats = await getJson("/_mock/stats?model=c-rec");
    expect(stats.model).toEqual({
      name: "c-rec",
      requests: 2,
      rejected: 1,
      rejected_p: 1,
      overflow: 0,
      summaries: 0,
      compactions: 0,
      queued: 0,
    });
    expect(stats.requests).toBeGreaterThanOrEqual(2);
  });

  it("keys queues by model so parallel agents do not collide", async () => {
    await script(mock.url, "c-one", [{ reply: { text: "one" } }]);
    await script(mock.url, "c-two", [{ reply: { text: "two" } }]);
    const [a, b] = await Promise.all([
      postAnthropic(mock.url, anthropicRequest("c-two")).then((r) => r.text()),
      postAnthropic(mock.url, anthropicRequest("c-one")).then((r) => r.text()),
    ]);
    expect(textOf(a)).toBe("two");
    expect(textOf(b)).toBe("one");
  });

  it("pops steps in order and falls back to the default brain when empty", async () => {
    await script(mock.url, "c-order", [{ reply: { text: "first" } }, { reply: { text: "second" } }]);
    const texts = [];
    for (let i = 0; i < 3; i++)
      texts.push(textOf(await (await postAnthropic(mock.url, anthropicRequest("c-order"))).text()));
    expect(texts).toEqual(["first", "second", "You said: Hello"]);
  });

  it("reset clears one model's queue and records, or everything", async () => {
    await script(mock.url, "c-reset", [{ reply: { text: "never" } }]);
    await postOpenAI(mock.url, openaiRequest("c-reset-other"));
    await fetch(`${mock.url}/_mock/reset`, { method: "POST", body: JSON.stringify({ model: "c-reset" }) });
    expect((await getJson("/_mock/stats?model=c-reset")).model.queued).toBe(0);
    expect((await getJson("/_mock/requests?model=c-reset-other")).requests).toHaveLength(1);
    await fetch(`${mock.url}/_mock/reset`, { method: "POST" });
    expect(await getJson("/_mock/stats")).toEqual({
      requests: 0,
      rejected: 0,
      rejected_p: 0,
      overflow: 0,
      summaries: 0,
      compactions: 0,
    });
    expect((await getJson("/_mock/requests")).requests).toEqual([]);
  });

  it("rejects malformed scripts", async () => {
    const res = await fetch(`${mock.url}/_mock/script`, {
      method: "POST",
      body: JSON.stringify({ model: "x", steps: [{ reply: {}, error: { status: 500 } }] }),
    });
    expect(res.status).toBe(400);
  });

  it("serves /healthz and 404s unknown paths", async () => {
    expect(await getJson("/healthz")).toEqual({ ok: true });
    expect((await fetch(`${mock.url}/v1/v1/chat/completions`, { method: "POST" })).status).toBe(404);
  });

  it("keeps at most MAX_RECORDS_PER_MODEL records per model", () => {
    const state = new MockState();
    for (let i = 0; i < MAX_RECORDS_PER_MODEL + 5; i++) {
      state.record(
        { protocol: "openai", path: "/", model: "m", headers: {}, body: null, raw: String(i), rejected: null },
        null,
      );
    }
    const records = state.requests("m");
    expect(records).toHaveLength(MAX_RECORDS_PER_MODEL);
    expect(records[0]!.raw).toBe("5");
    expect(state.stats("m").model).toMatchObject({ requests: MAX_RECORDS_PER_MODEL + 5 });
  });

  it("close() ends stalled streams", async () => {
    const other = await startMock();
    await script(other.url, "c-stall", [{ reply: { text: "x" }, faults: { stall_after_events: 1 } }]);
    const res = await postAnthropic(other.url, anthropicRequest("c-stall"));
    const reading = res.text().then(
      () => "ended",
      () => "error",
    );
    await other.close();
    expect(await reading).toBe("error");
  });
});
