// A scriptable webhook receiver for tests that cannot start a Node server of their own (the Workers
// pool): POST /_callback/<name>?fail=N answers 500 to the first N deliveries for <name>, then 200 (each
// answer `delay_ms` later when given), and records every delivery (headers, body, answer) as it arrives;
// GET /_callback/<name> lists them, oldest first.
import type { IncomingMessage, ServerResponse } from "node:http";

export interface CallbackRecord {
  at: number;
  headers: Record<string, string>;
  body: string;
  answered: number;
}

const deliveries = new Map<string, CallbackRecord[]>();

function send(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** Returns false when the request is not for this endpoint. */
export function handleCallbackEndpoint(req: IncomingMessage, url: URL, raw: string, res: ServerResponse): boolean {
  const m = url.pathname.match(/^\/_callback\/([A-Za-z0-9_.-]{1,200})$/);
  if (!m?.[1]) return false;
  const name = m[1];
  const list = deliveries.get(name) ?? [];
  deliveries.set(name, list);
  if (req.method === "GET") {
    send(res, 200, { deliveries: list });
    return true;
  }
  const fail = Number(url.searchParams.get("fail") ?? 0);
  const answered = list.length < fail ? 500 : 200;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
  list.push({ at: Date.now(), headers, body: raw, answered });
  // `?delay_ms=N`: the answer comes N ms later (a slow receiver; the delivery is recorded at once).
  const delay = Math.min(Math.max(Number(url.searchParams.get("delay_ms") ?? 0) || 0, 0), 30_000);
  const answer = () => send(res, answered, answered === 200 ? { ok: true } : { error: "scripted failure" });
  if (delay > 0) setTimeout(answer, delay);
  else answer();
  return true;
}
