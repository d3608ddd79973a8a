// Invariant P (every tool_use answered once, in the next message) under stream faults and under late, duplicate and
// superseded tool results.
import { describe, expect, it } from "vitest";
import {
  api,
  apiJson,
  clientTool,
  events,
  history,
  mockRequests,
  pairingProblems,
  recordStream,
  script,
  send,
  setup,
  uiChunks,
} from "./helpers";

const weather = {
  name: "lookup",
  description: "look something up",
  input_schema: { type: "object", properties: { q: { type: "string" } } },
  execution: { type: "client" },
};

describe("invariant P under stream faults", () => {
  it("keeps a tool_use whose block completed before the cut, and answers it synthetically", async () => {
    const s = await setup({ tools: [weather] });
    const body = await recordStream("anthropic", {
      text: "Checking.",
      tool_calls: [{ id: "toolu_cut_after_stop", name: "lookup", input: { q: "paris" } }],
    });
    const stop = body.indexOf("event: content_block_stop", body.indexOf('"type":"tool_use"'));
    const cutAt = body.indexOf("\n\n", stop) + 2;
    await script(s.model, [
      { raw: body, faults: { cut_after_bytes: cutAt } },
      { reply: { text: "Sorry about that." } },
    ]);

    const first = await send(s, { content: "weather?" });
    expect(first.body.status).toBe("failed");
    expect(first.body.error?.code).toBe("provider_stream_cut");

    const second = await send(s, { content: "try again please" });
    expect(second.body.status).toBe("completed");
    const msgs = await history(s);
    expect(pairingProblems(msgs)).toEqual([]);
    expect(msgs.map((m) => `${m.role}:${m.parts.map((p) => p.type).join(",")}`)).toEqual([
      "user:text",
      "assistant:text,tool_use",
      "user:tool_result,text",
      "assistant:text",
    ]);
    expect(msgs[2]?.parts[0]).toMatchObject({ tool_use_id: "toolu_cut_after_stop", is_error: true });
    expect(String(msgs[2]?.parts[0]?.content)).toMatch(/^tool result unavailable:/);
    const reqs = await mockRequests(s.model);
    expect(reqs.filter((r) => r.rejected)).toEqual([]);
    expect((await events(s)).map((e) => e.type)).toContain("partial_tool_use_persisted");
  });

  it("strips a tool_use whose input JSON was cut mid-stream", async () => {
    const s = await setup({ tools: [weather] });
    const body = await recordStream("anthropic", {
      tool_calls: [{ id: "toolu_cut_mid_json", name: "lookup", input: { q: "a fairly long query string" } }],
    });
    const cutAt = body.indexOf("input_json_delta", body.indexOf("input_json_delta") + 20) + 10;
    await script(s.model, [{ raw: body, faults: { cut_after_bytes: cutAt } }, { reply: { text: "ok" } }]);
    const first = await send(s, { content: "go" });
    expect(first.body.status).toBe("failed");
    const second = await send(s, { content: "again" });
    expect(second.body.status).toBe("completed");
    const msgs = await history(s);
    expect(msgs.flatMap((m) => m.parts).some((p) => p.type === "tool_use")).toBe(false);
    expect((await mockRequests(s.model)).filter((r) => r.rejected)).toEqual([]);
  });

  it("drops a text-only partial step from history and records it as an event", async () => {
    const s = await setup();
    const text = "This answer will be cut somewhere in the middle.";
    await script(s.model, [
      { reply: { text }, faults: { cut_after_events: 6 } },
      { reply: { text: "Complete answer." } },
    ]);
    const first = await api(`/v1/sessions/${s.session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "hello" },
      headers: { accept: "text/event-stream" },
    });
    const chunks = await uiChunks<{ type: string; delta?: string; errorText?: string }>(first);
    // Cut mid-text: the client saw part of the block, which never completed.
    const seen = chunks.flatMap((c) => (c.type === "text-delta" ? [c.delta] : [])).join("");
    expect(seen).not.toBe("");
    expect(text.startsWith(seen) && seen.length < text.length).toBe(true);
    expect(chunks.some((c) => c.type === "error")).toBe(true);
    expect((await history(s)).map((m) => m.role)).toEqual(["user"]);
    const dropped = (await events(s)).filter((e) => e.type === "partial_text_dropped");
    expect(dropped).toHaveLength(1);
    expect(String(dropped[0]?.data.text).startsWith(seen)).toBe(true);
    const retry = await apiJson<{ status: string }>(`/v1/sessions/${s.session}/retry`, { method: "POST", key: s.key });
    expect(retry.body.status).toBe("completed");
    expect((await history(s)).map((m) => m.role)).toEqual(["user", "assistant"]);
  });
});

describe("late, duplicate and superseded results", () => {
  async function paused() {
    const s = await setup({ tools: [clientTool("ask")] });
    await script(s.model, [{ reply: { tool_calls: [{ id: "toolu_pending_1", name: "ask", input: { q: "x" } }] } }]);
    const first = await send(s, { content: "ask me" });
    expect(first.body.status).toBe("awaiting_tool_results");
    return s;
  }

  it("retry while a client tool is pending synthesizes its result and is accepted", async () => {
    const s = await paused();
    await script(s.model, [{ reply: { text: "Continuing without it." } }]);
    const retry = await apiJson<{ status: string }>(`/v1/sessions/${s.session}/retry`, { method: "POST", key: s.key });
    expect(retry.body.status).toBe("completed");
    const msgs = await history(s);
    expect(pairingProblems(msgs)).toEqual([]);
    expect(msgs[2]?.parts).toHaveLength(1);
    expect(msgs[2]?.parts[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_pending_1", is_error: true });
    expect((await mockRequests(s.model)).filter((r) => r.rejected)).toEqual([]);
  });

  it("a late result for a repaired call answers 409 late_result and leaves history unchanged", async () => {
    const s = await paused();
    await script(s.model, [{ reply: { text: "Moved on." } }]);
    await send(s, { content: "never mind" });
    const before = await history(s);
    const late = await apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/tool-results`, {
      method: "POST",
      key: s.key,
      json: { results: [{ tool_use_id: "toolu_pending_1", content: "late answer" }] },
    });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe("late_result");
    expect(await history(s)).toEqual(before);
    expect((await events(s)).map((e) => e.type)).toContain("late_result_dropped");
  });

  it("a duplicate /tool-results does not write a second result", async () => {
    const s = await paused();
    await script(s.model, [{ reply: { text: "Thanks." } }]);
    const body = { results: [{ tool_use_id: "toolu_pending_1", content: "42" }] };
    const ok = await apiJson<{ status: string }>(`/v1/sessions/${s.session}/tool-results`, {
      method: "POST",
      key: s.key,
      json: body,
    });
    expect(ok.body.status).toBe("completed");
    const dup = await apiJson(`/v1/sessions/${s.session}/tool-results`, { method: "POST", key: s.key, json: body });
    expect(dup.status).toBe(409);
    const results = (await history(s)).flatMap((m) => m.parts).filter((p) => p.type === "tool_result");
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ content: "42", is_error: false });
  });

  it("a result sent with the next message wins over a synthetic one and comes first", async () => {
    const s = await paused();
    await script(s.model, [{ reply: { text: "Got it." } }]);
    const res = await send(s, {
      content: "here you go",
      tool_results: [{ tool_use_id: "toolu_pending_1", content: "green" }],
    });
    expect(res.body.status).toBe("completed");
    const msgs = await history(s);
    expect(msgs[2]?.parts).toEqual([
      { type: "tool_result", tool_use_id: "toolu_pending_1", content: "green", is_error: false },
      { type: "text", text: "here you go" },
    ]);
  });

  it("a result for an unknown id is 404 and changes nothing", async () => {
    const s = await paused();
    const res = await apiJson<{ error: { code: string } }>(`/v1/sessions/${s.session}/tool-results`, {
      method: "POST",
      key: s.key,
      json: { results: [{ tool_use_id: "toolu_nope", content: "x" }] },
    });
    expect(res.status).toBe(404);
    const state = await apiJson<{ status: string }>(`/v1/sessions/${s.session}`, { key: s.key });
    expect(state.body.status).toBe("awaiting_tool_results");
  });
});
