// Writes a response frame by frame and applies the scripted faults (cuts, stalls, malformed frames, delays).
import type { ServerResponse } from "node:http";
import type { Faults } from "./types.ts";

/** Pause between the last byte of a cut and the socket teardown, so the client has read what was sent. */
export const CUT_GRACE_MS = 50;

export interface WritePlan {
  status: number;
  headers: Record<string, string>;
  frames: string[];
  faults: Faults | undefined;
  /** Added before every frame after the first (e.g. 20 ms for `mock-slow*` models). */
  extraDelayMs: number;
  malformedFrame: string;
}

export type WriteOutcome = "complete" | "cut" | "client_closed";

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

function write(res: ServerResponse, chunk: Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve();
    res.write(chunk, () => resolve());
  });
}

/** Drop the connection without the terminating chunk: the client sees the bytes sent so far, then an error. */
async function cut(res: ServerResponse, signal: AbortSignal, f: Faults): Promise<WriteOutcome> {
  await sleep(f.cut_grace_ms ?? CUT_GRACE_MS, signal);
  // "eof" ends the body cleanly but early: to the client the same truncated stream, without a
  // transport error (sweeps use it so the runtime does not log one exception per cut).
  if (f.cut_mode === "eof") res.end();
  else if (res.socket) res.socket.destroy();
  else res.destroy();
  return "cut";
}

export async function writeWithFaults(res: ServerResponse, plan: WritePlan): Promise<WriteOutcome> {
  const controller = new AbortController();
  const signal = controller.signal;
  res.on("close", () => controller.abort());
  const f = plan.faults ?? {};
  if (f.stall_before_ms !== undefined && f.stall_before_ms > 0) await sleep(f.stall_before_ms, signal);
  if (signal.aborted) return "client_closed";
  res.writeHead(plan.status, plan.headers);
  res.flushHeaders();
  const stallAt = f.stall_after_events ?? (f.stall_ms !== undefined ? 0 : undefined);
  const delay = (f.event_delay_ms ?? 0) + plan.extraDelayMs;
  let bytes = 0;
  for (let i = 0; i <= plan.frames.length; i++) {
    if (i === stallAt) {
      if (f.stall_ms === undefined) await untilAborted(signal);
      else await sleep(f.stall_ms, signal);
    }
    if (signal.aborted) return "client_closed";
    if (i === f.malformed_after_events) {
      const bad = Buffer.from(plan.malformedFrame);
      await write(res, bad);
      bytes += bad.length;
    }
    if (i === f.cut_after_events) return cut(res, signal, f);
    const text = plan.frames[i];
    if (text === undefined) break;
    if (i > 0 && delay > 0) await sleep(delay, signal);
    if (signal.aborted) return "client_closed";
    const chunk = Buffer.from(text);
    if (f.cut_after_bytes !== undefined && bytes + chunk.length >= f.cut_after_bytes) {
      const rest = f.cut_after_bytes - bytes;
      if (rest > 0) await write(res, chunk.subarray(0, rest));
      return cut(res, signal, f);
    }
    await write(res, chunk);
    bytes += chunk.length;
  }
  if (f.cut_after_bytes !== undefined) return cut(res, signal, f);
  res.end();
  return "complete";
}
