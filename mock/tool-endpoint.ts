// A scriptable `http` tool endpoint for tests that run where no Node server of their own can be
// started (the Workers pool): POST /_tool?delay_ms=&status= echoes the call it receives;
// `bytes=N` answers a text/plain body of exactly N bytes instead (for storage-size tests), and `dense=N&kind=K`
// N items of dense content (dense-data.ts: UUIDs, base64 or JSON records, which a real tokenizer reads far denser
// than 4 characters a token).
// POST /_tool?stream_bytes=N&tag=T streams N bytes of text and stops when the client hangs up;
// GET /_tool/stats?tag=T says how many bytes were written for T and whether the client hung up first.
// POST /_tool?hold=H answers (as it would without `hold`) only once POST /_tool/release?hold=H came, before or after
// it: a call that runs exactly as long as a test needs, with no wall-clock wait.
import type { ServerResponse } from "node:http";
import { DENSE_KINDS, type DenseKind, denseData } from "./dense-data.ts";

interface ToolStats {
  written: number;
  /** The client closed the connection before the answer was complete. */
  hung_up: boolean;
}

const stats = new Map<string, ToolStats>();

/** Each hold by name: `true` once released, else the wake-ups of the calls waiting on it. */
const holds = new Map<string, true | Array<() => void>>();

/** Resolves once hold `name` is released (at once if it was), or the client hangs up. */
function heldUntilReleased(name: string, res: ServerResponse): Promise<void> {
  const waiting = holds.get(name) ?? [];
  if (waiting === true) return Promise.resolve();
  holds.set(name, waiting);
  return new Promise((resolve) => {
    waiting.push(resolve);
    res.once("close", () => resolve());
  });
}

/** POST /_tool/release?hold=H: the calls held on H (now and later) are answered. */
export function handleToolRelease(url: URL, res: ServerResponse): void {
  const name = url.searchParams.get("hold") ?? "";
  const waiting = holds.get(name);
  holds.set(name, true);
  if (Array.isArray(waiting)) for (const wake of waiting) wake();
  res.writeHead(204);
  res.end();
}

export function handleToolStats(url: URL, res: ServerResponse): void {
  const body = JSON.stringify(stats.get(url.searchParams.get("tag") ?? "") ?? null);
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** Writes `total` bytes in 64 KiB chunks, honouring backpressure; stops as soon as the client hangs up. */
async function streamBytes(total: number, entry: ToolStats, res: ServerResponse): Promise<void> {
  res.writeHead(200, { "content-type": "text/plain" });
  const chunk = Buffer.alloc(64 * 1024, "x");
  while (entry.written < total) {
    if (res.destroyed) {
      entry.hung_up = true;
      return;
    }
    const part = total - entry.written >= chunk.length ? chunk : chunk.subarray(0, total - entry.written);
    entry.written += part.length;
    if (!res.write(part)) {
      // Whichever comes first; the other listener goes too (one per wait would pile up on a long stream).
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off("drain", done);
          res.off("close", done);
          resolve();
        };
        res.once("drain", done);
        res.once("close", done);
      });
    }
  }
  res.end();
}

export async function handleToolEndpoint(url: URL, raw: string, res: ServerResponse): Promise<void> {
  const entry: ToolStats = { written: 0, hung_up: false };
  const tag = url.searchParams.get("tag");
  if (tag) stats.set(tag, entry);
  res.once("close", () => {
    if (!res.writableFinished) entry.hung_up = true;
  });
  const streamed = Number(url.searchParams.get("stream_bytes") ?? 0);
  if (streamed > 0) return streamBytes(streamed, entry, res);
  const delay = Number(url.searchParams.get("delay_ms") ?? 0);
  const status = Number(url.searchParams.get("status") ?? 200);
  const hold = url.searchParams.get("hold");
  if (hold) await heldUntilReleased(hold, res);
  if (delay > 0) await new Promise((r) => setTimeout(r, Math.min(delay, 60_000)));
  const size = Number(url.searchParams.get("bytes") ?? 0);
  if (size > 0 && status >= 200 && status < 300) {
    if (res.destroyed) return;
    res.writeHead(status, { "content-type": "text/plain", "content-length": size });
    res.end(Buffer.alloc(Math.min(size, 50_000_000), "0123456789abcdef"));
    return;
  }
  const dense = Number(url.searchParams.get("dense") ?? 0);
  const kind = url.searchParams.get("kind") ?? "uuids";
  if (dense > 0 && status >= 200 && status < 300 && DENSE_KINDS.includes(kind as DenseKind)) {
    if (res.destroyed) return;
    const text = denseData(kind as DenseKind, Math.min(dense, 100_000), raw);
    entry.written = Buffer.byteLength(text);
    res.writeHead(status, { "content-type": "text/plain", "content-length": entry.written });
    res.end(text);
    return;
  }
  let call: unknown = null;
  try {
    call = JSON.parse(raw);
  } catch {
    call = raw;
  }
  const body = JSON.stringify(
    status >= 200 && status < 300 ? { echo: call, at: Date.now() } : { error: "scripted failure" },
  );
  if (res.destroyed) return;
  entry.written = Buffer.byteLength(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}
