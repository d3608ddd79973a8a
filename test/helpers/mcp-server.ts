// A real MCP server for tests and benches: the SDK's `McpServer` behind its `StreamableHTTPServerTransport`
// in a Node http server, stateful (one McpServer per MCP session, so `notifications/tools/list_changed`
// reaches every connected client over its GET stream). Tools come from plain specs (JSON Schema inputs),
// so the same specs can be handed to a child process. `/_fixture/*` is a small control API.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer, type RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { type CallToolResult, ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

type Json = Record<string, unknown>;

/** What a fixture tool does when called; kept as data so a child process can rebuild it from argv. */
export type McpBehaviour =
  | { kind: "echo" }
  | { kind: "sum" }
  | { kind: "fail"; message: string }
  | { kind: "sleep" }
  | { kind: "big" }
  | { kind: "whoami" }
  /** Answers tools/call with this result as is, past the SDK server's checks (a result a faulty server sends). */
  | { kind: "raw"; result: Json }
  /** Answers tools/call with this JSON-RPC error (any code, as a faulty or foreign server may use). */
  | { kind: "rpc_error"; code: number; message: string }
  /** Answers tools/call with this HTTP error status instead of a JSON-RPC answer. */
  | { kind: "status"; status: number }
  /** Answers tools/call with an SSE stream that ends with no answer in it (`end`), or that breaks off: the
   * connection closes with the stream unfinished (`cut`: a crash, a redeploy, a proxy's idle cut). */
  | { kind: "sse_drop"; how: "end" | "cut" };

export interface McpToolSpec {
  name: string;
  description: string;
  inputSchema: Json;
  outputSchema?: Json;
  meta?: Json;
  behaviour: McpBehaviour;
}

export interface McpRequestRecord {
  method: string;
  /** JSON-RPC method(s) of a POST body. */
  rpc: string[];
  authorization: string | undefined;
  at: number;
}

export interface McpFixture {
  url: string;
  port: number;
  requests: McpRequestRecord[];
  /** The `nth` (default first) request carrying JSON-RPC method `rpc`, once it has arrived. */
  seen(rpc: string, nth?: number): Promise<McpRequestRecord>;
  /** Ends every MCP session, as a server that expired them: a request with an old session id gets 404. */
  forgetSessions(): Promise<void>;
  /** Requests carrying JSON-RPC method `rpc` get no answer from now on (a hanging server). */
  stall(rpc: string): void;
  /** Holds the answers to `rpc` until the returned function is called. */
  hold(rpc: string): () => void;
  /** Replaces the tool set and notifies every connected client (`notifications/tools/list_changed`). */
  setTools(tools: McpToolSpec[]): void;
  close(): Promise<void>;
}

function run(spec: McpToolSpec, args: Json, headers: Json): CallToolResult | Promise<CallToolResult> {
  const b = spec.behaviour;
  switch (b.kind) {
    case "echo":
      return { content: [{ type: "text", text: String(args.text ?? JSON.stringify(args)) }] };
    case "sum": {
      const sum = Number(args.a) + Number(args.b);
      return { content: [{ type: "text", text: `The sum is ${sum}.` }], structuredContent: { sum } };
    }
    case "fail":
      return { content: [{ type: "text", text: b.message }], isError: true };
    case "sleep":
      return new Promise((resolve) =>
        setTimeout(() => resolve({ content: [{ type: "text", text: "slept" }] }), Number(args.ms ?? 1000)),
      );
    case "big":
      return { content: [{ type: "text", text: "x".repeat(Number(args.chars ?? 1000)) }] };
    case "whoami":
      return { content: [{ type: "text", text: String(headers.authorization ?? "anonymous") }] };
    case "raw":
    case "rpc_error":
    case "status":
    case "sse_drop":
      throw new Error(`${b.kind} tools are answered before the MCP server (directAnswer, droppedAnswer)`);
  }
}

/** The behaviour of the tool a POST body calls (tools/call), or undefined for any other body. */
function calledBehaviour(tools: McpToolSpec[], body: unknown): McpBehaviour | undefined {
  const msg = body as { method?: unknown; params?: { name?: unknown } } | undefined;
  if (msg?.method !== "tools/call") return undefined;
  return tools.find((t) => t.name === msg.params?.name)?.behaviour;
}

/** The HTTP answer to a tools/call of a `raw`, `rpc_error` or `status` tool, which the SDK server would not send. */
function directAnswer(tools: McpToolSpec[], body: unknown): { status: number; body: string } | null {
  const b = calledBehaviour(tools, body);
  const id = (body as { id?: unknown } | undefined)?.id;
  if (b?.kind === "raw") return { status: 200, body: JSON.stringify({ jsonrpc: "2.0", id, result: b.result }) };
  if (b?.kind === "rpc_error") {
    const error = { code: b.code, message: b.message };
    return { status: 200, body: JSON.stringify({ jsonrpc: "2.0", id, error }) };
  }
  if (b?.kind === "status") return { status: b.status, body: `{"error":"fixture status ${b.status}"}` };
  return null;
}

/**
 * Answers a tools/call of an `sse_drop` tool: an SSE stream that begins (its headers and a comment reach the client)
 * and then ends or breaks off with no answer in it. False for any other request.
 */
function droppedAnswer(tools: McpToolSpec[], body: unknown, res: ServerResponse): boolean {
  const b = calledBehaviour(tools, body);
  if (b?.kind !== "sse_drop") return false;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  // Cut: the socket closes with the chunked body unfinished, which the client reads as a stream that broke off.
  res.write(": started\n\n", () => (b.how === "end" ? res.end() : res.destroy()));
  return true;
}

function register(server: McpServer, spec: McpToolSpec): RegisteredTool {
  return server.registerTool(
    spec.name,
    {
      description: spec.description,
      inputSchema: z.fromJSONSchema(spec.inputSchema) as z.ZodObject,
      ...(spec.outputSchema ? { outputSchema: z.fromJSONSchema(spec.outputSchema) as z.ZodObject } : {}),
      ...(spec.meta ? { _meta: spec.meta } : {}),
    },
    (args: Json, extra) => run(spec, args, (extra.requestInfo?.headers ?? {}) as Json),
  );
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      try {
        resolve(text ? JSON.parse(text) : undefined);
      } catch {
        resolve(text);
      }
    });
    req.on("error", reject);
  });
}

function rpcMethods(body: unknown): string[] {
  const list = Array.isArray(body) ? body : [body];
  return list.map((m) => (m && typeof m === "object" && "method" in m ? String(m.method) : "(response)"));
}

export async function startMcpServer(opts: {
  tools: McpToolSpec[];
  port?: number;
  /** When set, requests must carry `authorization: <value>` (else 401). */
  authorization?: string;
  /** When set, tools/list answers pages of this many tools (`nextCursor` = the next offset). */
  pageSize?: number;
  /** With `pageSize`: the `nextCursor` the last page carries (some servers send "" for none). */
  lastCursor?: string;
}): Promise<McpFixture> {
  let tools = opts.tools;
  const sessions = new Map<
    string,
    { transport: StreamableHTTPServerTransport; server: McpServer; reg: RegisteredTool[] }
  >();
  const requests: McpRequestRecord[] = [];
  const waiting: Array<{ rpc: string; nth: number; resolve: (r: McpRequestRecord) => void }> = [];
  const stalled = new Set<string>();
  const held = new Map<string, Promise<void>>();
  const nthSeen = (rpc: string, nth: number) => requests.filter((r) => r.rpc.includes(rpc))[nth - 1];
  const http: Server = createServer((req, res) => {
    void (async () => {
      const body = req.method === "POST" ? await readJson(req) : undefined;
      const path = (req.url ?? "/").split("?")[0];
      if (path === "/_fixture/requests") {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(requests));
        return;
      }
      if (path === "/_fixture/tools" && req.method === "POST") {
        fixture.setTools(body as McpToolSpec[]);
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
        return;
      }
      const authorization = req.headers.authorization;
      const record: McpRequestRecord = {
        method: req.method ?? "GET",
        rpc: body === undefined ? [] : rpcMethods(body),
        authorization,
        at: Date.now(),
      };
      requests.push(record);
      for (const w of waiting.splice(0)) {
        const hit = nthSeen(w.rpc, w.nth);
        if (hit) w.resolve(hit);
        else waiting.push(w);
      }
      if (record.rpc.some((m) => stalled.has(m))) return;
      for (const m of record.rpc) await held.get(m);
      if (opts.authorization !== undefined && authorization !== opts.authorization) {
        res.writeHead(401, { "content-type": "application/json" }).end('{"error":"unauthorized"}');
        return;
      }
      const sid = req.headers["mcp-session-id"];
      const known = typeof sid === "string" ? sessions.get(sid) : undefined;
      const direct = known ? directAnswer(tools, body) : null;
      if (direct) {
        res.writeHead(direct.status, { "content-type": "application/json" }).end(direct.body);
        return;
      }
      if (known && droppedAnswer(tools, body, res)) return;
      if (known) return known.transport.handleRequest(req, res, body);
      if (typeof sid === "string") {
        // A session this process never issued (e.g. after a restart): 404 tells the client to initialize again.
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
        return;
      }
      const server = new McpServer({ name: "switchboard-fixture", version: "1.0.0" });
      const entry = {
        transport: undefined as unknown as StreamableHTTPServerTransport,
        server,
        reg: tools.map((t) => register(server, t)),
      };
      const pageSize = opts.pageSize;
      if (pageSize !== undefined) {
        // Replaces the SDK's one-page tools/list with pages of the current specs, as a paginating server does.
        server.server.setRequestHandler(ListToolsRequestSchema, (request) => {
          const from = Number(request.params?.cursor ?? 0);
          const next = from + pageSize;
          return {
            tools: tools.slice(from, next).map((t) => ({
              name: t.name,
              description: t.description,
              inputSchema: t.inputSchema as Tool["inputSchema"],
              ...(t.outputSchema ? { outputSchema: t.outputSchema as Tool["outputSchema"] } : {}),
              ...(t.meta ? { _meta: t.meta } : {}),
            })),
            ...(next < tools.length
              ? { nextCursor: String(next) }
              : opts.lastCursor !== undefined
                ? { nextCursor: opts.lastCursor }
                : {}),
          };
        });
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, entry);
        },
      });
      entry.transport = transport;
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    })().catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const fixture: McpFixture = {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    requests,
    seen(rpc, nth = 1) {
      const done = nthSeen(rpc, nth);
      if (done) return Promise.resolve(done);
      return new Promise((resolve) => waiting.push({ rpc, nth, resolve }));
    },
    async forgetSessions() {
      const all = [...sessions.values()];
      sessions.clear();
      for (const s of all) await s.transport.close().catch(() => {});
    },
    stall(rpc) {
      stalled.add(rpc);
    },
    hold(rpc) {
      let release: () => void = () => {};
      held.set(rpc, new Promise<void>((r) => (release = r)));
      return () => {
        held.delete(rpc);
        release();
      };
    },
    setTools(next) {
      tools = next;
      for (const s of sessions.values()) {
        for (const r of s.reg) r.remove();
        s.reg = next.map((t) => register(s.server, t));
        s.server.sendToolListChanged();
      }
    },
    async close() {
      for (const s of sessions.values()) await s.transport.close().catch(() => {});
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  return fixture;
}
