// Tool calls under names no provider accepts (GPT-4o's `multi_tool_use.parallel`, a call with no name at all): each
// is answered "unknown tool" and kept in history as the model wrote it, and every later request sends it under a
// name the provider accepts, so the session goes on instead of failing every turn with a 400.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { history, mockRequests, pairingProblems, script, send, setup } from "./helpers";

const WIRE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const lookup = {
  name: "lookup",
  description: "look something up",
  input_schema: { type: "object", properties: { q: { type: "string" } } },
  execution: { type: "http", url: `${env.MOCK_URL}/_tool` },
};

type Protocol = "anthropic" | "openai" | "openai-responses";

/** The calls and results a request sent to the provider carries in its history, in order. */
function wireHistory(
  protocol: Protocol,
  body: Record<string, unknown>,
): { calls: Array<{ id: string; name: string }>; results: Array<{ id: string; content: string }> } {
  if (protocol === "openai-responses") {
    const input = body.input as Array<{ type: string; call_id: string; name: string; output: string }>;
    return {
      calls: input.flatMap((i) => (i.type === "function_call" ? [{ id: i.call_id, name: i.name }] : [])),
      results: input.flatMap((i) => (i.type === "function_call_output" ? [{ id: i.call_id, content: i.output }] : [])),
    };
  }
  const messages = body.messages as Array<Record<string, unknown>>;
  if (protocol === "openai") {
    const calls = messages.flatMap((m) => (m.tool_calls ?? []) as Array<{ id: string; function: { name: string } }>);
    return {
      calls: calls.map((c) => ({ id: c.id, name: c.function.name })),
      results: messages.flatMap((m) =>
        m.role === "tool" ? [{ id: m.tool_call_id as string, content: m.content as string }] : [],
      ),
    };
  }
  const blocks = messages.flatMap((m) =>
    Array.isArray(m.content) ? (m.content as Array<Record<string, unknown>>) : [],
  );
  return {
    calls: blocks.flatMap((b) => (b.type === "tool_use" ? [{ id: b.id as string, name: b.name as string }] : [])),
    results: blocks.flatMap((b) =>
      b.type === "tool_result" ? [{ id: b.tool_use_id as string, content: String(b.content) }] : [],
    ),
  };
}

// A call with no name reaches history only on Chat Completions (a block_invalid); the other parsers refuse it.
const CASES: Array<[Protocol, string]> = [
  ["anthropic", "multi_tool_use.parallel"],
  ["openai", "multi_tool_use.parallel"],
  ["openai-responses", "prometheus.execute_query"],
  ["openai", ""],
];

describe("tool calls under names no provider accepts", () => {
  it.each(CASES)(
    "%s: a call named %j is answered, kept as written, and every later request is accepted",
    async (protocol, name) => {
      const s = await setup({ tools: [lookup] }, protocol);
      await script(s.model, [
        { reply: { tool_calls: [{ id: "call_bad", name, input: {} }] } },
        { reply: { text: "That tool does not exist." } },
        { reply: { text: "Still here." } },
      ]);
      expect((await send(s, { content: "use the tool" })).body.status).toBe("completed");
      const next = await send(s, { content: "and now?" });
      expect(next.body.error).toBeUndefined();
      expect(next.body.status).toBe("completed");

      const requests = await mockRequests(s.model);
      expect(requests).toHaveLength(3);
      expect(requests.filter((r) => r.rejected)).toEqual([]);
      for (const request of requests.slice(1)) {
        const wire = wireHistory(protocol, request.body);
        expect(wire.calls.map((c) => c.id)).toEqual(["call_bad"]);
        for (const call of wire.calls) expect(call.name).toMatch(WIRE_NAME);
        // The model's next step sees its call answered with the error, paired by id.
        expect(wire.results).toEqual([{ id: "call_bad", content: expect.stringContaining("unknown tool") }]);
      }
      // History keeps the name the model wrote.
      const msgs = await history(s);
      const uses = msgs.flatMap((m) => m.parts).filter((p) => p.type === "tool_use");
      expect(uses).toEqual([expect.objectContaining({ id: "call_bad", name })]);
      expect(pairingProblems(msgs)).toEqual([]);
    },
  );
});
