// McpConnection against a real MCP server (the SDK's, in this process): tools/list pagination, and how one
// call's cancel or timeout leaves the link and the other calls on it.
import { afterEach, describe, expect, it } from "vitest";
import { McpConnection } from "../../../src/mcp/connection";
import { MAX_LIST_PAGES, MAX_TOOLS_PER_SERVER } from "../../../src/mcp/limits";
import { basicTools } from "../../helpers/mcp-presets";
import { type McpFixture, type McpToolSpec, startMcpServer } from "../../helpers/mcp-server";

function specs(n: number, prefix: string): McpToolSpec[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `${prefix}_${i}`,
    description: `tool ${i}`,
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
    behaviour: { kind: "echo" },
  }));
}

const open: { fixture: McpFixture; connection: McpConnection }[] = [];

async function connect(
  tools: McpToolSpec[],
  pageSize?: number,
): Promise<{ fixture: McpFixture; connection: McpConnection }> {
  const fixture = await startMcpServer({ tools, ...(pageSize === undefined ? {} : { pageSize }) });
  const connection = new McpConnection({ name: "paged", url: fixture.url, headers: {} }, () => {});
  open.push({ fixture, connection });
  return { fixture, connection };
}

function listCalls(fixture: McpFixture): number {
  return fixture.requests.filter((r) => r.rpc.includes("tools/list")).length;
}

afterEach(async () => {
  for (const { fixture, connection } of open.splice(0)) {
    connection.close();
    await fixture.close();
  }
});

describe("McpConnection.list", () => {
  it("follows nextCursor over every page and keeps the server's order", async () => {
    const { fixture, connection } = await connect(specs(5, "paged"), 2);
    const listed = await connection.list(5_000);
    expect(listed.tools.map((t) => t.name)).toEqual(["paged_0", "paged_1", "paged_2", "paged_3", "paged_4"]);
    expect(listed.truncated).toBe(false);
    expect(listCalls(fixture)).toBe(3);
  });

  it(`takes the first ${MAX_TOOLS_PER_SERVER} tools of a larger server and says it was truncated`, async () => {
    const { connection } = await connect(specs(MAX_TOOLS_PER_SERVER + 5, "many"), 50);
    const listed = await connection.list(5_000);
    expect(listed.tools).toHaveLength(MAX_TOOLS_PER_SERVER);
    expect(listed.tools.at(-1)?.name).toBe(`many_${MAX_TOOLS_PER_SERVER - 1}`);
    expect(listed.truncated).toBe(true);
  });

  it(`stops after ${MAX_LIST_PAGES} pages of a server that keeps paginating and says it was truncated`, async () => {
    const { fixture, connection } = await connect(specs(MAX_LIST_PAGES + 3, "slow"), 1);
    const listed = await connection.list(5_000);
    expect(listed.tools.map((t) => t.name)).toEqual(specs(MAX_LIST_PAGES, "slow").map((t) => t.name));
    expect(listed.truncated).toBe(true);
    expect(listCalls(fixture)).toBe(MAX_LIST_PAGES);
  });
});

describe("McpConnection.call", () => {
  it("tells the server a call cancelled by its signal is cancelled (notifications/cancelled)", async () => {
    const { fixture, connection } = await connect(basicTools());
    const stop = new AbortController();
    const call = connection.call("sleep", { ms: 5_000 }, 10_000, stop.signal);
    await fixture.seen("tools/call");
    stop.abort(new Error("the turn was cancelled"));
    await expect(call).rejects.toThrow();
    expect((await fixture.seen("notifications/cancelled")).method).toBe("POST");
  });

  it("tells the server a call that timed out is cancelled (notifications/cancelled)", async () => {
    const { fixture, connection } = await connect(basicTools());
    await expect(connection.call("sleep", { ms: 5_000 }, 300, new AbortController().signal)).rejects.toThrow(
      /timed out/,
    );
    expect((await fixture.seen("notifications/cancelled")).method).toBe("POST");
  });
});
