/**
 * The client side of one MCP server: `McpConnection` wraps an SDK `Client` over Streamable HTTP with redirects
 * refused and an eval-free output-schema validator (workerd refuses Ajv's generated code). It lists tools
 * (bounded in pages and count) and calls them; a call is re-sent only when the server dropped the MCP session.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  CallToolResultSchema,
  ErrorCode,
  McpError,
  type Tool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { compileLenient } from "../json-schema/index";
import { McpAnswerTooLarge } from "./convert";
import { IDLE_CLOSE_MS, MAX_LIST_PAGES, MAX_MCP_RESPONSE_BYTES, MAX_TOOLS_PER_SERVER } from "./limits";

export interface ServerTarget {
  name: string;
  url: string;
  headers: Record<string, string>;
}

/**
 * Output-schema checks the SDK client runs on structured results. The SDK's default is Ajv, whose code
 * generation workerd refuses at request time; ours compiles leniently without eval, and a schema we
 * cannot compile validates nothing rather than making the whole server unusable.
 */
const validator: jsonSchemaValidator = {
  getValidator<T>(schema: unknown) {
    const compiled = compileLenient(schema);
    return (input: unknown) => {
      if (!compiled.ok || compiled.schema.validate(input).ok) {
        return { valid: true as const, data: input as T, errorMessage: undefined };
      }
      return {
        valid: false as const,
        data: undefined,
        errorMessage: "structured content does not match the tool's output schema",
      };
    };
  },
};

/** A body that errors once more than `max` bytes came through (the reader sees the error, not the rest). */
function capped(
  body: ReadableStream<Uint8Array>,
  max: number,
  onOver: (e: McpAnswerTooLarge) => void,
): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen <= max) return controller.enqueue(chunk);
        const error = new McpAnswerTooLarge();
        controller.error(error);
        onOver(error);
      },
    }),
  );
}

/**
 * The transport's fetch. Redirects are refused: following one could lead past the outbound URL policy. An
 * answer to a request (POST: tools/list, tools/call) is read up to MAX_MCP_RESPONSE_BYTES, so a faulty or
 * hostile server cannot fill the object's memory (`onOver` hears of it: an answer streamed as SSE would
 * otherwise only end in the call's timeout); the notification stream (GET) is long-lived and not capped.
 */
async function outbound(url: string | URL, init: RequestInit | undefined, onOver: (e: McpAnswerTooLarge) => void) {
  const res = await fetch(url, { ...init, redirect: "manual" });
  if (init?.method !== "POST" || !res.body) return res;
  return new Response(capped(res.body, MAX_MCP_RESPONSE_BYTES, onOver), {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
}

/**
 * One live MCP client (SDK `Client` over Streamable HTTP) for one server. Opened lazily, closed after
 * IDLE_CLOSE_MS without use: the SDK opens a GET stream for server notifications after initialize, and an
 * open stream must not keep the Durable Object alive forever. While it is open, `tools/list_changed`
 * reaches `onListChanged`; otherwise the tool-list TTL decides.
 */
export class McpConnection {
  #client: Client | null = null;
  #connecting: Promise<Client> | null = null;
  #idle: ReturnType<typeof setTimeout> | null = null;
  /** The tools/call requests in flight, each by its own abort controller (`#overflowed` ends them). */
  readonly #inflight = new Set<AbortController>();
  /** Set when the notification stream failed: the server may be gone, so the next refresh re-probes it. */
  broken = false;

  readonly #onListChanged: () => void;
  constructor(
    readonly target: ServerTarget,
    onListChanged: () => void,
  ) {
    this.#onListChanged = onListChanged;
  }

  async #open(timeoutMs: number): Promise<Client> {
    if (this.#client) return this.#client;
    this.#connecting ??= (async () => {
      const client = new Client({ name: "switchboard", version: "1.0.0" }, { jsonSchemaValidator: validator });
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.#onListChanged());
      // The notification stream's errors must not surface as unhandled rejections; they mark the link suspect.
      client.onerror = () => {
        if (this.#client === client) this.broken = true;
      };
      const transport = new StreamableHTTPClientTransport(new URL(this.target.url), {
        requestInit: { headers: this.target.headers },
        fetch: (url, init) => outbound(url, init, (e) => this.#overflowed(e)),
        reconnectionOptions: {
          maxRetries: 0,
          initialReconnectionDelay: 1000,
          maxReconnectionDelay: 1000,
          reconnectionDelayGrowFactor: 1,
        },
      });
      await client.connect(transport, { timeout: timeoutMs });
      this.broken = false;
      this.#client = client;
      return client;
    })().finally(() => {
      this.#connecting = null;
    });
    return this.#connecting;
  }

  #touch(): void {
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = setTimeout(() => this.close(), IDLE_CLOSE_MS);
  }

  /** Runs `fn` on a live client; a stale MCP session (404 after a server restart) gets one fresh connection. */
  async #with<T>(timeoutMs: number, fn: (c: Client) => Promise<T>): Promise<T> {
    this.#touch();
    const fresh = this.#client === null;
    const client = await this.#open(timeoutMs);
    try {
      return await fn(client);
    } catch (e) {
      // An error the server answered with (unknown tool, bad params) leaves the link healthy.
      if (isServerAnswer(e)) throw e;
      this.close();
      if (fresh || !isSessionGone(e)) throw e;
      return fn(await this.#open(timeoutMs));
    }
  }

  /**
   * tools/list, following pagination: at most MAX_TOOLS_PER_SERVER tools and MAX_LIST_PAGES pages.
   * `truncated` says the server had more than was taken (either bound reached with more announced).
   */
  list(timeoutMs: number): Promise<{ tools: Tool[]; truncated: boolean }> {
    return this.#with(timeoutMs, async (client) => {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const res = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
        tools.push(...res.tools);
        cursor = res.nextCursor;
        if (!cursor || tools.length > MAX_TOOLS_PER_SERVER) break;
      }
      const truncated = tools.length > MAX_TOOLS_PER_SERVER || cursor !== undefined;
      return { tools: tools.slice(0, MAX_TOOLS_PER_SERVER), truncated };
    });
  }

  /** tools/call. Calls are never retried except when the server refused the MCP session before running it. */
  call(tool: string, args: Record<string, unknown>, timeoutMs: number, signal: AbortSignal): Promise<CallToolResult> {
    return this.#with(timeoutMs, async (client) => {
      // Its own signal, so an answer cut at the byte cap ends the call with that reason (see `outbound`).
      const own = new AbortController();
      const follow = () => own.abort(signal.reason);
      if (signal.aborted) follow();
      signal.addEventListener("abort", follow, { once: true });
      this.#inflight.add(own);
      try {
        const res = await client.callTool({ name: tool, arguments: args }, CallToolResultSchema, {
          timeout: timeoutMs,
          signal: own.signal,
        });
        return res as CallToolResult;
      } finally {
        this.#inflight.delete(own);
        signal.removeEventListener("abort", follow);
      }
    });
  }

  /** An answer went over the byte cap: the calls waiting on this link end with that error. */
  #overflowed(error: McpAnswerTooLarge): void {
    for (const call of this.#inflight) call.abort(error);
  }

  close(): void {
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = null;
    const client = this.#client;
    this.#client = null;
    // Closing aborts the GET stream; a failure to close a dead link has nothing left to clean up.
    client?.close().catch(() => {});
  }
}

/** 404 is the spec's answer to an MCP session id the server no longer knows (it restarted or expired it). */
function isSessionGone(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === 404;
}

function isServerAnswer(e: unknown): boolean {
  return e instanceof McpError && e.code !== ErrorCode.RequestTimeout && e.code !== ErrorCode.ConnectionClosed;
}
