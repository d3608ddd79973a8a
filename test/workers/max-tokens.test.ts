// A tool_use cut off by the output limit (issue "the hard edges", item 5): handled as an incomplete
// block (DESIGN §3, P5): stripped, never persisted, never paired with an empty `{}` input.
import { describe, expect, it } from "vitest";
import {
  ADMIN,
  apiJson,
  clientTool,
  events,
  history,
  mockRequests,
  pairingProblems,
  script,
  send,
  setup,
} from "./helpers";

function anthropicCut(text: string, id: string, partialJson: string): string {
  const frames: Array<Record<string, unknown>> = [
    {
      type: "message_start",
      message: {
        id: "msg_cut",
        type: "message",
        role: "assistant",
        model: "m",
        content: [],
        usage: { input_tokens: 5 },
      },
    },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } },
    { type: "content_block_stop", index: 0 },
    { type: "content_block_start", index: 1, content_block: { type: "tool_use", id, name: "lookup", input: {} } },
    { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: partialJson } },
    // The API closes the cut block like any other and names the cause only in message_delta.
    { type: "content_block_stop", index: 1 },
    { type: "message_delta", delta: { stop_reason: "max_tokens", stop_sequence: null }, usage: { output_tokens: 16 } },
    { type: "message_stop" },
  ];
  return frames.map((f) => `event: ${String(f.type)}\ndata: ${JSON.stringify(f)}\n\n`).join("");
}

function openaiCut(text: string, id: string, partialArgs: string): string {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id: "chatcmpl-cut",
    object: "chat.completion.chunk",
    model: "m",
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const chunks = [
    chunk({ role: "assistant", content: text }),
    chunk({ tool_calls: [{ index: 0, id, type: "function", function: { name: "lookup", arguments: "" } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: partialArgs } }] }),
    chunk({}, "length"),
  ];
  return `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("")}data: [DONE]\n\n`;
}

describe.each(["anthropic", "openai"] as const)("a tool_use cut off by max_tokens (%s)", (protocol) => {
  const raw = protocol === "anthropic" ? anthropicCut : openaiCut;

  it("is stripped: the turn ends with max_tokens, history keeps only the text, the next turn is accepted", async () => {
    const s = await setup({ tools: [clientTool("lookup")] }, protocol);
    await script(s.model, [
      { raw: raw("Let me look.", "call_cut", '{"q": "a long que') },
      { reply: { text: "Hi again." } },
    ]);
    const turn = await send(s, { content: "look it up" });
    expect(turn.body.status).toBe("completed");
    expect(turn.body.finish_reason).toBe("max_tokens");
    expect(turn.body.pending_tool_calls).toBeUndefined();
    const afterCut = await history(s);
    expect(afterCut.map((m) => `${m.role}:${m.parts.map((p) => p.type).join(",")}`)).toEqual([
      "user:text",
      "assistant:text",
    ]);
    const stripped = (await events(s)).filter((e) => e.type === "tool_use_stripped");
    expect(stripped.map((e) => e.data)).toEqual([
      expect.objectContaining({ tool_use_id: "call_cut", name: "lookup", partial_input: '{"q": "a long que' }),
    ]);

    const next = await send(s, { content: "and now?" });
    expect(next.body.status).toBe("completed");
    const msgs = await history(s);
    expect(pairingProblems(msgs)).toEqual([]);
    expect(msgs.flatMap((m) => m.parts).filter((p) => p.type === "tool_use" || p.type === "tool_result")).toEqual([]);
    expect((await mockRequests(s.model)).filter((r) => r.rejected)).toEqual([]);
  });

  it("a call cut before any input is not run with {} input", async () => {
    const s = await setup({ tools: [clientTool("lookup")] }, protocol);
    await script(s.model, [{ raw: raw("Checking.", "call_noinput", "") }]);
    const turn = await send(s, { content: "look it up" });
    expect(turn.body.status).toBe("completed");
    expect(turn.body.finish_reason).toBe("max_tokens");
    const parts = (await history(s)).flatMap((m) => m.parts);
    expect(parts.filter((p) => p.type === "tool_use")).toEqual([]);
  });
});

describe("an openai agent's model.max_tokens", () => {
  it("reaches a server other than OpenAI's API as max_tokens, the field such servers read", async () => {
    const s = await setup({}, "openai");
    const put = await apiJson(`/v1/agents/${s.agent}`, {
      method: "PUT",
      key: ADMIN,
      json: { model: { provider: "openai", name: s.model, max_tokens: 300 } },
    });
    expect(put.status).toBe(200);
    expect((await send(s, { content: "hi" })).body.status).toBe("completed");
    const [sent] = await mockRequests(s.model);
    expect(sent?.body).toMatchObject({ max_tokens: 300 });
    expect(sent?.body).not.toHaveProperty("max_completion_tokens");
  });
});
