// Built-in calls never pause a turn (issue "the hard edges", item 4): every tool_search, tool_info,
// select_tools and structured_output call gets an answer, an is_error one when it does not apply.
import { describe, expect, it } from "vitest";
import { events, history, type Msg, mockRequests, pairingProblems, script, send, setup } from "./helpers";
import { ended, runSetup, signedRun, waitRun } from "./runs-helpers";

const SCHEMA = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
};

function results(msgs: Msg[]): Array<{ id: string; content: string; is_error: boolean }> {
  return msgs
    .flatMap((m) => m.parts)
    .flatMap((p) =>
      p.type === "tool_result"
        ? [{ id: p.tool_use_id as string, content: String(p.content), is_error: p.is_error as boolean }]
        : [],
    );
}

describe("built-in calls always get an answer", () => {
  it("structured_output in a turn without json_schema is answered with an error and the turn goes on", async () => {
    const s = await setup();
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_so_stray", name: "structured_output", input: { city: "Oslo" } }] } },
      { reply: { text: "Oslo, in plain words." } },
    ]);
    const turn = await send(s, { content: "where?" });
    expect(turn.body.status).toBe("completed");
    expect(turn.body.pending_tool_calls).toBeUndefined();
    const msgs = await history(s);
    expect(pairingProblems(msgs)).toEqual([]);
    const [answer] = results(msgs);
    expect(answer).toMatchObject({ id: "toolu_so_stray", is_error: true });
    expect(answer?.content).toMatch(/structured_output is not available in this turn/);
    expect((await mockRequests(s.model)).filter((r) => r.rejected)).toEqual([]);
    const invalid = (await events(s)).filter((e) => e.type === "tool_call_invalid");
    expect(invalid.map((e) => e.data.tool_use_id)).toEqual(["toolu_so_stray"]);
  });

  it("every built-in the turn does not offer gets an is_error answer in one step", async () => {
    const s = await setup({}, "openai");
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_b0", name: "tool_search", input: { query: "weather" } },
            { id: "call_b1", name: "tool_info", input: { name: "x" } },
            { id: "call_b2", name: "select_tools", input: { names: ["x"] } },
            { id: "call_b3", name: "structured_output", input: { city: "Oslo" } },
          ],
        },
      },
      { reply: { text: "fine" } },
    ]);
    const turn = await send(s, { content: "go" });
    expect(turn.body.status).toBe("completed");
    const answers = results(await history(s));
    expect(answers.map((a) => [a.id, a.is_error])).toEqual([
      ["call_b0", true],
      ["call_b1", true],
      ["call_b2", true],
      ["call_b3", true],
    ]);
    for (const a of answers.slice(0, 3)) expect(a.content).toMatch(/is a built-in tool that is not offered/);
  });

  it("a valid structured_output after an invalid one in the same step delivers the result", async () => {
    const s = await setup();
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "toolu_so_bad", name: "structured_output", input: { town: "Oslo" } },
            { id: "toolu_so_good", name: "structured_output", input: { city: "Oslo" } },
          ],
        },
      },
    ]);
    const turn = await send(s, { content: "where?", json_schema: SCHEMA });
    expect(turn.body.status).toBe("completed");
    expect((turn.body as unknown as { structured_result: unknown }).structured_result).toEqual({ city: "Oslo" });
    const msgs = await history(s);
    expect(pairingProblems(msgs)).toEqual([]);
    expect(results(msgs).map((r) => [r.id, r.is_error])).toEqual([
      ["toolu_so_bad", true],
      ["toolu_so_good", false],
    ]);
  });

  it("two invalid structured_output calls both get their errors and the model can try again", async () => {
    const s = await setup();
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "toolu_so_bad1", name: "structured_output", input: { town: "Oslo" } },
            { id: "toolu_so_bad2", name: "structured_output", input: { city: 7 } },
          ],
        },
      },
      { reply: { tool_calls: [{ id: "toolu_so_ok", name: "structured_output", input: { city: "Bergen" } }] } },
    ]);
    const turn = await send(s, { content: "where?", json_schema: SCHEMA });
    expect(turn.body.status).toBe("completed");
    expect((turn.body as unknown as { structured_result: unknown }).structured_result).toEqual({ city: "Bergen" });
    const answers = results(await history(s));
    expect(answers.map((r) => [r.id, r.is_error])).toEqual([
      ["toolu_so_bad1", true],
      ["toolu_so_bad2", true],
      ["toolu_so_ok", false],
    ]);
    expect(answers[1]?.content).toMatch(/do not match the schema/);
    expect((await mockRequests(s.model)).filter((r) => r.rejected)).toEqual([]);
  });

  it("a webhook run whose model calls structured_output without json_schema completes", async () => {
    const s = await runSetup();
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_run_stray", name: "structured_output", input: { city: "Oslo" } }] } },
      { reply: { text: "It is Oslo." } },
    ]);
    const res = await signedRun(s, { input: "where?" });
    expect(res.status).toBe(202);
    const a = (await res.json()) as { run_id: string };
    const run = await waitRun(s, a.run_id, ended);
    expect(run.error).toBeUndefined();
    expect(run.status).toBe("completed");
    expect(run.result?.output).toBe("It is Oslo.");
  });
});

describe("structured_output and references", () => {
  it("a $tool reference in structured_output is refused as an invalid call, never delivered as a literal", async () => {
    const s = await setup();
    await script(s.model, [
      {
        reply: {
          tool_calls: [{ id: "toolu_so_ref", name: "structured_output", input: { city: { $tool: "toolu_x" } } }],
        },
      },
      { reply: { tool_calls: [{ id: "toolu_so_plain", name: "structured_output", input: { city: "Oslo" } }] } },
    ]);
    const turn = await send(s, { content: "where?", json_schema: SCHEMA });
    expect(turn.body.status).toBe("completed");
    expect((turn.body as unknown as { structured_result: unknown }).structured_result).toEqual({ city: "Oslo" });
    const refused = results(await history(s)).find((r) => r.id === "toolu_so_ref");
    expect(refused?.is_error).toBe(true);
    expect(refused?.content).toMatch(/not \{"\$tool": …\} references/);
    const invalid = (await events(s)).filter((e) => e.type === "tool_call_invalid");
    expect(invalid.map((e) => e.data.tool_use_id)).toEqual(["toolu_so_ref"]);
  });

  it("an agent with only client tools is not told about references, which its tools cannot take", async () => {
    const s = await setup({
      tools: [
        {
          name: "pick_file",
          description: "client tool",
          input_schema: { type: "object", properties: { path: { type: "string" } } },
          execution: { type: "client" },
        },
      ],
    });
    await script(s.model, [{ reply: { text: "Hello." } }]);
    await send(s, { content: "hi" });
    const system = JSON.stringify((await mockRequests(s.model))[0]?.body.system);
    expect(system).toContain("You are a test agent.");
    expect(system).not.toContain("$tool");
  });
});
