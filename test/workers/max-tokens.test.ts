// A tool_use cut off by the output limit (issue "the hard edges", item 5): handled as an incomplete
// block (DESIGN §3, P5): stripped, never persisted, never paired with an empty `{}` input.
import { describe, expect, it } from "vitest";
import { anthropicCut, openaiCut } from "./cut-streams";
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

describe.each(["anthropic", "openai"] as const)("a tool_use cut off by max_tokens (%s)", (protocol) => {
  const cut = protocol === "anthropic" ? anthropicCut : openaiCut;
  const raw = (text: string, id: string, partial: string) => cut({ text, id, name: "lookup", partial });

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
