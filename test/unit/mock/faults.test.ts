import { describe, expect, it } from "vitest";
import {
  anthropicRequest,
  mockPerFile,
  openaiRequest,
  parseSse,
  postAnthropic,
  postOpenAI,
  readAll,
  script,
} from "./helpers.ts";

const mock = mockPerFile();

const RAW = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello ünïcode"}}\n\n',
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
].join("");
const RAW_BYTES = new TextEncoder().encode(RAW);

describe("cuts", () => {
  it("raw body passes through byte-exactly without faults", async () => {
    await script(mock.url, "f-raw", [{ raw: RAW }]);
    const res = await postAnthropic(mock.url, anthropicRequest("f-raw"));
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const { bytes, error } = await readAll(res);
    expect(error).toBeNull();
    expect(bytes).toEqual(RAW_BYTES);
  });

  it("cut_after_bytes delivers exactly N bytes, then the reader errors (TypeError: terminated)", async () => {
    for (const n of [0, 1, 100, 333, RAW_BYTES.length - 1]) {
      await script(mock.url, "f-cut", [{ raw: RAW, faults: { cut_after_bytes: n } }]);
      const res = await postAnthropic(mock.url, anthropicRequest("f-cut"));
      expect(res.status).toBe(200);
      const { bytes, error } = await readAll(res);
      expect(bytes.length).toBe(n);
      expect(bytes).toEqual(RAW_BYTES.subarray(0, n));
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe("terminated");
    }
  });

  it("cut_after_bytes applies to scripted replies too", async () => {
    await script(mock.url, "f-cut-reply", [
      { reply: { text: "one two three four five" }, faults: { cut_after_bytes: 250 } },
    ]);
    const { bytes, error } = await readAll(await postAnthropic(mock.url, anthropicRequest("f-cut-reply")));
    expect(bytes.length).toBe(250);
    expect(error).toBeInstanceOf(TypeError);
  });

  it("cut_after_events delivers K complete frames then errors", async () => {
    await script(mock.url, "f-cut-ev", [{ raw: RAW, faults: { cut_after_events: 3 } }]);
    const { bytes, error } = await readAll(await postAnthropic(mock.url, anthropicRequest("f-cut-ev")));
    const text = new TextDecoder().decode(bytes);
    expect(parseSse(text).map((e) => e.event)).toEqual(["message_start", "content_block_start", "content_block_delta"]);
    expect(text.endsWith("\n\n")).toBe(true);
    expect(error).toBeInstanceOf(TypeError);
  });

  it("cuts OpenAI streams the same way", async () => {
    await script(mock.url, "f-cut-oa", [{ reply: { text: "a b c d e f" }, faults: { cut_after_events: 2 } }]);
    const { bytes, error } = await readAll(await postOpenAI(mock.url, openaiRequest("f-cut-oa")));
    expect(parseSse(new TextDecoder().decode(bytes))).toHaveLength(2);
    expect(error).toBeInstanceOf(TypeError);
  });
});

describe("HTTP errors", () => {
  it("429 with retry-after in Anthropic's shape, and the step is consumed", async () => {
    await script(mock.url, "f-429", [{ error: { status: 429, retry_after: 7 } }]);
    const res = await postAnthropic(mock.url, anthropicRequest("f-429"));
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    const body = await res.json();
    expect(body).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    expect(body.request_id).toMatch(/^req_/);
    expect((await postAnthropic(mock.url, anthropicRequest("f-429"))).status).toBe(200);
  });

  it("529 uses overloaded_error", async () => {
    await script(mock.url, "f-529", [{ error: { status: 529 } }]);
    const res = await postAnthropic(mock.url, anthropicRequest("f-529"));
    expect(res.status).toBe(529);
    expect((await res.json()).error).toEqual({ type: "overloaded_error", message: "Overloaded" });
  });

  it("429 in OpenAI's shape", async () => {
    await script(mock.url, "f-429-oa", [{ error: { status: 429, message: "slow down", retry_after: 2 } }]);
    const res = await postOpenAI(mock.url, openaiRequest("f-429-oa"));
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("2");
    expect(await res.json()).toEqual({
      error: { message: "slow down", type: "requests", param: null, code: "rate_limit_exceeded" },
    });
  });
});

describe("stalls", () => {
  it("stall without stall_ms holds the stream until the client gives up", async () => {
    await script(mock.url, "f-stall", [{ raw: RAW, faults: { stall_after_events: 2 } }]);
    const abort = new AbortController();
    const res = await postAnthropic(mock.url, anthropicRequest("f-stall"), { signal: abort.signal });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (parseSse(text).length < 2 || !text.endsWith("\n\n")) {
      const { value } = await reader.read();
      text += decoder.decode(value);
    }
    expect(parseSse(text)).toHaveLength(2);
    const next = reader.read().then(
      () => "data" as const,
      () => "error" as const,
    );
    const winner = await Promise.race([next, new Promise((r) => setTimeout(() => r("idle"), 300))]);
    expect(winner).toBe("idle");
    abort.abort();
    expect(await next).toBe("error");
    // the server is still healthy afterwards
    expect((await fetch(`${mock.url}/healthz`)).status).toBe(200);
  });

  it("stall_ms pauses then completes", async () => {
    await script(mock.url, "f-stall-ms", [{ raw: RAW, faults: { stall_after_events: 1, stall_ms: 250 } }]);
    const started = Date.now();
    const { bytes, error } = await readAll(await postAnthropic(mock.url, anthropicRequest("f-stall-ms")));
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    expect(error).toBeNull();
    expect(bytes).toEqual(RAW_BYTES);
  });

  it("stall_before_ms delays the response headers", async () => {
    await script(mock.url, "f-stall-before", [{ reply: { text: "x" }, faults: { stall_before_ms: 200 } }]);
    const started = Date.now();
    const res = await postAnthropic(mock.url, anthropicRequest("f-stall-before"));
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    await res.text();
  });

  it("event_delay_ms and mock-slow models slow every frame", async () => {
    await script(mock.url, "f-delay", [{ raw: RAW, faults: { event_delay_ms: 40 } }]);
    let started = Date.now();
    await (await postAnthropic(mock.url, anthropicRequest("f-delay"))).text();
    expect(Date.now() - started).toBeGreaterThanOrEqual(5 * 40 - 10);
    await script(mock.url, "mock-slow-1", [{ raw: RAW }]);
    started = Date.now();
    await (await postAnthropic(mock.url, anthropicRequest("mock-slow-1"))).text();
    expect(Date.now() - started).toBeGreaterThanOrEqual(5 * 20 - 10);
  });
});

describe("malformed frames and stream errors", () => {
  it("malformed_after_events inserts a frame whose data is not JSON", async () => {
    await script(mock.url, "f-bad", [{ raw: RAW, faults: { malformed_after_events: 2 } }]);
    const text = await (await postAnthropic(mock.url, anthropicRequest("f-bad"))).text();
    const events = parseSse(text);
    expect(events).toHaveLength(7);
    expect(events[2]).toMatchObject({ event: "content_block_delta", data: "{not json" });
    expect(() => JSON.parse(events[2]!.data)).toThrow();
  });

  it("malformed OpenAI chunk is a bare data line", async () => {
    await script(mock.url, "f-bad-oa", [{ reply: { text: "hi" }, faults: { malformed_after_events: 1 } }]);
    const text = await (await postOpenAI(mock.url, openaiRequest("f-bad-oa"))).text();
    expect(text).toContain("\n\ndata: {not json\n\n");
  });

  it("Anthropic stream_error sends event: error after K events and ends cleanly", async () => {
    await script(mock.url, "f-se", [{ stream_error: { after_events: 3 } }]);
    const { bytes, error } = await readAll(await postAnthropic(mock.url, anthropicRequest("f-se")));
    expect(error).toBeNull();
    const events = parseSse(new TextDecoder().decode(bytes));
    expect(events.map((e) => e.event)).toEqual(["message_start", "content_block_start", "ping", "error"]);
    expect(JSON.parse(events[3]!.data)).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    });
  });

  it("OpenAI stream_error sends an error chunk and no [DONE]", async () => {
    await script(mock.url, "f-se-oa", [{ stream_error: { after_events: 2, message: "boom" } }]);
    const text = await (await postOpenAI(mock.url, openaiRequest("f-se-oa"))).text();
    const events = parseSse(text);
    expect(events).toHaveLength(3);
    expect(JSON.parse(events[2]!.data)).toEqual({
      error: { message: "boom", type: "server_error", param: null, code: null },
    });
    expect(text).not.toContain("[DONE]");
  });
});
