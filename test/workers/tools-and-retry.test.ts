// HTTP tools in a turn (parallel calls, errors, timeouts, unknown tools), provider faults (retry, 400, idle stream,
// error event), and POST /retry.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { apiJson, events, history, mockRequests, pairingProblems, script, send, setup, type TurnJson } from "./helpers";

const httpTool = (name: string, query = "", timeout_ms?: number) => ({
  name,
  description: `http tool ${name}`,
  input_schema: { type: "object", properties: { q: { type: "string" } } },
  execution: { type: "http", url: `${env.MOCK_URL}/_tool${query}`, ...(timeout_ms ? { timeout_ms } : {}) },
});

describe("http tools", () => {
  it("runs parallel calls concurrently and stores results in tool_use order", async () => {
    const s = await setup({ tools: [httpTool("slow", "?delay_ms=300"), httpTool("fast", "?delay_ms=10")] });
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "toolu_slow", name: "slow", input: { q: "1" } },
            { id: "toolu_fast", name: "fast", input: { q: "2" } },
          ],
        },
      },
      { reply: { text: "Both done." } },
    ]);
    const res = await send(s, { content: "run both" });
    expect(res.body.status).toBe("completed");
    const msgs = await history(s);
    const results = msgs[2]?.parts ?? [];
    expect(results.map((p) => p.tool_use_id)).toEqual(["toolu_slow", "toolu_fast"]);
    expect(JSON.parse(String(results[0]?.content))).toMatchObject({
      echo: { tool_use_id: "toolu_slow", name: "slow", input: { q: "1" } },
    });
    // The fast call finished first although it was second: the calls ran concurrently.
    const executed = (await events(s)).filter((e) => e.type === "tool_executed").map((e) => e.data.tool_use_id);
    expect(executed).toEqual(["toolu_fast", "toolu_slow"]);
  });

  it("turns a non-2xx answer into an is_error result the model sees", async () => {
    const s = await setup({ tools: [httpTool("broken", "?status=503")] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_broken", name: "broken", input: {} }] } },
      { reply: { text: "It failed." } },
    ]);
    expect((await send(s, { content: "go" })).body.status).toBe("completed");
    const result = (await history(s))[2]?.parts[0];
    expect(result).toMatchObject({ type: "tool_result", tool_use_id: "toolu_broken", is_error: true });
    expect(String(result?.content)).toContain("HTTP 503");
  });

  it("turns a timeout into an is_error result", async () => {
    const s = await setup({ tools: [httpTool("sleepy", "?delay_ms=3000", 200)] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_sleepy", name: "sleepy", input: {} }] } },
      { reply: { text: "Timed out." } },
    ]);
    expect((await send(s, { content: "go" })).body.status).toBe("completed");
    const result = (await history(s))[2]?.parts[0];
    expect(result).toMatchObject({ is_error: true });
    expect(String(result?.content)).toContain("timed out after 200 ms");
  });

  it("answers a call to an unknown tool with an is_error result and a tool_call_invalid event", async () => {
    const s = await setup({ tools: [httpTool("real")] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_ghost", name: "ghost", input: {} }] } },
      { reply: { text: "Oops." } },
    ]);
    expect((await send(s, { content: "go" })).body.status).toBe("completed");
    expect((await history(s))[2]?.parts[0]).toMatchObject({ tool_use_id: "toolu_ghost", is_error: true });
    expect((await events(s)).map((e) => e.type)).toContain("tool_call_invalid");
  });
});

describe("provider faults", () => {
  it("retries a 429 before the first byte, honouring retry-after, and records provider_retry", async () => {
    const s = await setup();
    await script(s.model, [
      { error: { status: 429, retry_after: 0 } },
      { error: { status: 529 } },
      { reply: { text: "Finally." } },
    ]);
    const res = await send(s, { content: "hi" });
    expect(res.body.status).toBe("completed");
    expect((await events(s)).filter((e) => e.type === "provider_retry")).toHaveLength(2);
    expect(await mockRequests(s.model)).toHaveLength(3);
  });

  it("does not retry a 400; the turn fails with a typed, non-retryable error", async () => {
    const s = await setup();
    await script(s.model, [{ error: { status: 400, message: "bad thing" } }]);
    const res = await send(s, { content: "hi" });
    expect(res.body.status).toBe("failed");
    expect(res.body.error).toMatchObject({ code: "provider_http_error", retryable: false });
    expect(await mockRequests(s.model)).toHaveLength(1);
  });

  it("aborts a silent stream with the idle watchdog and keeps the session usable", async () => {
    const s = await setup();
    await script(s.model, [
      { reply: { text: "never finishes" }, faults: { stall_after_events: 3 } },
      { reply: { text: "ok" } },
    ]);
    const res = await send(s, { content: "hi" });
    expect(res.body.status).toBe("failed");
    expect(res.body.error?.code).toBe("provider_idle_timeout");
    expect((await send(s, { content: "again" })).body.status).toBe("completed");
    expect(pairingProblems(await history(s))).toEqual([]);
  });

  it("ends the step with a typed error on a mid-stream provider error event", async () => {
    const s = await setup();
    await script(s.model, [{ stream_error: { after_events: 4 } }]);
    const res = await send(s, { content: "hi" });
    expect(res.body.status).toBe("failed");
    expect(res.body.error?.code).toBe("provider_overloaded");
  });
});

describe("retry", () => {
  it("keeps the retried turn's max_steps instead of the agent's default", async () => {
    const s = await setup({ tools: [httpTool("lookup")] });
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_first", name: "lookup", input: { q: "1" } }] } },
      { reply: { tool_calls: [{ id: "toolu_again", name: "lookup", input: { q: "2" } }] } },
      { reply: { tool_calls: [{ id: "toolu_beyond", name: "lookup", input: { q: "3" } }] } },
    ]);
    const first = await send(s, { content: "look it up", max_steps: 1, json_schema: { type: "object" } });
    expect(first.body.error?.code).toBe("structured_output_missing");
    const retry = await apiJson<TurnJson>(`/v1/sessions/${s.session}/retry`, { method: "POST", key: s.key });
    expect(retry.body.error?.code).toBe("structured_output_missing");
    const started = (await events(s)).filter((e) => e.type === "turn_started").map((e) => e.data);
    expect(started).toEqual([
      { kind: "message", max_steps: 1 },
      { kind: "retry", max_steps: 1 },
    ]);
    // One model request per turn: the retry stopped after its one step.
    expect(await mockRequests(s.model)).toHaveLength(2);
  });

  it("right after /clear answers nothing_to_retry saying there is no turn, not that one completed", async () => {
    const s = await setup();
    await script(s.model, [{ reply: { text: "Before the clear." } }]);
    expect((await send(s, { content: "hi" })).body.status).toBe("completed");
    expect((await apiJson(`/v1/sessions/${s.session}/clear`, { method: "POST", key: s.key })).status).toBe(200);
    const res = await apiJson<{ error: { code: string; message: string } }>(`/v1/sessions/${s.session}/retry`, {
      method: "POST",
      key: s.key,
    });
    expect([res.status, res.body.error.code]).toEqual([409, "nothing_to_retry"]);
    expect(res.body.error.message).toContain("no turn to retry");
    expect(res.body.error.message).not.toContain("completed");
  });
});
