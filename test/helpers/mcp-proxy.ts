// An HTTP proxy in front of an MCP fixture server that misbehaves on cue, as the network or a faulty gateway
// between a client and a sound server may: it leaves a request unanswered or holds an answer back after the server
// gave it, and says when the server's notification stream (GET) is open and what it has passed on over it.
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface McpProxy {
  url: string;
  /** The next POST carrying JSON-RPC method `rpc` is not passed on and gets no answer. */
  swallow(rpc: string): void;
  /**
   * The server's whole answer to the next POST carrying `rpc` is kept here until `release()`; `answered` settles
   * once it has come (the server built it from its state then).
   */
  holdAnswer(rpc: string): { answered: Promise<void>; release: () => void };
  /** Settles once a GET stream is open through the proxy (the server now sends its notifications over it). */
  streamOpen(): Promise<void>;
  /** Settles once a message carrying JSON-RPC method `rpc` has been passed on over a GET stream. */
  streamed(rpc: string): Promise<void>;
  close(): Promise<void>;
}

interface Hold {
  arrived: () => void;
  released: Promise<void>;
}

/** The JSON-RPC methods of a POST body (one message or a batch). */
function methods(body: Buffer): string[] {
  try {
    const parsed: unknown = JSON.parse(body.toString("utf8"));
    return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((m) =>
      m && typeof m === "object" && "method" in m ? [String(m.method)] : [],
    );
  } catch {
    return [];
  }
}

function settled(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

export async function startMcpProxy(upstream: string): Promise<McpProxy> {
  const target = new URL(upstream);
  const swallowed = new Set<string>();
  const holds = new Map<string, Hold>();
  const open = settled();
  let passedOn = "";
  const watchers: Array<{ rpc: string; resolve: () => void }> = [];
  const notify = () => {
    for (const w of watchers.splice(0)) {
      if (passedOn.includes(`"method":"${w.rpc}"`)) w.resolve();
      else watchers.push(w);
    }
  };
  const http: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const rpc = methods(body);
      const dropped = rpc.find((m) => swallowed.has(m));
      if (dropped !== undefined) {
        swallowed.delete(dropped);
        return;
      }
      const heldFor = rpc.find((m) => holds.has(m));
      const hold = heldFor === undefined ? undefined : holds.get(heldFor);
      if (heldFor !== undefined) holds.delete(heldFor);
      const up = request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
        if (hold) {
          const parts: Buffer[] = [];
          answer.on("data", (c: Buffer) => parts.push(c));
          answer.on("end", () => {
            hold.arrived();
            void hold.released.then(() => {
              res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(parts));
            });
          });
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders();
        if (req.method === "GET") {
          open.resolve();
          answer.on("data", (c: Buffer) => {
            passedOn += c.toString("utf8");
            // Told once the chunk is on its way to the client, not before.
            res.write(c, notify);
          });
          answer.on("end", () => res.end());
          return;
        }
        answer.pipe(res);
      });
      up.on("error", () => res.destroy());
      res.on("close", () => up.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    swallow(rpc) {
      swallowed.add(rpc);
    },
    holdAnswer(rpc) {
      const arrived = settled();
      const released = settled();
      holds.set(rpc, { arrived: arrived.resolve, released: released.promise });
      return { answered: arrived.promise, release: released.resolve };
    },
    streamOpen: () => open.promise,
    streamed(rpc) {
      return new Promise((resolve) => {
        watchers.push({ rpc, resolve });
        notify();
      });
    },
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
