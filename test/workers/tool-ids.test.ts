// Provider-reused tool-call ids (issue "the hard edges", item 1): a provider that numbers calls per
// response (`call_0`, …) must never collide with an id the session already holds.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { cyrb53 } from "../../src/crypto/cyrb53";
import {
  ADMIN,
  api,
  apiJson,
  clientTool,
  events,
  history,
  type Msg,
  mockRequests,
  pairingProblems,
  type Setup,
  script,
  send,
  setup,
  sseFrames,
} from "./helpers";

const echo = {
  name: "lookup",
  description: "look something up",
  input_schema: { type: "object", properties: { q: { type: "string" } } },
  execution: { type: "http", url: `${env.MOCK_URL}/_tool` },
};

const call = (q: string, input: Record<string, unknown> = { q }) => ({ id: "call_0", name: "lookup", input });

function toolUseIds(msgs: Msg[]): string[] {
  return msgs.flatMap((m) => m.parts).flatMap((p) => (p.type === "tool_use" ? [p.id as string] : []));
}

function toolResults(msgs: Msg[]): Array<{ id: string; content: string }> {
  return msgs
    .flatMap((m) => m.parts)
    .flatMap((p) => (p.type === "tool_result" ? [{ id: p.tool_use_id as string, content: String(p.content) }] : []));
}

/** The tool_use ids and tool_result ids a request sent to the provider carries, in order. */
function wireIds(
  protocol: "anthropic" | "openai",
  body: Record<string, unknown>,
): { uses: string[]; results: string[] } {
  const messages = body.messages as Array<Record<string, unknown>>;
  if (protocol === "openai") {
    return {
      uses: messages.flatMap((m) => ((m.tool_calls ?? []) as Array<{ id: string }>).map((c) => c.id)),
      results: messages.flatMap((m) => (m.role === "tool" ? [m.tool_call_id as string] : [])),
    };
  }
  const blocks = messages.flatMap((m) =>
    Array.isArray(m.content) ? (m.content as Array<Record<string, unknown>>) : [],
  );
  return {
    uses: blocks.flatMap((b) => (b.type === "tool_use" ? [b.id as string] : [])),
    results: blocks.flatMap((b) => (b.type === "tool_result" ? [b.tool_use_id as string] : [])),
  };
}

async function noRejections(s: Setup): Promise<void> {
  const reqs = await mockRequests(s.model);
  expect(reqs.length).toBeGreaterThan(0);
  expect(reqs.filter((r) => r.rejected)).toEqual([]);
}

describe.each(["anthropic", "openai"] as const)("provider-reused tool-call ids (%s)", (protocol) => {
  it("a call id reused in later turns gets a session-unique id and every turn completes", async () => {
    const s = await setup({ tools: [echo] }, protocol);
    for (const [i, q] of ["a", "b", "c"].entries()) {
      await script(s.model, [{ reply: { tool_calls: [call(q)] } }, { reply: { text: `done ${i}` } }]);
      const turn = await send(s, { content: `question ${q}` });
      expect(turn.body.error).toBeUndefined();
      expect(turn.body.status).toBe("completed");
    }
    const msgs = await history(s);
    expect(toolUseIds(msgs)).toEqual(["call_0", "call_0_2", "call_0_3"]);
    expect(pairingProblems(msgs)).toEqual([]);
    // Each result is the one of its own call (the http tool echoes the id and input it was called with).
    const results = toolResults(msgs).map((r) => ({
      id: r.id,
      echo: (JSON.parse(r.content) as { echo: unknown }).echo,
    }));
    expect(results).toEqual([
      { id: "call_0", echo: { tool_use_id: "call_0", name: "lookup", input: { q: "a" } } },
      { id: "call_0_2", echo: { tool_use_id: "call_0_2", name: "lookup", input: { q: "b" } } },
      { id: "call_0_3", echo: { tool_use_id: "call_0_3", name: "lookup", input: { q: "c" } } },
    ]);
    await noRejections(s);
    // The last request carries every call once, each answered with its own id.
    const last = (await mockRequests(s.model)).at(-1);
    expect(wireIds(protocol, last?.body ?? {})).toEqual({
      uses: ["call_0", "call_0_2", "call_0_3"],
      results: ["call_0", "call_0_2", "call_0_3"],
    });
    const remapped = (await events(s)).filter((e) => e.type === "tool_use_id_remapped").map((e) => e.data);
    expect(remapped).toEqual([
      expect.objectContaining({ provider_id: "call_0", tool_use_id: "call_0_2" }),
      expect.objectContaining({ provider_id: "call_0", tool_use_id: "call_0_3" }),
    ]);
  });

  it("two calls with the same id in one response are two calls with two ids", async () => {
    const s = await setup({ tools: [echo] }, protocol);
    await script(s.model, [
      { reply: { tool_calls: [call("first"), call("second")] } },
      { reply: { text: "both done" } },
    ]);
    const turn = await send(s, { content: "two lookups" });
    expect(turn.body.status).toBe("completed");
    const msgs = await history(s);
    expect(toolUseIds(msgs)).toEqual(["call_0", "call_0_2"]);
    expect(pairingProblems(msgs)).toEqual([]);
    const echoed = toolResults(msgs).map((r) => (JSON.parse(r.content) as { echo: { input: unknown } }).echo.input);
    expect(echoed).toEqual([{ q: "first" }, { q: "second" }]);
    await noRejections(s);
  });

  it("client results, pending calls and the UI stream use the session-unique id", async () => {
    const s = await setup({ tools: [clientTool("lookup")] }, protocol);
    for (const q of ["a", "b"]) {
      await script(s.model, [{ reply: { tool_calls: [call(q)] } }, { reply: { text: `answered ${q}` } }]);
      const res = await api(`/v1/sessions/${s.session}/messages`, { method: "POST", key: s.key, json: { content: q } });
      const chunks = (await sseFrames(res))
        .filter((f) => f.data !== "[DONE]")
        .map((f) => JSON.parse(f.data) as { type: string; toolCallId?: string; data?: unknown });
      const expected = q === "a" ? "call_0" : "call_0_2";
      const toolChunks = chunks.filter((c) => c.type.startsWith("tool-input"));
      expect(toolChunks.map((c) => c.toolCallId)).toEqual(toolChunks.map(() => expected));
      expect(toolChunks.map((c) => c.type)).toContain("tool-input-available");
      const waiting = chunks.find((c) => c.type === "data-awaiting-tool-results");
      expect(waiting?.data).toEqual({ tool_calls: [{ id: expected, name: "lookup" }] });
      const done = await apiJson<{ status: string }>(`/v1/sessions/${s.session}/tool-results`, {
        method: "POST",
        key: s.key,
        json: { results: [{ tool_use_id: expected, content: `result ${q}` }] },
      });
      expect(done.body.status).toBe("completed");
    }
    const msgs = await history(s);
    expect(toolResults(msgs)).toEqual([
      { id: "call_0", content: "result a" },
      { id: "call_0_2", content: "result b" },
    ]);
    expect(pairingProblems(msgs)).toEqual([]);
    await noRejections(s);
  });

  it("a $tool reference names the call the model saw in history, even when this response reuses its id", async () => {
    const s = await setup({ tools: [echo] }, protocol);
    await script(s.model, [{ reply: { tool_calls: [call("old")] } }, { reply: { text: "first done" } }]);
    await send(s, { content: "first" });
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            call("new"),
            { id: "call_1", name: "lookup", input: { q: { $tool: "call_0", $path: "echo.input.q" } } },
          ],
        },
      },
      { reply: { text: "second done" } },
    ]);
    const turn = await send(s, { content: "second" });
    expect(turn.body.status).toBe("completed");
    const msgs = await history(s);
    const uses = msgs.flatMap((m) => m.parts).filter((p) => p.type === "tool_use");
    expect(uses.at(-1)?.input).toEqual({ q: { $tool: "call_0", $path: "echo.input.q" } });
    // call_0 in history is the first turn's call (this response's call_0 became call_0_2): its value is passed.
    const last = toolResults(msgs).at(-1);
    expect(last?.id).toBe("call_1");
    expect(last?.content).toContain('"q":"old"');
    await noRejections(s);
  });
});

describe("a session moved from a provider with other call ids to Anthropic", () => {
  it("resolves a $tool reference written in the form Anthropic was sent the earlier call's id", async () => {
    const s = await setup({ tools: [echo] }, "openai");
    const kimiId = "functions.lookup:0";
    await script(s.model, [
      { reply: { tool_calls: [{ id: kimiId, name: "lookup", input: { q: "from kimi" } }] } },
      { reply: { text: "first done" } },
    ]);
    expect((await send(s, { content: "first" })).body.status).toBe("completed");
    const put = await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: { model: { provider: "anthropic", name: s.model }, system: "You are a test agent.", tools: [echo] },
    });
    expect(put.status).toBe(200);
    // Anthropic refuses "." and ":" in ids: the request carries the earlier call as this, and the model cites it so.
    const asSent = `functions_lookup_0_${cyrb53(kimiId)}`;
    await script(s.model, [
      {
        reply: {
          tool_calls: [{ id: "toolu_cite", name: "lookup", input: { q: { $tool: asSent, $path: "echo.input.q" } } }],
        },
      },
      { reply: { text: "second done" } },
    ]);
    expect((await send(s, { content: "second" })).body.status).toBe("completed");
    const requests = await mockRequests(s.model);
    expect(wireIds("anthropic", requests.at(-2)?.body as Record<string, unknown>).uses).toContain(asSent);
    const last = toolResults(await history(s)).at(-1);
    expect(last?.id).toBe("toolu_cite");
    expect(last?.content).toContain('"q":"from kimi"');
  });
});
