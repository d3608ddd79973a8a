// A webhook run never overrides a client's turn that is paused for client tools: it waits behind it, so
// the client's real results are accepted, and the run starts once the client's turn has ended.
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, apiJson, clientTool, type TurnJson } from "./helpers";
import { ended, getRun, runSetup, runStub, script, waitRun } from "./runs-helpers";

describe("a run queued while a client's turn waits for tool results", () => {
  it("waits; the client's results are accepted; the run runs afterwards", async () => {
    const s = await runSetup(undefined, { tools: [clientTool("ask_user")] });
    const created = await apiJson<{ id: string }>("/v1/sessions", {
      method: "POST",
      key: s.key,
      json: { agent: s.agent },
    });
    const session = created.body.id;
    await script(s.model, [
      { reply: { tool_calls: [{ id: "toolu_ask", name: "ask_user", input: { q: "color?" } }] } },
      { reply: { text: "Blue, noted." } },
      { reply: { text: "Run done." } },
    ]);
    const paused = await apiJson<TurnJson>(`/v1/sessions/${session}/messages`, {
      method: "POST",
      key: s.key,
      json: { content: "pick a color" },
    });
    expect(paused.body.status).toBe("awaiting_tool_results");

    const queued = await api(`/v1/agents/${s.agent}/runs`, {
      method: "POST",
      key: s.key,
      json: { input: "nightly report", session_id: session },
    });
    expect(queued.status).toBe(202);
    const runId = ((await queued.json()) as { run_id: string }).run_id;
    // Whatever alarm is set now (none is needed) does not start the run.
    await runDurableObjectAlarm(runStub(s, session));
    expect((await getRun(s, runId)).status).toBe("queued");

    const answered = await apiJson<TurnJson>(`/v1/sessions/${session}/tool-results`, {
      method: "POST",
      key: s.key,
      json: { results: [{ tool_use_id: "toolu_ask", content: "blue" }] },
    });
    expect(answered.status).toBe(200);
    expect(answered.body.status).toBe("completed");
    const run = await waitRun(s, runId, ended);
    expect(run.status).toBe("completed");
    expect(run.result?.output).toBe("Run done.");
  });
});
