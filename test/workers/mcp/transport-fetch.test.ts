// The MCP transport's fetch (src/mcp/transport-fetch.ts) in a turn, against the SDK's MCP server over loopback
// (the suite's global setup starts it): a tools/call whose SSE answer stream the server drops before answering fails
// at once, as a server that could not be reached and not as a call that timed out, and the call beside it keeps its
// result.
import { describe, expect, inject, it } from "vitest";
import { history, pairingProblems, script, send, setup } from "../helpers";

const server = { name: "drops", url: inject("mcpUrl"), defer: false };

describe("a tools/call whose SSE answer stream is dropped before it answers", () => {
  it.each([
    ["ends", "answer_ends", "ended"],
    ["breaks off", "answer_cut", "broke off"],
  ])(
    "fails at once, its server disconnected rather than the call timed out, when the stream %s; the call beside it keeps its result",
    async (_how, tool, said) => {
      const s = await setup({ mcp_servers: [server] });
      await script(s.model, [
        {
          reply: {
            tool_calls: [
              { id: "toolu_dropped", name: `mcp__drops__${tool}`, input: {} },
              { id: "toolu_beside", name: "mcp__drops__echo", input: { text: "still here" } },
            ],
          },
        },
        { reply: { text: "done" } },
      ]);
      expect((await send(s, { content: "go" })).body.status).toBe("completed");
      const msgs = await history(s);
      const [dropped, beside] = msgs[2]?.parts ?? [];
      expect(dropped).toMatchObject({ type: "tool_result", tool_use_id: "toolu_dropped", is_error: true });
      expect(String(dropped?.content)).toContain(
        `Tool "mcp__drops__${tool}" is loaded but its server "drops" is disconnected`,
      );
      expect(String(dropped?.content)).toContain(`the server's answer stream ${said} before it answered`);
      expect(beside).toMatchObject({ tool_use_id: "toolu_beside", content: "still here", is_error: false });
      expect(pairingProblems(msgs)).toEqual([]);
    },
  );
});
