// readSse and its watchdog (src/providers/sse.ts) under an adapter: events split across chunks, a stalled, slow or
// too long body (the idle window, the step deadline), and cancellation by an abort signal or by a consumer that stops
// reading.
import { afterEach, describe, expect, it, vi } from "vitest";
import { anthropic } from "../../../src/providers/anthropic";
import { KEEP_ALIVE_WINDOWS, readSse, type SseProgress } from "../../../src/providers/sse";
import { ProviderFailure } from "../../../src/providers/types";
import {
  bodyStream,
  collect,
  FAST_POLICY,
  fixture,
  jsonResponse,
  type Outcome,
  request,
  run,
  scriptedFetch,
  sseResponse,
} from "./helpers";

const text = fixture("anthropic-stream-text.sse");
const afterFirstEvent = new TextDecoder().decode(text).indexOf("event: content_block_start");

afterEach(() => {
  vi.useRealTimers();
});

/** Limits with an idle window of `windowMs` and a step deadline of `deadlineMs` (a minute unless given). */
const limits = (windowMs: number, deadlineMs = 60_000) => ({ idleTimeoutMs: windowMs, stepTimeoutMs: deadlineMs });

/**
 * Reads, on fake timers, a body that sends `frames` one every `everyMs` (the first at once) and then ends, under an
 * idle window of `windowMs` and a step deadline of `deadlineMs`: the data of the events read, and the failure the
 * read ended with.
 */
async function readPaced(
  frames: string[],
  everyMs: number,
  windowMs: number,
  deadlineMs?: number,
): Promise<{ seen: string[]; failure: unknown }> {
  vi.useFakeTimers();
  const encoder = new TextEncoder();
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent > 0) await new Promise((resolve) => setTimeout(resolve, everyMs));
      if (sent === frames.length) return controller.close();
      controller.enqueue(encoder.encode(frames[sent++]));
    },
  });
  const seen: string[] = [];
  let failure: unknown;
  const reading = (async () => {
    const events = readSse(body, limits(windowMs, deadlineMs), new AbortController().signal, { bytes: 0 });
    for await (const e of events) seen.push(e.data);
  })().catch((err: unknown) => {
    failure = err;
  });
  await vi.runAllTimersAsync();
  await reading;
  return { seen, failure };
}

describe("readSse", () => {
  it("counts bytes and drops an unterminated last event", async () => {
    const bytes = new TextEncoder().encode(": c\n\ndata: one\n\ndata: two");
    const progress: SseProgress = { bytes: 0 };
    const seen: string[] = [];
    const body = bodyStream(bytes, { chunkSize: 3 });
    for await (const e of readSse(body, limits(1000), new AbortController().signal, progress)) {
      seen.push(e.data);
    }
    expect(seen).toEqual(["one"]);
    expect(progress.bytes).toBe(bytes.length);
  });

  it("decodes multi-byte characters split across chunks", async () => {
    const bytes = new TextEncoder().encode('data: {"t":"héllo ☃ 🎉"}\n\n');
    const seen: string[] = [];
    const progress: SseProgress = { bytes: 0 };
    const body = bodyStream(bytes, { chunkSize: 1 });
    for await (const e of readSse(body, limits(1000), new AbortController().signal, progress)) {
      seen.push(e.data);
    }
    expect(seen).toEqual(['{"t":"héllo ☃ 🎉"}']);
  });
});

describe("idle watchdog", () => {
  it("fires on a stalled body, after yielding what arrived, and cancels the body", async () => {
    vi.useFakeTimers();
    let cancelled = false;
    const policy = { ...FAST_POLICY, idleTimeoutMs: 30 };
    const fetch = scriptedFetch([
      () => sseResponse(text, { cutAt: afterFirstEvent, ending: "stall", onCancel: () => (cancelled = true) }),
    ]);
    let outcome: Outcome | undefined;
    void run(anthropic, fetch, policy).then((o) => (outcome = o));
    await vi.advanceTimersByTimeAsync(policy.idleTimeoutMs);
    expect(outcome, "ended once the idle window passed").toBeDefined();
    expect(outcome?.events.map((e) => e.type)).toEqual(["message_start", "usage"]);
    expect(outcome?.failure?.error).toMatchObject({ code: "provider_idle_timeout", retryable: true });
    expect(cancelled).toBe(true);
    expect(fetch.calls).toHaveLength(1);
  });

  it("measures the window from the latest event: a slow but steady body never times out", async () => {
    // An event every 15 ms, 120 ms in all: three times the 40 ms window, never 40 ms without one.
    const frames = Array.from({ length: 8 }, (_, i) => `data: ${i}\n\n`);
    const { seen, failure } = await readPaced(frames, 15, 40);
    expect(failure).toBeUndefined();
    expect(seen).toEqual(["0", "1", "2", "3", "4", "5", "6", "7"]);
  });

  /** A ping or an SSE comment, alternately: `n` keep-alives. */
  const keepAlives = (n: number) =>
    Array.from({ length: n }, (_, i) => (i % 2 ? ": keep-alive\n\n" : 'event: ping\ndata: {"type": "ping"}\n\n'));

  it("ends a stream of keep-alives alone with provider_idle_timeout once they outlast their allowance", async () => {
    // One real event, then a keep-alive every 15 ms for 450 ms (a gateway keeping a stuck upstream open): never
    // 40 ms without a chunk, but past the 10 × 40 ms keep-alives may hold the stream without another event.
    const { failure } = await readPaced(["data: real\n\n", ...keepAlives(30)], 15, 40);
    expect(KEEP_ALIVE_WINDOWS * 40).toBeLessThan(30 * 15);
    expect(failure).toBeInstanceOf(ProviderFailure);
    expect((failure as ProviderFailure).error).toMatchObject({ code: "provider_idle_timeout", retryable: true });
    expect((failure as ProviderFailure).message).toContain("nothing but keep-alives");
  });

  it("keeps a stream open through keep-alives within their allowance (a long prefill, a server-side compaction)", async () => {
    // A keep-alive every 15 ms for 150 ms, then the answer: longer than one 40 ms window, within ten.
    const { seen, failure } = await readPaced(["data: start\n\n", ...keepAlives(10), "data: answer\n\n"], 15, 40);
    expect(failure).toBeUndefined();
    expect(seen.filter((d) => !d.includes("ping"))).toEqual(["start", "answer"]);
  });

  it("a body that stalls before its first byte is retried like a failed connect", async () => {
    const policy = { ...FAST_POLICY, idleTimeoutMs: 20, maxAttempts: 2 };
    const fetch = scriptedFetch([() => sseResponse(text, { cutAt: 0, ending: "stall" }), () => sseResponse(text)]);
    const { events, failure } = await run(anthropic, fetch, policy);
    expect(failure).toBeUndefined();
    expect(events[0]).toMatchObject({ type: "retry", attempt: 1, reason: "empty_body" });
  });
});

describe("step deadline", () => {
  it("ends a slow but steady stream with provider_step_timeout, not retryable, at the step deadline", async () => {
    // A real event every 15 ms for 300 ms: never 40 ms without one, but past the 100 ms deadline.
    const frames = Array.from({ length: 20 }, (_, i) => `data: ${i}\n\n`);
    const { seen, failure } = await readPaced(frames, 15, 40, 100);
    expect(failure).toBeInstanceOf(ProviderFailure);
    expect((failure as ProviderFailure).error).toMatchObject({ code: "provider_step_timeout", retryable: false });
    // What arrived before the deadline was yielded (events at 0, 15, … 90 ms), nothing after it.
    expect(seen).toEqual(["0", "1", "2", "3", "4", "5", "6"]);
  });
});

describe("cancellation", () => {
  it("an abort while streaming ends the step with code aborted", async () => {
    const controller = new AbortController();
    const fetch = scriptedFetch([() => sseResponse(text, { cutAt: afterFirstEvent, ending: "stall" })]);
    setTimeout(() => controller.abort(), 20);
    const { failure } = await run(anthropic, fetch, { ...FAST_POLICY, idleTimeoutMs: 5_000 }, controller.signal);
    expect(failure?.error).toMatchObject({ code: "aborted", retryable: false });
  });

  it("a consumer that stops early releases the connection", async () => {
    let cancelled = false;
    const fetch = scriptedFetch([
      () => sseResponse(text, { cutAt: afterFirstEvent, ending: "stall", onCancel: () => (cancelled = true) }),
    ]);
    const endpoint = { baseUrl: "https://p.test", apiKey: "k", fetch };
    const gen = anthropic.stream(request("anthropic"), endpoint, FAST_POLICY, new AbortController().signal);
    const first = await gen.next();
    expect(first.value).toMatchObject({ type: "message_start" });
    await gen.return();
    await new Promise((r) => setTimeout(r, 0));
    // The body's cancel releases it; the request, answered already, is not aborted on top of that.
    expect(cancelled).toBe(true);
  });

  it("a consumer that stops at a retry notice of a later attempt stops the retries", async () => {
    // Attempt 1 answers an empty body (retried as empty_body); attempt 2 is refused with 529 and retried
    // inside fetchWithRetry, whose notice the consumer stops at: the request in flight must be aborted.
    const fetch = scriptedFetch([
      () => sseResponse(text, { cutAt: 0, ending: "eof" }),
      () => jsonResponse(529, { type: "error", error: { type: "overloaded_error", message: "busy" } }),
    ]);
    const endpoint = { baseUrl: "https://p.test", apiKey: "k", fetch };
    const policy = { ...FAST_POLICY, baseDelayMs: 20, maxDelayMs: 20 };
    const gen = anthropic.stream(request("anthropic"), endpoint, policy, new AbortController().signal);
    expect((await gen.next()).value).toMatchObject({ type: "retry", attempt: 1, reason: "empty_body" });
    expect((await gen.next()).value).toMatchObject({ type: "retry", attempt: 2, status: 529 });
    await gen.return();
    await new Promise((r) => setTimeout(r, 60));
    expect(fetch.calls).toHaveLength(2);
  });

  it("an already aborted signal sends nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    const fetch = scriptedFetch([() => sseResponse(text)]);
    const { failure } = await collect(
      anthropic.stream(
        request("anthropic"),
        { baseUrl: "https://p.test", apiKey: "", fetch },
        FAST_POLICY,
        controller.signal,
      ),
    );
    expect(failure).toBeInstanceOf(ProviderFailure);
    expect(failure?.error.code).toBe("aborted");
    expect(fetch.calls).toHaveLength(0);
  });
});
