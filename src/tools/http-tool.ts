/**
 * Execution of `http` tools: `callHttpTool` POSTs the call to the tool's endpoint and turns any failure (refused
 * URL, timeout, non-2xx, unreachable) into an is_error outcome; it throws only when the turn is cancelled.
 * Responses are read up to MAX_TOOL_RESPONSE_BYTES (`readCapped`; a result cut there says so in `cut`); redirects are
 * not followed.
 */
import type { JsonObject } from "../model/json";
import type { ToolResultContent } from "../model/message";
import { fitPiece, headChars, jsonBytes } from "../storage/fit";
import { RESULT_BUDGET_BYTES } from "../storage/limits";
import { checkOutboundUrl } from "./outbound";

export interface ToolOutcome {
  content: ToolResultContent;
  is_error: boolean;
  status?: number;
  ms: number;
  /**
   * True when the tool's output was cut before it was returned here (an `http` response past
   * MAX_TOOL_RESPONSE_BYTES, an MCP output past MAX_MCP_OUTPUT_CHARS): its text is a head and a marker of that
   * tool's own, not what the tool returned, so the call's result is stored as cut and no `$tool` reference passes it.
   */
  cut?: boolean;
}

const DEFAULT_TOOL_TIMEOUT_MS = 10_000;

/**
 * Bytes of a tool endpoint's response that are read; reading stops there (the body is cancelled), so an
 * endless or huge body cannot exhaust the isolate's memory. Well above what is stored (RESULT_BUDGET_BYTES),
 * so a JSON answer whose `content` is cut later still parses.
 */
export const MAX_TOOL_RESPONSE_BYTES = 1024 * 1024;

/** Reads at most `cap` bytes of a body as text, then cancels the rest of the stream. */
async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  cap: number,
): Promise<{ text: string; bytes: number; cut: boolean }> {
  if (!body) return { text: "", bytes: 0, cut: false };
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: text + decoder.decode(), bytes, cut: false };
    const room = cap - bytes;
    if (value.byteLength > room) {
      text += decoder.decode(value.subarray(0, room));
      reader.cancel().catch(() => {});
      return { text, bytes: cap, cut: true };
    }
    bytes += value.byteLength;
    text += decoder.decode(value, { stream: true });
  }
}

function contentFromJson(value: unknown): ToolResultContent {
  if (value && typeof value === "object" && !Array.isArray(value) && "content" in value) {
    const content = (value as { content: unknown }).content;
    if (typeof content === "string") return content;
    if (Array.isArray(content) && content.every((b) => b && typeof b === "object" && typeof b.text === "string")) {
      return content.map((b: { text: string }) => ({ type: "text" as const, text: b.text }));
    }
  }
  return JSON.stringify(value);
}

/**
 * Calls an `http` tool: POST {tool_use_id, name, input}. Any failure becomes
 * an is_error result the model can read; this function never throws except
 * for cancellation of the whole turn.
 */
export async function callHttpTool(opts: {
  url: string;
  timeoutMs: number | undefined;
  toolUseId: string;
  name: string;
  input: JsonObject;
  signal: AbortSignal;
  allowPrivate: boolean;
}): Promise<ToolOutcome> {
  const started = Date.now();
  const ms = () => Date.now() - started;
  const blocked = checkOutboundUrl(opts.url, opts.allowPrivate);
  if (blocked) return { content: `tool endpoint refused: ${blocked}`, is_error: true, ms: ms() };
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const signal = AbortSignal.any([opts.signal, AbortSignal.timeout(timeoutMs)]);
  try {
    const res = await fetch(opts.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/plain" },
      body: JSON.stringify({ tool_use_id: opts.toolUseId, name: opts.name, input: opts.input }),
      signal,
      redirect: "manual",
    });
    const read = await readCapped(res.body, MAX_TOOL_RESPONSE_BYTES);
    // The marker is kept inside the stored size, so the model sees that reading stopped.
    const marker = `\n[truncated: the response was larger than ${MAX_TOOL_RESPONSE_BYTES} bytes; reading stopped there]`;
    // The head is cut by its JSON size (quotes, escapes, multi-byte characters), so the stored budget keeps it and
    // this marker whole rather than cutting again with a marker of its own.
    const text = read.cut
      ? `${fitPiece(read.text, 0, RESULT_BUDGET_BYTES - 64, jsonBytes(marker) - 2)}${marker}`
      : read.text;
    if (res.status < 200 || res.status >= 300) {
      return {
        content: `tool endpoint answered HTTP ${res.status}: ${headChars(text, 2000)}`,
        is_error: true,
        status: res.status,
        ms: ms(),
      };
    }
    const isJson = (res.headers.get("content-type") ?? "").includes("json");
    let content: ToolResultContent = text;
    if (isJson && !read.cut) {
      try {
        content = contentFromJson(JSON.parse(text));
      } catch {
        content = text;
      }
    }
    return { content, is_error: false, status: res.status, ms: ms(), ...(read.cut ? { cut: true } : {}) };
  } catch (e) {
    if (opts.signal.aborted) throw e;
    const timedOut = (e as Error).name === "TimeoutError" || signal.aborted;
    return {
      content: timedOut ? `tool timed out after ${timeoutMs} ms` : `tool endpoint unreachable: ${(e as Error).message}`,
      is_error: true,
      ms: ms(),
    };
  }
}
