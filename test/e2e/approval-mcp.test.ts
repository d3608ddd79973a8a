// Approval for MCP tools, end to end: a server whose `require_approval` names one tool. The named tool
// waits for a person while its unnamed sibling runs at once; the MCP server's own request log proves
// which tools/call requests were made and when.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Api, Mock, uniqueModel } from "../helpers/index.ts";
import { type McpProcess, spawnMcpServer } from "../helpers/mcp-process.ts";

const api = new Api(inject("baseUrl"), inject("adminKey"));
const mock = new Mock(inject("mockUrl"));

let tenantKey: string;
let server: McpProcess | undefined;

beforeAll(async () => {
  tenantKey = (await api.createKey(`approval-mcp-${Date.now()}`)).key;
  server = await spawnMcpServer({ preset: "basic" });
});

afterAll(async () => {
  await server?.kill();
});

async function toolCalls(): Promise<number> {
  return (await (server as McpProcess).requests()).flatMap((r) => r.rpc).filter((m) => m === "tools/call").length;
}

describe("an MCP server with require_approval: {tools: [...]}", () => {
  it("pauses the named tool for approval, runs its sibling at once, and the named one once approved", async () => {
    const srv = server as McpProcess;
    const model = uniqueModel("approval-mcp");
    const agent = `agent-${model}`;
    await api.putAgent(agent, {
      model: { provider: "anthropic", name: model },
      system: "You use MCP tools.",
      tools: [],
      mcp_servers: [{ name: "kit", url: srv.url, defer: false, require_approval: { tools: ["echo"] } }],
    });
    const session = (await api.createSession(tenantKey, agent)).id;
    await mock.script(model, [
      {
        reply: {
          tool_calls: [
            { id: "mcp_echo", name: "mcp__kit__echo", input: { text: "hello" } },
            { id: "mcp_sum", name: "mcp__kit__add_numbers", input: { a: 2, b: 3 } },
          ],
        },
      },
      { reply: { text: "Echoed and added." } },
    ]);
    const before = await toolCalls();
    const paused = await api.json<{
      status: string;
      pending_approvals: Array<{ approval_id: string; tool_call_id: string; name: string; reason: string }>;
    }>("POST", `/v1/sessions/${session}/messages`, { key: tenantKey, body: { content: "echo and add" } });
    expect(paused.body.status).toBe("awaiting_approval");
    expect(paused.body.pending_approvals.map((a) => [a.tool_call_id, a.name])).toEqual([
      ["mcp_echo", "mcp__kit__echo"],
    ]);
    expect(paused.body.pending_approvals[0]?.reason).toBe(
      '"echo" on MCP server "kit" requires approval before it runs',
    );
    expect((await toolCalls()) - before).toBe(1);

    const done = await api.json<{ status: string }>("POST", `/v1/sessions/${session}/tool-approvals`, {
      key: tenantKey,
      body: { approvals: [{ approval_id: paused.body.pending_approvals[0]?.approval_id, approved: true }] },
    });
    expect(done.body.status).toBe("completed");
    expect((await toolCalls()) - before).toBe(2);
    const requests = await mock.requests(model);
    expect(requests.map((r) => r.rejected)).toEqual([null, null]);
  });
});
