// McpCatalog against real MCP servers (the SDK's, in this process, one behind a proxy that holds an answer back)
// over a storage that keeps nothing: which listing a refresh runs, and which one's result the catalog keeps.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { McpServerConfig } from "../../../src/agents/types";
import { McpConnection } from "../../../src/mcp/connection";
import { McpCatalog } from "../../../src/mcp/mcp-catalog";
import { type McpProxy, startMcpProxy } from "../../helpers/mcp-proxy";
import { type McpFixture, type McpToolSpec, startMcpServer } from "../../helpers/mcp-server";

/** SqlStorage that stores nothing: the catalog's state lives in memory for the test. */
const noStorage = { exec: () => ({ toArray: () => [], rowsWritten: 0 }) } as never;
const limits = { listTimeoutMs: 5_000, callTimeoutMs: 5_000, ttlMs: 60_000, allowPrivate: true };

const open: McpFixture[] = [];
const proxies: McpProxy[] = [];
const catalogs: McpCatalog[] = [];

function echo(name: string): McpToolSpec {
  return { name, description: name, inputSchema: { type: "object" }, behaviour: { kind: "echo" } };
}

async function server(tool: string): Promise<McpFixture> {
  const fixture = await startMcpServer({ tools: [echo(tool)] });
  open.push(fixture);
  return fixture;
}

/**
 * Resolves once an MCP client opened from now on has handled a tools/list_changed notice: the handler a connection
 * sets on its SDK Client (which tells the catalog) is wrapped. Restored by afterEach (restoreAllMocks).
 */
function listChangedHandled(): Promise<void> {
  let handled!: () => void;
  const done = new Promise<void>((resolve) => {
    handled = resolve;
  });
  const set = Client.prototype.setNotificationHandler;
  vi.spyOn(Client.prototype, "setNotificationHandler").mockImplementation(function (this: Client, schema, handler) {
    if (schema !== ToolListChangedNotificationSchema) return set.call(this, schema, handler);
    return set.call(this, schema, async (notification) => {
      await handler(notification);
      handled();
    });
  });
  return done;
}

afterEach(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  for (const catalog of catalogs.splice(0)) catalog.close();
  for (const proxy of proxies.splice(0)) await proxy.close();
  for (const fixture of open.splice(0)) await fixture.close();
});

describe("McpCatalog.refresh", () => {
  it("lists a server whose config changed while the old config's listing runs, keeping the new config's tools", async () => {
    const before = await server("before_tool");
    const after = await server("after_tool");
    const catalog = new McpCatalog(noStorage);
    catalogs.push(catalog);
    const old: McpServerConfig = { name: "moved", url: before.url };
    const moved: McpServerConfig = { name: "moved", url: after.url };
    await Promise.all([catalog.refresh([old], limits), catalog.refresh([moved], limits)]);
    expect(catalog.snapshot([moved]).tools.map((t) => t.name)).toEqual(["mcp__moved__after_tool"]);
  });

  it("keeps the new config's tools when the old config's listing fails after the new one ended", async () => {
    const before = await server("stalled_tool");
    const after = await server("current_tool");
    before.stall("tools/list");
    const catalog = new McpCatalog(noStorage);
    catalogs.push(catalog);
    const old: McpServerConfig = { name: "rehomed", url: before.url };
    const rehomed: McpServerConfig = { name: "rehomed", url: after.url };
    const stale = catalog.refresh([old], { ...limits, listTimeoutMs: 300 });
    await before.seen("tools/list");
    await catalog.refresh([rehomed], limits);
    await stale;
    expect(catalog.snapshot([rehomed]).tools.map((t) => t.name)).toEqual(["mcp__rehomed__current_tool"]);
  });

  it("a listing joined after its config came back from another one announces its tools again", async () => {
    const first = await server("first_tool");
    const second = await server("second_tool");
    const catalog = new McpCatalog(noStorage);
    catalogs.push(catalog);
    const relisted = { ...limits, ttlMs: 0 };
    const a: McpServerConfig = { name: "flipped", url: first.url };
    const b: McpServerConfig = { name: "flipped", url: second.url };
    await catalog.refresh([a], relisted);
    const release = first.hold("tools/list");
    const slow = catalog.refresh([a], relisted);
    await first.seen("tools/list", 2);
    await catalog.refresh([b], relisted);
    const afterB = catalog.version;
    // Back to the first config: this joins its listing still in flight.
    const joined = catalog.refresh([a], relisted);
    release();
    await Promise.all([slow, joined]);
    expect(catalog.snapshot([a]).tools.map((t) => t.name)).toEqual(["mcp__flipped__first_tool"]);
    // The tool set changed from b's: a new version, so a registry built from b's tools is built again.
    expect(catalog.version).toBeGreaterThan(afterB);
  });

  it("lists a server again when its tools/list_changed came while its first listing was in flight", async () => {
    const fixture = await server("early_tool");
    const proxy = await startMcpProxy(fixture.url);
    proxies.push(proxy);
    const catalog = new McpCatalog(noStorage);
    catalogs.push(catalog);
    const changing: McpServerConfig = { name: "changing", url: proxy.url };
    const noticed = listChangedHandled();
    const held = proxy.holdAnswer("tools/list");
    const first = catalog.refresh([changing], limits);
    // The server has answered with its old list; the client gets that answer only after the change notice.
    await held.answered;
    await proxy.streamOpen();
    fixture.setTools([echo("early_tool"), echo("late_tool")]);
    // The notice comes on another connection than the held answer: the catalog has taken it in before the release.
    await noticed;
    held.release();
    await first;
    await catalog.refresh([changing], limits);
    expect(catalog.snapshot([changing]).tools.map((t) => t.name)).toEqual([
      "mcp__changing__early_tool",
      "mcp__changing__late_tool",
    ]);
  });

  it("a server whose new config cannot be listed is down with the tools it had, not a server with none", async () => {
    const before = await server("kept_tool");
    const gone = await server("never_listed");
    await gone.close();
    const catalog = new McpCatalog(noStorage);
    catalogs.push(catalog);
    await catalog.refresh([{ name: "moving", url: before.url }], limits);
    const moved: McpServerConfig = { name: "moving", url: gone.url };
    await catalog.refresh([moved], limits);
    const snapshot = catalog.snapshot([moved]);
    expect(snapshot.tools).toEqual([]);
    expect([...snapshot.down.keys()]).toEqual(["mcp__moving__kept_tool"]);
  });

  it("gives up on a server that never answers its listing after the list timeout, not twice that", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    vi.spyOn(McpConnection.prototype, "list").mockReturnValue(new Promise(() => {}));
    const catalog = new McpCatalog(noStorage);
    catalogs.push(catalog);
    let settled = false;
    const refreshed = catalog
      .refresh([{ name: "silent", url: "http://127.0.0.1:9/mcp" }], { ...limits, listTimeoutMs: 1_000 })
      .then(() => {
        settled = true;
      });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(settled).toBe(true);
    await refreshed;
    expect(catalog.statuses()).toMatchObject([{ name: "silent", status: "disconnected" }]);
  });
});
