// Mock model server: speaks the Anthropic Messages, OpenAI Chat Completions and OpenAI Responses wire protocols,
// enforces the tool pairing invariant like the real APIs, and injects scripted faults.
//
//   node --no-warnings mock/server.ts        (MOCK_PORT or 8788, on 127.0.0.1)
//
// Anthropic clients use the server URL as base URL; OpenAI clients (both protocols) use `${url}/v1`.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { anthropicCodec } from "./anthropic.ts";
import { handleCallbackEndpoint } from "./callback-endpoint.ts";
import { handleControl, MockState } from "./control.ts";
import { openaiCodec } from "./openai.ts";
import { openaiResponsesCodec } from "./openai-responses.ts";
import { handleProvider } from "./respond.ts";
import { handleToolEndpoint, handleToolRelease, handleToolStats } from "./tool-endpoint.ts";

export interface MockServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface MockOptions {
  port?: number;
  host?: string;
  /** Print one line per provider request (on when run directly). */
  log?: boolean;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function notFound(res: ServerResponse): void {
  const body = JSON.stringify({ type: "error", error: { type: "not_found_error", message: "Not Found" } });
  res.writeHead(404, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

async function route(state: MockState, req: IncomingMessage, res: ServerResponse, log: boolean): Promise<void> {
  const url = new URL(req.url ?? "/", "http://mock.invalid");
  const method = req.method ?? "GET";
  const raw = await readBody(req);
  if (method === "GET" && url.pathname === "/healthz") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"ok":true}');
    return;
  }
  if (method === "GET" && url.pathname === "/_tool/stats") {
    handleToolStats(url, res);
    return;
  }
  if (method === "POST" && url.pathname === "/_tool") {
    await handleToolEndpoint(url, raw, res);
    return;
  }
  if (method === "POST" && url.pathname === "/_tool/release") {
    handleToolRelease(url, res);
    return;
  }
  if (url.pathname.startsWith("/_callback/") && handleCallbackEndpoint(req, url, raw, res)) return;
  if (url.pathname.startsWith("/_mock/")) {
    if (!handleControl(state, method, url, raw, res)) notFound(res);
    return;
  }
  if (method === "POST" && url.pathname === "/v1/messages") {
    await handleProvider(anthropicCodec, state, req, res, url.pathname, raw, log);
    return;
  }
  if (method === "POST" && url.pathname === "/v1/chat/completions") {
    await handleProvider(openaiCodec, state, req, res, url.pathname, raw, log);
    return;
  }
  if (method === "POST" && url.pathname === "/v1/responses") {
    await handleProvider(openaiResponsesCodec, state, req, res, url.pathname, raw, log);
    return;
  }
  notFound(res);
}

export async function startMock(opts: MockOptions = {}): Promise<MockServer> {
  const state = new MockState();
  const log = opts.log ?? false;
  const server = createServer((req, res) => {
    route(state, req, res, log).catch((error: unknown) => {
      console.error("mock model server error:", error);
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end();
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
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  const port = Number(process.env.MOCK_PORT ?? 8788);
  startMock({ port, host: "127.0.0.1", log: process.env.MOCK_QUIET !== "1" }).then(
    (mock) => {
      console.log(`mock model server listening on ${mock.url}`);
      const stop = (): void => {
        void mock.close().then(() => process.exit(0));
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
