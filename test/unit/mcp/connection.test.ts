// McpConnection against a real MCP server (the SDK's, in this process): tools/list pagination, how one
// call's cancel, timeout or stale session leaves the link and the other calls on it, and a connect left unfinished
// (behind a proxy that drops a request). The idle close is shortened so a call can outlast it.
import { afterEach, describe, expect, it, vi } from "vitest";
import { McpConnection } from "../../../src/mcp/connection";
import { failureKind, failureOutcome, resultContent } from "../../../src/mcp/convert";
import { MAX_LIST_PAGES, MAX_TOOLS_PER_SERVER } from "../../../src/mcp/limits";
import { withTimeout } from "../../../src/mcp/timeout";

vi.mock("../../../src/mcp/limits", async (original) => ({
  ...(await original<typeof import("../../../src/mcp/limits")>()),
  IDLE_CLOSE_MS: 500,
}));

import { basicTools } from "../../helpers/mcp-presets";
import { type McpProxy, startMcpProxy } from "../../helpers/mcp-proxy";
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
const proxies: McpProxy[] = [];

async function connect(
  tools: McpToolSpec[],
  pageSize?: number,
  lastCursor?: string,
): Promise<{ fixture: McpFixture; connection: McpConnection }> {
  const fixture = await startMcpServer({
    tools,
    ...(pageSize === undefined ? {} : { pageSize }),
    ...(lastCursor === undefined ? {} : { lastCursor }),
  });
  const connection = new McpConnection({ name: "paged", url: fixture.url, headers: {} }, () => {});
  open.push({ fixture, connection });
  return { fixture, connection };
}

/** The names of listed entries (a listing holds them as the server sent them). */
function names(tools: unknown[]): unknown[] {
  return tools.map((t) => (t as { name?: unknown }).name);
}

function listCalls(fixture: McpFixture): number {
  return fixture.requests.filter((r) => r.rpc.includes("tools/list")).length;
}

afterEach(async () => {
  for (const proxy of proxies.splice(0)) await proxy.close();
  for (const { fixture, connection } of open.splice(0)) {
    connection.close();
    await fixture.close();
  }
});

function callText(res: { result: { content: Array<{ type: string; text?: string }> } }): string | undefined {
  return res.result.content[0]?.text;
}

describe("McpConnection.list", () => {
  it("follows nextCursor over every page and keeps the server's order", async () => {
    const { fixture, connection } = await connect(specs(5, "paged"), 2);
    const listed = await connection.list(5_000);
    expect(names(listed.tools)).toEqual(["paged_0", "paged_1", "paged_2", "paged_3", "paged_4"]);
    expect(listed.truncated).toBe(false);
    expect(listCalls(fixture)).toBe(3);
  });

  it('takes a last page whose nextCursor is "" as the end of the list, not as truncated', async () => {
    const { connection } = await connect(specs(3, "empty_cursor"), 2, "");
    const listed = await connection.list(5_000);
    expect(names(listed.tools)).toEqual(["empty_cursor_0", "empty_cursor_1", "empty_cursor_2"]);
    expect(listed.truncated).toBe(false);
  });

  it(`takes the first ${MAX_TOOLS_PER_SERVER} tools of a larger server and says it was truncated`, async () => {
    const { connection } = await connect(specs(MAX_TOOLS_PER_SERVER + 5, "many"), 50);
    const listed = await connection.list(5_000);
    expect(listed.tools).toHaveLength(MAX_TOOLS_PER_SERVER);
    expect(names(listed.tools).at(-1)).toBe(`many_${MAX_TOOLS_PER_SERVER - 1}`);
    expect(listed.truncated).toBe(true);
  });

  it(`stops after ${MAX_LIST_PAGES} pages of a server that keeps paginating and says it was truncated`, async () => {
    const { fixture, connection } = await connect(specs(MAX_LIST_PAGES + 3, "slow"), 1);
    const listed = await connection.list(5_000);
    expect(names(listed.tools)).toEqual(specs(MAX_LIST_PAGES, "slow").map((t) => t.name));
    expect(listed.truncated).toBe(true);
    expect(listCalls(fixture)).toBe(MAX_LIST_PAGES);
  });

  it("lists the tools of a server whose list holds a malformed one, that one included as sent", async () => {
    const malformed = { ...specs(1, "odd")[0], description: null } as unknown as McpToolSpec;
    const { connection } = await connect([...specs(2, "fine"), malformed], 10);
    const listed = await connection.list(5_000);
    expect(names(listed.tools)).toEqual(["fine_0", "fine_1", "odd_0"]);
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

describe("McpConnection links", () => {
  it("keeps the link open for a call that runs longer than the idle close", async () => {
    const { connection } = await connect(basicTools());
    const res = await connection.call("sleep", { ms: 1_500 }, 10_000, new AbortController().signal);
    expect(callText(res)).toBe("slept");
  });

  it("re-sends every parallel call the server refused with 404 (its MCP session expired), each once", async () => {
    const { fixture, connection } = await connect(basicTools());
    const signal = new AbortController().signal;
    await connection.call("echo", { text: "before" }, 5_000, signal);
    await fixture.forgetSessions();
    const texts = ["a", "b", "c", "d", "e"];
    const results = await Promise.all(texts.map((text) => connection.call("echo", { text }, 5_000, signal)));
    expect(results.map(callText)).toEqual(texts);
    // Besides the first call, each was refused once on the dead session and sent once more on the new one.
    expect(fixture.requests.filter((r) => r.rpc.includes("tools/call"))).toHaveLength(1 + 2 * texts.length);
  });

  it("lets a call running on a retired link finish there while the next request opens a fresh link", async () => {
    const { fixture, connection } = await connect(basicTools());
    const signal = new AbortController().signal;
    const running = connection.call("sleep", { ms: 300 }, 5_000, signal);
    await fixture.seen("tools/call");
    connection.retire();
    await connection.list(5_000);
    expect(callText(await running)).toBe("slept");
    expect(fixture.requests.filter((r) => r.rpc.includes("initialize"))).toHaveLength(2);
  });

  // Each listing bounded as the catalog bounds it, so a connection that never opens a fresh link fails, not hangs.
  it("connects afresh after a connect whose notifications/initialized got no answer", async () => {
    const fixture = await startMcpServer({ tools: basicTools() });
    const proxy = await startMcpProxy(fixture.url);
    proxies.push(proxy);
    proxy.swallow("notifications/initialized");
    const connection = new McpConnection({ name: "unacknowledged", url: proxy.url, headers: {} }, () => {});
    open.push({ fixture, connection });
    await expect(withTimeout(connection.list(1_000), 3_000)).rejects.toThrow();
    const listed = await withTimeout(connection.list(5_000), 5_000);
    expect(names(listed.tools)).toContain("echo");
    expect(fixture.requests.filter((r) => r.rpc.includes("initialize"))).toHaveLength(2);
  });

  it("stops re-opening a link after a 404 when the call's signal aborts (a server stalling at initialize)", async () => {
    const { fixture, connection } = await connect(basicTools());
    await connection.call("echo", { text: "before" }, 5_000, new AbortController().signal);
    fixture.stall("initialize");
    await fixture.forgetSessions();
    const stop = new AbortController();
    const call = connection.call("echo", { text: "after" }, 20_000, stop.signal);
    await fixture.seen("initialize", 2);
    stop.abort(new Error("the turn was cancelled"));
    await expect(call).rejects.toThrow("the turn was cancelled");
  });
});

describe("McpConnection call results", () => {
  const signal = new AbortController().signal;
  const countOutput = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
  const counter = (result: Record<string, unknown>): McpToolSpec => ({
    name: "count",
    description: "Counts.",
    inputSchema: { type: "object" },
    outputSchema: countOutput,
    behaviour: { kind: "raw", result },
  });

  it.each([0, -32000])("reports a call the server answered with JSON-RPC error %i as refused", async (code) => {
    const name = `raises_${Math.abs(code)}`;
    const { connection } = await connect([
      {
        name,
        description: "Raises.",
        inputSchema: { type: "object" },
        behaviour: { kind: "rpc_error", code, message: "boom" },
      },
    ]);
    const e = await connection.call(name, {}, 5_000, signal).then(
      () => null,
      (err: unknown) => err,
    );
    expect(failureKind(e, false)).toBe("refused");
  });

  it("reports a call whose link closed under it as unreachable", async () => {
    const { fixture, connection } = await connect(basicTools());
    const running = connection.call("sleep", { ms: 5_000 }, 10_000, signal).then(
      () => null,
      (err: unknown) => err,
    );
    await fixture.seen("tools/call");
    connection.close();
    expect(failureKind(await running, false)).toBe("unreachable");
  });

  it("fails a call answered with HTTP 503 with that status, worded as such rather than as a disconnected server", async () => {
    const busy: McpToolSpec = {
      name: "busy",
      description: "Overloaded.",
      inputSchema: { type: "object" },
      behaviour: { kind: "status", status: 503 },
    };
    const { connection } = await connect([busy]);
    const e = await connection.call("busy", {}, 5_000, signal).then(
      () => null,
      (err: unknown) => err,
    );
    const ctx = { name: "mcp__s__busy", server: "s", loaded: true, timeoutMs: 5_000, ms: 5 };
    expect(failureOutcome(failureKind(e, false), e, ctx).content).toMatch(
      /^MCP server "s" answered HTTP 503 to the call to "mcp__s__busy" \(.*\); try again later\.$/,
    );
  });

  // No listing first: a restarted session calls with the output schema of its cached list, on a fresh connection.
  it("passes on a result that does not match the output schema it is given, with a note saying so", async () => {
    const { connection } = await connect([
      counter({ content: [{ type: "text", text: "Seven." }], structuredContent: { n: "seven" } }),
    ]);
    const res = await connection.call("count", {}, 5_000, signal, countOutput);
    expect(resultContent(res.result, res.schemaError)).toEqual({
      is_error: false,
      content: [
        { type: "text", text: "Seven." },
        { type: "text", text: '{"n":"seven"}' },
        {
          type: "text",
          text: expect.stringMatching(
            /^\[note: the structured content does not match the tool's declared output schema \(.+\); the result is passed on as the server sent it\]$/,
          ),
        },
      ],
    });
  });

  it("passes on a result without the structured content its output schema declares, with a note saying so", async () => {
    const { connection } = await connect([counter({ content: [{ type: "text", text: "Seven." }] })]);
    const res = await connection.call("count", {}, 5_000, signal, countOutput);
    expect(resultContent(res.result, res.schemaError)).toEqual({
      is_error: false,
      content: [
        { type: "text", text: "Seven." },
        {
          type: "text",
          text: "[note: the tool declares an output schema but returned no structured content; the result is passed on as the server sent it]",
        },
      ],
    });
  });

  it("keeps a result's valid blocks and puts a placeholder for the blocks the MCP schema rejects", async () => {
    const content = [
      { type: "text", text: "first" },
      { type: "video", url: "https://example.com/v.mp4" },
      { type: "image", data: "AAAA" },
      { type: "text", text: "last" },
    ];
    const mixed: McpToolSpec = {
      name: "mixed",
      description: "Mixed.",
      inputSchema: { type: "object" },
      behaviour: { kind: "raw", result: { content } },
    };
    const { connection } = await connect([mixed]);
    const res = await connection.call("mixed", {}, 5_000, signal);
    expect(resultContent(res.result, res.schemaError)).toEqual({
      is_error: false,
      content: [
        { type: "text", text: "first" },
        { type: "text", text: "[unsupported content block]" },
        { type: "text", text: "[unsupported content block]" },
        { type: "text", text: "last" },
      ],
    });
  });
});
