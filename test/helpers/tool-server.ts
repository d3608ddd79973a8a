// A tiny local HTTP endpoint for `http` tools. The worker POSTs each call to it; the handler's
// return value is the answer (a plain value → 200 JSON; a Fetch `Response` → sent as is).
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";

export interface ToolCall {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The request body parsed as JSON, or the raw text when it is not JSON. */
  body: unknown;
  raw: string;
  /** Convenience fields of the worker's `{tool_use_id, name, input}` body (undefined when absent). */
  tool_use_id: string | undefined;
  name: string | undefined;
  input: unknown;
  at: number;
}

export type ToolHandler = (call: ToolCall) => unknown;

export interface ToolServer {
  /** Base URL, e.g. http://127.0.0.1:40123 (any path under it reaches the handler). */
  url: string;
  port: number;
  /** Every call received, oldest first. */
  calls: ToolCall[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function field(body: unknown, name: string): unknown {
  return typeof body === "object" && body !== null && !Array.isArray(body) ? Reflect.get(body, name) : undefined;
}

async function reply(res: ServerResponse, value: unknown): Promise<void> {
  if (value instanceof Response) {
    const headers: Record<string, string> = {};
    value.headers.forEach((v, k) => {
      headers[k] = v;
    });
    const body = Buffer.from(await value.arrayBuffer());
    res.writeHead(value.status, { ...headers, "content-length": String(body.byteLength) });
    res.end(body);
    return;
  }
  const body = JSON.stringify(value === undefined ? null : value);
  res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) });
  res.end(body);
}

export async function startToolServer(
  handler: ToolHandler,
  opts: { host?: string; port?: number } = {},
): Promise<ToolServer> {
  const calls: ToolCall[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // not JSON: keep the text
      }
      const toolUseId = field(body, "tool_use_id");
      const name = field(body, "name");
      const call: ToolCall = {
        method: req.method ?? "GET",
        path: req.url ?? "/",
        headers: req.headers,
        body,
        raw,
        tool_use_id: typeof toolUseId === "string" ? toolUseId : undefined,
        name: typeof name === "string" ? name : undefined,
        input: field(body, "input"),
        at: Date.now(),
      };
      calls.push(call);
      await reply(res, await handler(call));
    })().catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(`tool server handler failed: ${message}`);
    });
  });
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("tool server has no TCP address");
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    calls,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
