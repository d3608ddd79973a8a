// What a compaction's summary request reads of tool calls (src/session/compaction/transcript.ts): each call and its
// result named by the call's id, and the summary asked to keep the ids a `$tool` reference may still pass, so an
// earlier result stays reachable by its id after the call itself is summarised away; a result no reference passes
// (cut when stored) is marked so.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { IDS_INSTRUCTION, NOT_PASSABLE } from "../../../../src/session/compaction/transcript";
import { city, echoSteps, longTurnSession, requestText } from "../../compaction-helpers";
import { apiJson, COMPACTION_TOOLS, events, history, mockRequests, script, send, setup } from "../../helpers";

describe("a long turn of http tool steps compacted inside it (openai)", () => {
  it("names an earlier call's id in the summary request, and a later step passing it as $tool gets its result", async () => {
    const s = await longTurnSession("openai");
    const ref = { $tool: "call_echo_1", $path: "echo.input.city" };
    await script(s.model, [
      ...echoSteps(1, 10),
      { reply: { tool_calls: [{ id: "call_echo_ref", name: "echo_core", input: { city: ref } }] } },
      { reply: { text: "Done." } },
    ]);
    expect((await send(s, { content: requestText(11) })).body.status).toBe("completed");
    expect((await events(s)).some((e) => e.type === "context_compacted")).toBe(true);
    const requests = await mockRequests(s.model);
    const summaries = requests.map((r) => JSON.stringify(r.body)).filter((body) => body.includes("<transcript>"));
    const first = summaries.find((body) => body.includes("[id call_echo_1]")) ?? "";
    expect(first).toContain("Assistant called echo_core [id call_echo_1](");
    expect(first).toContain("Result of echo_core [id call_echo_1]: ");
    expect(first).toContain(JSON.stringify(IDS_INSTRUCTION).slice(1, -1));
    // The step that wrote the reference no longer held the call: it was summarised.
    const steps = requests.filter((r) => r.served === "reply").map((r) => JSON.stringify(r.body));
    expect(steps.at(-2)).not.toMatch(/"call_echo_1"/);
    const result = (await history(s))
      .flatMap((m) => m.parts)
      .find((p) => p.type === "tool_result" && p.tool_use_id === "call_echo_ref");
    expect(result).toMatchObject({ is_error: false });
    expect(JSON.parse(String(result?.content)).echo.input.city).toBe(city(1));
  });
});

describe("POST /compact of a turn whose tool result was cut when stored (openai)", () => {
  it("marks that result as one no $tool reference passes, and not a whole result beside it", async () => {
    const big = {
      name: "big_report",
      description: "returns 300,000 bytes",
      input_schema: { type: "object", properties: { q: { type: "string" } } },
      execution: { type: "http", url: `${env.MOCK_URL}/_tool?bytes=300000` },
    };
    const s = await setup({ tools: [big, ...COMPACTION_TOOLS], compaction: { keep_recent_turns: 0 } }, "openai");
    await script(s.model, [
      {
        reply: {
          tool_calls: [
            { id: "call_cut_report", name: "big_report", input: { q: "all" } },
            { id: "call_whole_echo", name: "echo_core", input: { city: "Oslo" } },
          ],
        },
      },
      { reply: { text: "Read both." } },
    ]);
    expect((await send(s, { content: "Fetch the report and echo Oslo." })).body.status).toBe("completed");
    expect((await apiJson(`/v1/sessions/${s.session}/compact`, { method: "POST", key: s.key })).status).toBe(200);
    const summary = (await mockRequests(s.model))
      .map((r) => JSON.stringify(r.body))
      .find((body) => body.includes("<transcript>"));
    expect(summary).toContain(`Result of big_report [id call_cut_report] ${NOT_PASSABLE}: `);
    expect(summary).toContain("Result of echo_core [id call_whole_echo]: ");
  });
});
