// A small, independent Server-Sent Events reader (WHATWG event-stream parsing rules) for test clients.
// Deliberately not shared with src/: the tests must not trust the server's own parser. It checks nothing: a UI
// message stream of the API is checked against the OpenAPI document frame by frame as it is read, by the client
// that asked for it (checked-answer.ts, with this parser).

export interface SseFrame {
  /** The event's `id:` field as sent, or null when the event carried none. */
  id: string | null;
  /** The `event:` field, or null (plain "message"). */
  event: string | null;
  /** The data lines joined with "\n". */
  data: string;
  /** `data` parsed as JSON, or undefined when it is not JSON (e.g. `[DONE]`). */
  json: unknown;
}

export type SseEnd = "done" | "eof" | "max_frames" | "timeout";

export interface SseRead {
  frames: SseFrame[];
  /** Every byte received, decoded as UTF-8. */
  raw: string;
  /** True when a `data: [DONE]` frame arrived. */
  done: boolean;
  /** Why reading stopped. */
  end: SseEnd;
}

export interface ReadSseOptions {
  /** Stop (and cancel the body) after this many frames. */
  maxFrames?: number;
  /** Stop (and cancel the body) after this many milliseconds. */
  abortAfter?: number;
  /** Stop at `[DONE]` without waiting for the server to close (default true). */
  stopAtDone?: boolean;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Incremental event-stream parser: feed() text as it arrives, get the completed frames back. */
export class SseParser {
  #buffer = "";
  #data: string[] = [];
  #id: string | null = null;
  #event: string | null = null;
  #sawData = false;

  feed(text: string): SseFrame[] {
    this.#buffer += text;
    const out: SseFrame[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.#buffer);
      if (match === null) break;
      // A lone CR at the very end may be the first half of CRLF: wait for more input.
      if (match[0] === "\r" && match.index === this.#buffer.length - 1) break;
      const line = this.#buffer.slice(0, match.index);
      this.#buffer = this.#buffer.slice(match.index + match[0].length);
      const frame = this.#line(line);
      if (frame !== null) out.push(frame);
    }
    return out;
  }

  /** Text received after the last complete line (an unterminated event is never dispatched). */
  pending(): string {
    return this.#buffer;
  }

  #line(line: string): SseFrame | null {
    if (line === "") {
      const frame = this.#sawData
        ? { id: this.#id, event: this.#event, data: this.#data.join("\n"), json: parseJson(this.#data.join("\n")) }
        : null;
      this.#data = [];
      this.#id = null;
      this.#event = null;
      this.#sawData = false;
      return frame;
    }
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") {
      this.#data.push(value);
      this.#sawData = true;
    } else if (field === "id" && !value.includes("\0")) this.#id = value;
    else if (field === "event") this.#event = value;
    return null;
  }
}

/** Parses a complete event-stream text. */
export function parseSse(text: string): SseFrame[] {
  return new SseParser().feed(text);
}

/** Reads an SSE response body into frames, stopping at [DONE], EOF, maxFrames or abortAfter. */
export async function readSse(response: Response, opts: ReadSseOptions = {}): Promise<SseRead> {
  const body = response.body;
  if (body === null) return { frames: [], raw: "", done: false, end: "eof" };
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  const frames: SseFrame[] = [];
  const stopAtDone = opts.stopAtDone ?? true;
  let raw = "";
  let done = false;
  let end: SseEnd = "eof";
  let timedOut = false;
  const timer =
    opts.abortAfter === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          reader.cancel().catch(() => undefined);
        }, opts.abortAfter);
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (timedOut) break;
        throw error;
      }
      if (chunk.done) break;
      const text = decoder.decode(chunk.value, { stream: true });
      raw += text;
      let stop = false;
      for (const frame of parser.feed(text)) {
        frames.push(frame);
        if (frame.data === "[DONE]") {
          done = true;
          if (stopAtDone) {
            end = "done";
            stop = true;
            break;
          }
        }
        if (opts.maxFrames !== undefined && frames.length >= opts.maxFrames) {
          end = "max_frames";
          stop = true;
          break;
        }
      }
      if (stop) {
        await reader.cancel().catch(() => undefined);
        break;
      }
    }
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
  if (timedOut && end === "eof") end = "timeout";
  else if (end === "eof" && done) end = "done";
  raw += decoder.decode();
  return { frames, raw, done, end };
}

/** The JSON payloads of all frames except `[DONE]` (throws on a frame that is not JSON). */
export function sseJson(read: SseRead): unknown[] {
  return read.frames
    .filter((f) => f.data !== "[DONE]")
    .map((f) => {
      if (f.json === undefined) throw new Error(`SSE frame is not JSON: ${f.data.slice(0, 200)}`);
      return f.json;
    });
}
