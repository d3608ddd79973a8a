// A session's tool set across a pause (src/session/session-tools.ts): what a resumed turn sends stays within the
// provider's cap on tools, whichever instance resumes it.
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { LoadedTools } from "../../../src/tools/loaded-tools";
import {
  apiJson,
  clientTool,
  events,
  fakeMcpServer,
  mockRequests,
  restorePatches,
  script,
  send,
  sessionStub,
  setup,
  type TurnJson,
} from "../helpers";

afterEach(restorePatches);

describe("a paused turn resumed on a fresh instance", () => {
  it("unloads what no longer fits when a server that was down at admission is back with its loaded tools", async () => {
    const names = Array.from({ length: 130 }, (_, i) => `op_${i}`);
    const server = fakeMcpServer(names);
    const s = await setup(
      { tools: [clientTool("ask_user")], mcp_servers: [{ name: "wide", url: "https://mcp.example.com/mcp" }] },
      "openai",
    );
    await script(s.model, [{ reply: { text: "listed" } }]);
    expect((await send(s, { content: "list the tools" })).body.status).toBe("completed");

    // All 130 loaded, and the cached listing expired so the next admission asks the server again.
    await runInDurableObject(await sessionStub(s), (_i, state) => {
      new LoadedTools(state.storage.sql).add(
        names.map((n) => `mcp__wide__${n}`),
        "test",
      );
      state.storage.sql.exec("UPDATE mcp_servers SET fetched_at = 0");
    });
    await abortAllDurableObjects();
    server.up = false;
    await script(s.model, [
      { reply: { tool_calls: [{ id: "call_ask", name: "ask_user", input: { q: "which?" } }] } },
      { reply: { text: "resumed" } },
    ]);
    const paused = await send(s, { content: "ask me" });
    expect(paused.body.status).toBe("awaiting_tool_results");

    // The server is back; another instance takes the client's result and resumes the turn.
    server.up = true;
    await abortAllDurableObjects();
    const resumed = await apiJson<TurnJson>(`/v1/sessions/${s.session}/tool-results`, {
      method: "POST",
      key: s.key,
      json: { results: [{ tool_use_id: "call_ask", content: "the first" }] },
    });
    expect(resumed.body.status).toBe("completed");
    const requests = await mockRequests(s.model);
    expect(requests.map((r) => r.rejected)).toEqual([null, null, null]);
    // OpenAI takes 128 functions; one slot stays free for a turn's structured_output.
    expect(requests[2]?.body.tools).toHaveLength(127);
    const unloaded = (await events(s)).filter((e) => e.type === "tools_unloaded");
    expect(unloaded.map((e) => e.data.reason)).toEqual(["tools_limit"]);
  });
});
