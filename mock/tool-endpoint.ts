// A scriptable `http` tool endpoint for tests that run where no Node server of their own can be
// started (the Workers pool): POST /_tool?delay_ms=&status= echoes the call it receives;
// `bytes=N` answers a text/plain body of exactly N bytes instead (for storage-size tests).
import type { ServerResponse } from "node:http";

export async function handleToolEndpoint(url: URL, raw: string, res: ServerResponse): Promise<void> {
  const delay = Number(url.searchParams.get("delay_ms") ?? 0);
  const status = Number(url.searchParams.get("status") ?? 200);
  if (delay > 0) await new Promise((r) => setTimeout(r, Math.min(delay, 60_000)));
  const size = Number(url.searchParams.get("bytes") ?? 0);
  if (size > 0 && status >= 200 && status < 300) {
    if (res.destroyed) return;
    res.writeHead(status, { "content-type": "text/plain", "content-length": size });
    res.end(Buffer.alloc(Math.min(size, 50_000_000), "0123456789abcdef"));
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
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}
