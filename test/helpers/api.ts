// A thin client for the Switchboard HTTP API (docs/API.md): its request and answer types are the contract's,
// generated from the served OpenAPI document (openapi-types.ts), so a test that sends what the document does not
// take fails to type-check; the conversation model (messages, parts, turn status) is src/model's own. Every answer
// (`request` and every helper built on it, raw malformed requests included, and `fetch`, which a client making its
// own requests is given) is checked against the same document (checked-answer.ts): its status and JSON body at
// once, a UI message stream frame by frame as it is read.
import type { Message as HistoryMessage } from "../../src/model/message.ts";
import type { TurnStatus } from "../../src/model/turn.ts";
import { checkedAnswer } from "./checked-answer.ts";
import { servedDocument } from "./conformance.ts";
import type { components } from "./openapi-types.ts";
import { type ReadSseOptions, readSse, type SseRead } from "./sse.ts";

/** The request and answer shapes of the contract, generated from the served document (test/helpers/openapi-types.ts). */
type Schemas = components["schemas"];
export type ErrorBody = Schemas["Error"];
export type KeyInfo = Schemas["Key"];
/** An agent as PUT /v1/agents/{agent} takes it. */
export type AgentConfig = Schemas["AgentBody"];
export type AgentTool = NonNullable<AgentConfig["tools"]>[number];
export type ToolExecution = AgentTool["execution"];
export type SessionCreated = Schemas["SessionCreated"];
/** POST /v1/sessions/{id}/messages. */
export type SendBody = Schemas["MessageBody"];
export type ToolResultInput = NonNullable<SendBody["tool_results"]>[number];

/** The conversation model's own types (src/model imports nothing, so tests share them instead of re-declaring). */
export type { Message as HistoryMessage, Part, ToolResultContent } from "../../src/model/message.ts";
export type { TurnStatus } from "../../src/model/turn.ts";

export interface TurnResult {
  turn_id: string;
  status: TurnStatus;
  messages: HistoryMessage[];
  structured_result?: unknown;
  error?: { code: string; message: string };
  usage?: Record<string, number>;
}

export interface RequestOptions {
  /** Bearer token; omit for no Authorization header. */
  key?: string;
  /** JSON-serialised into the body (with content-type: application/json). */
  body?: unknown;
  /** Sent verbatim instead of `body` (content-type application/json unless headers say otherwise). */
  rawBody?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface JsonResponse<T> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface SendOptions {
  /** true: `Accept: application/json` (wait for the turn); default: SSE. */
  json?: boolean;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** A non-2xx answer where a success was expected. */
export class HttpError extends Error {
  readonly status: number;
  readonly text: string;

  constructor(what: string, status: number, text: string) {
    super(`${what} → HTTP ${status}: ${text.slice(0, 2000)}`);
    this.name = "HttpError";
    this.status = status;
    this.text = text;
  }
}

export function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== "object" || value === null || !("error" in value)) return false;
  const error: unknown = value.error;
  return (
    typeof error === "object" &&
    error !== null &&
    "code" in error &&
    typeof error.code === "string" &&
    "message" in error &&
    typeof error.message === "string"
  );
}

/** How an Api client reads answers. */
export interface ApiOptions {
  /**
   * Check every answer against the served OpenAPI document (default true). The benches turn it off: the check runs
   * in the measuring process, and a UI message stream read through it reaches the reader one transform later, which
   * a first-token time would count as the server's (+0.7 ms at c=1).
   */
  checkAnswers?: boolean;
}

export class Api {
  readonly baseUrl: string;
  readonly admin: string;
  readonly #checkAnswers: boolean;

  constructor(baseUrl: string, adminKey: string, options: ApiOptions = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.admin = adminKey;
    this.#checkAnswers = options.checkAnswers ?? true;
  }

  /** `res` as the caller gets it: checked against the served document unless this client does not check. */
  async #answer(method: string, url: string, res: Response): Promise<Response> {
    if (!this.#checkAnswers) return res;
    return checkedAnswer(await servedDocument(this.baseUrl), method, url, res);
  }

  url(path: string): string {
    return `${this.baseUrl}${path.startsWith("/") ? path : `/${path}`}`;
  }

  /**
   * `fetch` for a client that makes its own requests of the API (the AI SDK's DefaultChatTransport): the answer is
   * checked as `request`'s is.
   */
  readonly fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const res = await globalThis.fetch(request);
    return this.#answer(request.method, request.url, res);
  };

  /**
   * Any request; never throws on HTTP status. The answer is checked against what the served OpenAPI document gives
   * for its operation and status (throws if it does not match, or if the document has none): its JSON body at once,
   * a UI message stream frame by frame as it is read (the stream errors at a frame that does not match).
   */
  async request(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = {};
    if (opts.key !== undefined) headers.authorization = `Bearer ${opts.key}`;
    let body: string | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined) headers["content-type"] = "application/json";
    Object.assign(headers, opts.headers);
    const res = await fetch(this.url(path), { method, headers, body, signal: opts.signal });
    return this.#answer(method, res.url, res);
  }

  /** A request whose answer is JSON; the body is parsed (throws if it is not JSON) and checked (see `request`). */
  async json<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<JsonResponse<T>> {
    const res = await this.request(method, path, {
      ...opts,
      headers: { accept: "application/json", ...opts.headers },
    });
    return parseJsonResponse<T>(`${method} ${path}`, res);
  }

  /** Like json() but throws HttpError unless the status is 2xx. */
  async ok<T = unknown>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.json<T>(method, path, opts);
    if (res.status < 200 || res.status > 299) throw new HttpError(`${method} ${path}`, res.status, res.text);
    return res.body;
  }

  createKey(tenant: string, name?: string): Promise<KeyInfo> {
    return this.ok<KeyInfo>("POST", "/v1/keys", {
      key: this.admin,
      body: name === undefined ? { tenant } : { tenant, name },
    });
  }

  putAgent(name: string, body: AgentConfig): Promise<unknown> {
    return this.ok("PUT", `/v1/agents/${encodeURIComponent(name)}`, { key: this.admin, body });
  }

  createSession(key: string, agent: string, id?: string, metadata?: Record<string, unknown>): Promise<SessionCreated> {
    const body: Record<string, unknown> = { agent };
    if (id !== undefined) body.id = id;
    if (metadata !== undefined) body.metadata = metadata;
    return this.ok<SessionCreated>("POST", "/v1/sessions", { key, body });
  }

  /** Polls GET /v1/runs/{id} until the run has `status` (20 s at most), and answers the run. */
  async runReaching(key: string, runId: string, status: string): Promise<{ status: string }> {
    const until = Date.now() + 20_000;
    for (;;) {
      const run = await this.ok<{ status: string }>("GET", `/v1/runs/${encodeURIComponent(runId)}`, { key });
      if (run.status === status) return run;
      if (Date.now() > until) throw new Error(`run ${runId} never reached ${status}: ${JSON.stringify(run)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  getSession(key: string, sessionId: string): Promise<JsonResponse<unknown>> {
    return this.json("GET", `/v1/sessions/${encodeURIComponent(sessionId)}`, { key });
  }

  history(
    key: string,
    sessionId: string,
    after?: number,
  ): Promise<{ messages: HistoryMessage[]; next: number | null }> {
    const query = after === undefined ? "" : `?after=${after}`;
    return this.ok("GET", `/v1/sessions/${encodeURIComponent(sessionId)}/messages${query}`, { key });
  }

  events(key: string, sessionId: string, after?: number): Promise<{ events: unknown[]; next: number | null }> {
    const query = after === undefined ? "" : `?after=${after}`;
    return this.ok("GET", `/v1/sessions/${encodeURIComponent(sessionId)}/events${query}`, { key });
  }

  /**
   * POST /messages; returns the raw Response (SSE by default, JSON with {json: true}).
   * A string body is sent verbatim (for malformed-input tests).
   */
  send(key: string, sessionId: string, body: SendBody | string, opts: SendOptions = {}): Promise<Response> {
    return this.#turnRequest(`/v1/sessions/${encodeURIComponent(sessionId)}/messages`, key, body, opts);
  }

  /** POST /messages in JSON mode; throws HttpError unless 2xx. */
  async sendJson(
    key: string,
    sessionId: string,
    body: SendBody,
    headers?: Record<string, string>,
  ): Promise<TurnResult> {
    const res = await this.send(key, sessionId, body, { json: true, headers });
    return expectJson<TurnResult>(`POST /v1/sessions/${sessionId}/messages`, res);
  }

  /** POST /messages in SSE mode and read the whole stream (throws HttpError unless 2xx). */
  async sendSse(key: string, sessionId: string, body: SendBody, opts: ReadSseOptions = {}): Promise<SseRead> {
    const res = await this.send(key, sessionId, body);
    if (!res.ok) throw new HttpError(`POST /v1/sessions/${sessionId}/messages`, res.status, await res.text());
    return readSse(res, opts);
  }

  toolResults(key: string, sessionId: string, results: ToolResultInput[], opts: SendOptions = {}): Promise<Response> {
    return this.#turnRequest(`/v1/sessions/${encodeURIComponent(sessionId)}/tool-results`, key, { results }, opts);
  }

  retry(key: string, sessionId: string, opts: SendOptions = {}): Promise<Response> {
    return this.#turnRequest(`/v1/sessions/${encodeURIComponent(sessionId)}/retry`, key, undefined, opts);
  }

  cancel(key: string, sessionId: string): Promise<JsonResponse<unknown>> {
    return this.json("POST", `/v1/sessions/${encodeURIComponent(sessionId)}/cancel`, { key });
  }

  /** GET /stream, resuming after `lastEventId` when given. */
  stream(key: string, sessionId: string, lastEventId?: string | number, signal?: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (lastEventId !== undefined) headers["last-event-id"] = String(lastEventId);
    return this.request("GET", `/v1/sessions/${encodeURIComponent(sessionId)}/stream`, { key, headers, signal });
  }

  #turnRequest(path: string, key: string, body: unknown, opts: SendOptions): Promise<Response> {
    const accept = opts.json ? "application/json" : "text/event-stream";
    const common = { key, headers: { accept, ...opts.headers }, signal: opts.signal };
    if (typeof body === "string") return this.request("POST", path, { ...common, rawBody: body });
    return this.request("POST", path, body === undefined ? common : { ...common, body });
  }
}

export async function parseJsonResponse<T>(what: string, res: Response): Promise<JsonResponse<T>> {
  const text = await res.text();
  let body: T;
  try {
    body = JSON.parse(text) as T;
  } catch {
    throw new HttpError(`${what} (answer is not JSON)`, res.status, text);
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** Reads a JSON answer and throws HttpError unless it is 2xx. */
export async function expectJson<T>(what: string, res: Response): Promise<T> {
  const parsed = await parseJsonResponse<T>(what, res);
  if (parsed.status < 200 || parsed.status > 299) throw new HttpError(what, parsed.status, parsed.text);
  return parsed.body;
}
