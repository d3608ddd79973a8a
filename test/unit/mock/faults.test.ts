// The mock server's scripted faults (mock/faults.ts): cuts, HTTP errors, malformed frames and in-stream errors as a
// client reads them over HTTP; stalls and delays by when each frame is written, on a fake clock.
import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { anthropicCodec } from "../../../mock/anthropic.ts";
import { MockState } from "../../../mock/control.ts";
import { type WritePlan, writeWithFaults } from "../../../mock/faults.ts";
import { handleProvider } from "../../../mock/respond.ts";
import type { Faults } from "../../../mock/types.ts";
import {
  anthropicHeaders,
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
const RAW_FRAMES = RAW.split(/(?<=\n\n)/).filter((f) => f.length > 0);

afterEach(() => {
  vi.useRealTimers();
});

/**
 * A ServerResponse stand-in that notes when, on the fake clock (ms since it was made), the headers, each frame
 * and the end went out.
 */
function recordingResponse(): { res: ServerResponse; sentAt: () => number[] } {
  const start = Date.now();
  const at: number[] = [];
  const note = () => at.push(Date.now() - start);
  const res = {
    destroyed: false,
    on: () => res,
    writeHead: () => {
      note();
      return res;
    },
    flushHeaders: () => undefined,
    write: (_chunk: Buffer, done: () => void) => {
      note();
      done();
      return true;
    },
    end: () => {
      note();
      return res;
    },
  };
  return { res: res as unknown as ServerResponse, sentAt: () => [...at] };
}

/** RAW_FRAMES written with `faults` on the fake clock: when the headers, each of the six frames and the end went out. */
async function writeTimes(faults: Faults): Promise<number[]> {
  vi.useFakeTimers();
  const { res, sentAt } = recordingResponse();
  const plan: WritePlan = { status: 200, headers: {}, frames: RAW_FRAMES, faults, extraDelayMs: 0, malformedFrame: "" };
  const outcome = writeWithFaults(res, plan);
  await vi.runAllTimersAsync();
  expect(await outcome).toBe("complete");
  return sentAt();
}

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
    const times = await writeTimes({ stall_after_events: 1, stall_ms: 250 });
    // The headers and the first frame at once; the other five and the end after the stall.
    expect(times).toEqual([0, 0, 250, 250, 250, 250, 250, 250]);
  });

  it("stall_before_ms delays the response headers", async () => {
    const times = await writeTimes({ stall_before_ms: 200 });
    expect(times).toEqual([200, 200, 200, 200, 200, 200, 200, 200]);
  });

  it("event_delay_ms delays every frame after the first", async () => {
    const times = await writeTimes({ event_delay_ms: 40 });
    expect(times).toEqual([0, 0, 40, 80, 120, 160, 200, 200]);
  });

  it("a mock-slow model's answer waits 20 ms before every frame after the first", async () => {
    vi.useFakeTimers();
    const state = new MockState();
    state.enqueue("mock-slow-faults", [{ raw: RAW }]);
    const { res, sentAt } = recordingResponse();
    const req = { headers: anthropicHeaders } as never;
    const raw = JSON.stringify(anthropicRequest("mock-slow-faults"));
    const answered = handleProvider(anthropicCodec, state, req, res, "/v1/messages", raw, false);
    await vi.runAllTimersAsync();
    await answered;
    expect(sentAt()).toEqual([0, 0, 20, 40, 60, 80, 100, 100]);
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
