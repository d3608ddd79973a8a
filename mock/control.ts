// Scripting state keyed by model (step queues, request records, counters) and the /_mock control API.
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { Issued } from "./codec.ts";
import { type TokenCount, type Tokenizer, tokenCount } from "./tokenizer.ts";
import { isRecord, type Protocol, type Rejection, type Step } from "./types.ts";

export const MAX_RECORDS_PER_MODEL = 2000;
const REDACTED_HEADERS = ["authorization", "x-api-key", "api-key", "proxy-authorization", "cookie"];

export interface RequestRecord {
  seq: number;
  protocol: Protocol;
  path: string;
  model: string;
  headers: Record<string, string>;
  body: unknown;
  raw: string;
  rejected: { status: number; message: string } | null;
  /**
   * Which answer the request got: a scripted step kind, the default brain, "summary" for a summary request (the
   * summary brain or a summary step answered it), or null when rejected.
   */
  served: "reply" | "error" | "raw" | "stream_error" | "default" | "summary" | null;
  at: string;
  /** When it was recorded, in milliseconds since the epoch with sub-millisecond precision (the benches' split). */
  at_ms: number;
}

interface Counters {
  requests: number;
  rejected: number;
  rejected_p: number;
  /** Requests answered with the provider's context-length 400 (see `context_window`). */
  overflow: number;
  /** Summary requests (recognised by their instruction) answered by the summary brain. */
  summaries: number;
  /** Answers that opened with a server-side compaction block. */
  compactions: number;
}

const zero = (): Counters => ({ requests: 0, rejected: 0, rejected_p: 0, overflow: 0, summaries: 0, compactions: 0 });

interface ModelState {
  queue: Step[];
  /** Steps for summary requests only (`"summary": true` in /_mock/script); else the summary brain answers. */
  summaryQueue: Step[];
  records: RequestRecord[];
  counters: Counters;
  /** Emulated context window in tokens (of the raw body, counted by `tokenizer`); absent = unlimited. */
  window?: number;
  /** How the model counts input tokens (tokenizer.ts); absent = `estimateTokens`. */
  tokenizer?: Tokenizer;
  /**
   * Whether the window holds the request's output limit as well as its input (vLLM, Anthropic's older models:
   * input + max_tokens must fit); absent = the input only.
   */
  countsOutput?: boolean;
  /** The server-side compactions this model answered with. */
  issued: { all: Set<string>; held: boolean };
}

export function redactHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    out[key] = REDACTED_HEADERS.includes(key) ? "[redacted]" : Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

export class MockState {
  readonly #models = new Map<string, ModelState>();
  #seq = 0;

  #model(name: string): ModelState {
    let state = this.#models.get(name);
    if (!state) {
      state = { queue: [], summaryQueue: [], records: [], counters: zero(), issued: { all: new Set(), held: false } };
      this.#models.set(name, state);
    }
    return state;
  }

  enqueue(model: string, steps: Step[], summary = false, replace = false): number {
    const state = this.#model(model);
    if (replace) {
      if (summary) state.summaryQueue = [];
      else state.queue = [];
    }
    const queue = summary ? state.summaryQueue : state.queue;
    queue.push(...steps);
    return queue.length;
  }

  popSummary(model: string): Step | undefined {
    return this.#models.get(model)?.summaryQueue.shift();
  }

  pop(model: string): Step | undefined {
    return this.#models.get(model)?.queue.shift();
  }

  record(entry: Omit<RequestRecord, "seq" | "at" | "at_ms" | "served">, rejection: Rejection | null): RequestRecord {
    const state = this.#model(entry.model);
    const atMs = performance.timeOrigin + performance.now();
    const record: RequestRecord = {
      ...entry,
      seq: ++this.#seq,
      served: null,
      at: new Date(atMs).toISOString(),
      at_ms: atMs,
    };
    state.records.push(record);
    if (state.records.length > MAX_RECORDS_PER_MODEL) state.records.shift();
    state.counters.requests++;
    if (rejection) {
      state.counters.rejected++;
      if (rejection.pairing) state.counters.rejected_p++;
    }
    return record;
  }

  setWindow(model: string, tokens: number | null, countsOutput = false): void {
    const state = this.#model(model);
    if (tokens === null) delete state.window;
    else state.window = tokens;
    state.countsOutput = countsOutput;
  }

  window(model: string): number | undefined {
    return this.#models.get(model)?.window;
  }

  setTokenizer(model: string, tokenizer: Tokenizer | null): void {
    const state = this.#model(model);
    if (tokenizer === null) delete state.tokenizer;
    else state.tokenizer = tokenizer;
  }

  /** How `model` counts the input tokens of a request (`setTokenizer`). */
  tokenCountOf(model: string): TokenCount {
    return tokenCount(this.#models.get(model)?.tokenizer);
  }

  /** Whether `model`'s window holds the request's output limit too (`setWindow`). */
  countsOutput(model: string): boolean {
    return this.#models.get(model)?.countsOutput === true;
  }

  /** Notes a compaction `model` answered with; `held`: in an answer no fault could cut (`Issued`). */
  issue(model: string, encrypted: string, held: boolean): void {
    const issued = this.#model(model).issued;
    issued.all.add(encrypted);
    if (held) issued.held = true;
  }

  issued(model: string): Issued {
    return this.#models.get(model)?.issued ?? { all: new Set(), held: false };
  }

  count(model: string, counter: "overflow" | "summaries" | "compactions"): void {
    this.#model(model).counters[counter]++;
  }

  reset(model?: string): void {
    if (model === undefined) this.#models.clear();
    else this.#models.delete(model);
  }

  requests(model?: string): RequestRecord[] {
    if (model !== undefined) return [...(this.#models.get(model)?.records ?? [])];
    return [...this.#models.values()].flatMap((m) => m.records).sort((a, b) => a.seq - b.seq);
  }

  stats(model?: string): Record<string, unknown> {
    const total = zero();
    for (const state of this.#models.values()) {
      for (const k of Object.keys(total) as Array<keyof Counters>) total[k] += state.counters[k];
    }
    if (model === undefined) return { ...total };
    const state = this.#models.get(model);
    const counters = state?.counters ?? zero();
    return { ...total, model: { name: model, ...counters, queued: state?.queue.length ?? 0 } };
  }
}

const STEP_KINDS = ["reply", "error", "raw", "stream_error"] as const;

/** Checks a script step's outer shape; returns an error text or null. */
export function stepProblem(step: unknown, i: number): string | null {
  if (!isRecord(step)) return `steps[${i}] must be an object`;
  const kinds = STEP_KINDS.filter((k) => k in step);
  if (kinds.length !== 1) return `steps[${i}] must have exactly one of ${STEP_KINDS.join(", ")}`;
  if ("reply" in step && !isRecord(step.reply)) return `steps[${i}].reply must be an object`;
  if ("error" in step && !(isRecord(step.error) && typeof step.error.status === "number"))
    return `steps[${i}].error.status must be a number`;
  if ("raw" in step && typeof step.raw !== "string") return `steps[${i}].raw must be a string`;
  if ("stream_error" in step && !(isRecord(step.stream_error) && typeof step.stream_error.after_events === "number"))
    return `steps[${i}].stream_error.after_events must be a number`;
  if ("reply" in step && isRecord(step.reply) && step.reply.tool_calls !== undefined) {
    const calls = step.reply.tool_calls;
    if (!Array.isArray(calls) || !calls.every((c) => isRecord(c) && typeof c.name === "string" && isRecord(c.input)))
      return `steps[${i}].reply.tool_calls must be [{name, input: {...}}]`;
  }
  return null;
}

function json(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** Serves /_mock/*; returns false when the path is not a control route. */
export function handleControl(state: MockState, method: string, url: URL, raw: string, res: ServerResponse): boolean {
  const model = url.searchParams.get("model") ?? undefined;
  let body: unknown = {};
  if (method === "POST" && raw.trim().length > 0) {
    try {
      body = JSON.parse(raw);
    } catch {
      json(res, 400, { error: "body must be JSON" });
      return true;
    }
  }
  const route = `${method} ${url.pathname}`;
  switch (route) {
    case "POST /_mock/script": {
      if (!isRecord(body) || typeof body.model !== "string" || !Array.isArray(body.steps)) {
        json(res, 400, { error: 'expected {"model": string, "steps": [Step, ...]}' });
        return true;
      }
      const steps: unknown[] = body.steps;
      for (let i = 0; i < steps.length; i++) {
        const problem = stepProblem(steps[i], i);
        if (problem) {
          json(res, 400, { error: problem });
          return true;
        }
      }
      json(res, 200, {
        ok: true,
        queued: state.enqueue(body.model, steps as Step[], body.summary === true, body.replace === true),
      });
      return true;
    }
    case "POST /_mock/context_window": {
      // {"model": m, "tokens": n | null, "output"?: true}: requests above n tokens get the provider's real
      // context-length 400; with "output", the input plus the request's output limit (max_tokens) must fit.
      if (
        !isRecord(body) ||
        typeof body.model !== "string" ||
        !(body.tokens === null || typeof body.tokens === "number") ||
        !(body.output === undefined || typeof body.output === "boolean")
      ) {
        json(res, 400, { error: 'expected {"model": string, "tokens": number | null, "output"?: boolean}' });
        return true;
      }
      state.setWindow(body.model, body.tokens, body.output === true);
      json(res, 200, { ok: true });
      return true;
    }
    case "POST /_mock/tokenizer": {
      // {"model": m, "tokenizer": "o200k" | null}: m counts input tokens (usage, window, compaction trigger) as o200k
      // reads the request, not at ~4 characters a token; null goes back to that estimate.
      if (
        !isRecord(body) ||
        typeof body.model !== "string" ||
        !(body.tokenizer === null || body.tokenizer === "o200k")
      ) {
        json(res, 400, { error: 'expected {"model": string, "tokenizer": "o200k" | null}' });
        return true;
      }
      state.setTokenizer(body.model, body.tokenizer);
      json(res, 200, { ok: true });
      return true;
    }
    case "POST /_mock/reset": {
      const target = isRecord(body) && typeof body.model === "string" ? body.model : model;
      state.reset(target);
      json(res, 200, { ok: true });
      return true;
    }
    case "GET /_mock/requests":
      json(res, 200, { requests: state.requests(model) });
      return true;
    case "GET /_mock/stats":
      json(res, 200, state.stats(model));
      return true;
    default:
      return false;
  }
}
