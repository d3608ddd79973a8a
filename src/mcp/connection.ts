/**
 * The client side of one MCP server: `McpConnection` wraps an SDK `Client` over Streamable HTTP with our fetch
 * (`transportFetch`: redirects to other hosts refused, every request's answer capped and ending with an answer for it)
 * and an eval-free output-schema validator (workerd refuses Ajv's generated code). It lists tools
 * (bounded in pages and count) and calls them, reading results leniently and checking them against the tool's
 * output schema itself; a call is re-sent only when the server dropped the MCP session.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  ResultSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { type CompileResult, compileLenient, issueLines } from "../json-schema/index";
import { LinkClosed, lenientResult } from "./convert";
import { IDLE_CLOSE_MS, MAX_LIST_PAGES, MAX_TOOLS_PER_SERVER } from "./limits";
import { withTimeout } from "./timeout";
import { transportFetch } from "./transport-fetch";

interface ServerTarget {
  name: string;
  url: string;
  headers: Record<string, string>;
}

/**
 * A tool's output-schema check: null when structured content matches, else what does not. Compiled leniently
 * on first use (a listing names many tools, few are called); a schema we cannot compile checks nothing rather
 * than making the whole server unusable.
 */
function outputCheck(schema: unknown): (value: unknown) => string | null {
  let compiled: CompileResult | undefined;
  return (value) => {
    compiled ??= compileLenient(schema);
    if (!compiled.ok) return null;
    const result = compiled.schema.validate(value);
    return result.ok ? null : issueLines(result).slice(0, 3).join("; ");
  };
}

/** What of `result` does not match the tool's declared output schema, or null (an error result is not checked). */
function outputProblem(schema: unknown, result: CallToolResult): string | null {
  if (result.isError) return null;
  if (result.structuredContent === undefined)
    return "the tool declares an output schema but returned no structured content";
  const why = outputCheck(schema)(result.structuredContent);
  return why === null ? null : `the structured content does not match the tool's declared output schema (${why})`;
}

/**
 * The output-schema validator the SDK client builds for every listed tool. Its default is Ajv, whose code
 * generation workerd refuses at request time; ours compiles without eval, and only if ever run: calls are
 * checked by `McpConnection.call`, not by the SDK (whose `callTool` throws the whole result away on a mismatch).
 */
const validator: jsonSchemaValidator = {
  getValidator<T>(schema: unknown) {
    const check = outputCheck(schema);
    return (input: unknown) => {
      const why = check(input);
      if (why === null) return { valid: true as const, data: input as T, errorMessage: undefined };
      return { valid: false as const, data: undefined, errorMessage: `does not match the output schema: ${why}` };
    };
  },
};

/**
 * One SDK client, connecting or connected, and the requests waiting for it or running on it. A retired link takes no
 * new request and closes after them (at once when there are none, which aborts a connect still waiting).
 */
interface Link {
  client: Client;
  /** Settles when the client has connected (`initialize` answered, `initialized` sent), or fails with why not. */
  ready: Promise<void>;
  connected: boolean;
  inflight: number;
  retired: boolean;
}

/**
 * One live MCP client (SDK `Client` over Streamable HTTP) for one server. Opened lazily, closed after
 * IDLE_CLOSE_MS with no request running: the SDK opens a GET stream for server notifications after initialize,
 * and an open stream must not keep the Durable Object alive forever. While it is open, `tools/list_changed`
 * reaches `onListChanged`; otherwise the tool-list TTL decides. A link is never closed under a request running
 * on it except by `close()`: a failed link, or one the catalog gives up on (`retire()`), is swapped for a fresh
 * one and closes once its last request ends. Connecting (`initialize` and the `initialized` notification after it)
 * takes no longer than the request that opens the link may: a link that did not connect in time fails and is
 * closed, so a server that once left a connect unanswered is connected to afresh by the next request.
 */
export class McpConnection {
  /** The link new requests use, connected or still connecting; null until the next request opens one. */
  #link: Link | null = null;
  #idle: ReturnType<typeof setTimeout> | null = null;
  /** Requests running (on any link): the idle close waits until there are none. */
  #inflight = 0;
  /** Set when the notification stream failed: the server may be gone, so the next refresh re-probes it. */
  broken = false;

  readonly target: ServerTarget;
  readonly #onListChanged: () => void;

  constructor(target: ServerTarget, onListChanged: () => void) {
    this.target = target;
    this.#onListChanged = onListChanged;
  }

  /** The current link, or a new one that starts connecting now (its connect bounded by `timeoutMs`). */
  #open(timeoutMs: number): Link {
    if (this.#link) return this.#link;
    const client = new Client({ name: "switchboard", version: "1.0.0" }, { jsonSchemaValidator: validator });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.#onListChanged());
    const transport = new StreamableHTTPClientTransport(new URL(this.target.url), {
      requestInit: { headers: this.target.headers },
      fetch: transportFetch,
      reconnectionOptions: {
        maxRetries: 0,
        initialReconnectionDelay: 1000,
        maxReconnectionDelay: 1000,
        reconnectionDelayGrowFactor: 1,
      },
    });
    // The SDK bounds only `initialize`, not the `initialized` notification it then POSTs: the whole connect is
    // bounded here. A link that did not connect in time is retired, and closing its client aborts that POST.
    const ready = withTimeout(client.connect(transport, { timeout: timeoutMs }), timeoutMs);
    const link: Link = { client, ready, connected: false, inflight: 0, retired: false };
    // The notification stream's errors must not surface as unhandled rejections; they mark the link suspect.
    client.onerror = () => {
      if (this.#link === link && link.connected) this.broken = true;
    };
    ready.then(
      () => {
        link.connected = true;
        if (this.#link === link) this.broken = false;
      },
      () => this.#retire(link),
    );
    this.#link = link;
    return link;
  }

  /**
   * `fn` on `link` once it has connected, counted as running on it from the start of the wait (a retired link closes
   * when its count reaches 0). The wait ends early if `signal` aborts (the turn's cancel).
   */
  async #on<T>(link: Link, fn: (c: Client) => Promise<T>, signal?: AbortSignal): Promise<T> {
    link.inflight++;
    try {
      await untilAborted(link.ready, signal);
      return await fn(link.client);
    } catch (e) {
      // The SDK drops a closing link's transport before it fails the link's requests with ConnectionClosed; a
      // ConnectionClosed code on a link still open is the server's own answer.
      const closed =
        e instanceof McpError && e.code === ErrorCode.ConnectionClosed && link.client.transport === undefined;
      throw closed ? new LinkClosed(e.message) : e;
    } finally {
      link.inflight--;
      if (link.retired && link.inflight === 0) link.client.close().catch(() => {});
    }
  }

  /** New requests open a fresh link; `link` closes now if idle, else after its last request. */
  #retire(link: Link): void {
    if (this.#link === link) this.#link = null;
    if (link.retired) return;
    link.retired = true;
    // Closing aborts the GET stream; a failure to close a dead link has nothing left to clean up.
    if (link.inflight === 0) link.client.close().catch(() => {});
  }

  /** Runs `fn` on a live client; a stale MCP session (404 after a server restart) gets one fresh connection. */
  async #with<T>(timeoutMs: number, fn: (c: Client) => Promise<T>, signal?: AbortSignal): Promise<T> {
    // The idle close is held off while any request runs (a call may take longer than IDLE_CLOSE_MS) and
    // armed again when the last one ends.
    this.#inflight++;
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = null;
    try {
      // Opening the link waits no longer than the call may (its timeout, which bounds the connect, or the turn's
      // cancel).
      const link = this.#open(timeoutMs);
      const fresh = !link.connected;
      try {
        return await this.#on(link, fn, signal);
      } catch (e) {
        // An error the server answered with (unknown tool, bad params), or our fetch for it (an answer over the
        // cap, or one the server dropped: not re-sent, the tool may have run; the catalog has the server probed
        // again), an HTTP error status for this one request, or this request's own cancel or timeout leaves the link
        // healthy: other calls on it go on. A cancelled request must keep it open: the SDK sends
        // `notifications/cancelled` on it after failing the call, and closing the link would abort that POST, leaving
        // the tool running. A request cancelled while it waited for the link to connect leaves it to the requests
        // still waiting.
        if (signal?.aborted || isServerAnswer(e) || isRequestStatus(e) || isCancelled(e)) throw e;
        // The failed link is retired, not closed: the other calls on it end on their own. After a 404 each of
        // them gets its own 404 (same dead session) and is re-sent here too, rather than failed by our close.
        this.#retire(link);
        if (fresh || !isSessionGone(e)) throw e;
        return await this.#on(this.#open(timeoutMs), fn, signal);
      }
    } finally {
      if (--this.#inflight === 0) this.#idle = setTimeout(() => this.#idleClose(), IDLE_CLOSE_MS);
    }
  }

  #idleClose(): void {
    this.#idle = null;
    if (this.#inflight === 0 && this.#link) this.#retire(this.#link);
  }

  /**
   * tools/list, following pagination: at most MAX_TOOLS_PER_SERVER tools and MAX_LIST_PAGES pages.
   * `truncated` says the server had more than was taken (either bound reached with more announced).
   * Pages are read leniently, as tools/call answers are: the entries come as the server sent them, and
   * `acceptTools` skips (and names) a malformed one, where the SDK's strict `listTools` would fail the whole
   * listing over it and leave the server disconnected.
   */
  list(timeoutMs: number): Promise<{ tools: unknown[]; truncated: boolean }> {
    return this.#with(timeoutMs, async (client) => {
      const tools: unknown[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const params = cursor ? { cursor } : {};
        const res = await client.request({ method: "tools/list", params }, ResultSchema, { timeout: timeoutMs });
        if (!Array.isArray(res.tools)) throw new Error("the server's tools/list answer has no tools array");
        tools.push(...res.tools);
        // An empty cursor ends the list as an absent one does (some servers send "" on the last page).
        cursor = typeof res.nextCursor === "string" && res.nextCursor !== "" ? res.nextCursor : undefined;
        if (!cursor || tools.length > MAX_TOOLS_PER_SERVER) break;
      }
      const truncated = tools.length > MAX_TOOLS_PER_SERVER || cursor !== undefined;
      return { tools: tools.slice(0, MAX_TOOLS_PER_SERVER), truncated };
    });
  }

  /**
   * tools/call. Calls are never retried except when the server refused the MCP session before running it. The
   * tool ran whatever its answer looks like, so the answer is kept: a content block the MCP schema rejects
   * becomes a placeholder (`lenientResult`), and a result that does not match the tool's declared output schema
   * comes with `schemaError` saying how, rather than failing the call. `outputSchema` is the one the tool declared
   * in the session's list of the server (the caller's: it survives a restart, when this connection has listed
   * nothing).
   */
  call(
    tool: string,
    args: Record<string, unknown>,
    timeoutMs: number,
    signal: AbortSignal,
    outputSchema?: unknown,
  ): Promise<{ result: CallToolResult; schemaError: string | null }> {
    return this.#with(
      timeoutMs,
      async (client) => {
        const raw = await client.request(
          { method: "tools/call", params: { name: tool, arguments: args } },
          ResultSchema,
          {
            timeout: timeoutMs,
            signal,
          },
        );
        const result = lenientResult(raw);
        return { result, schemaError: outputSchema === undefined ? null : outputProblem(outputSchema, result) };
      },
      signal,
    );
  }

  /**
   * Stops using the current link, connected or still connecting (its listing failed, its notification stream
   * broke, or the server's config changed): the next request opens a fresh one, and requests running on it (or
   * waiting for it to connect) end there before it closes.
   */
  retire(): void {
    if (this.#link) this.#retire(this.#link);
  }

  /** Closes the link now, failing requests running on it (the session is going away). */
  close(): void {
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = null;
    const link = this.#link;
    this.#link = null;
    if (!link) return;
    link.retired = true;
    link.client.close().catch(() => {});
  }
}

/** `work`, or the signal's reason as soon as it aborts (the work goes on and settles unobserved). */
function untilAborted<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener("abort", stop, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}

/** 404 is the spec's answer to an MCP session id the server no longer knows (it restarted or expired it). */
function isSessionGone(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === 404;
}

/** An HTTP error status for one request (not 404, which says the MCP session is gone). */
function isRequestStatus(e: unknown): boolean {
  return e instanceof StreamableHTTPError && typeof e.code === "number" && e.code >= 400 && e.code !== 404;
}

/** The SDK fails a request it cancelled (its signal aborted) or timed out with RequestTimeout. */
function isCancelled(e: unknown): boolean {
  return e instanceof McpError && e.code === ErrorCode.RequestTimeout;
}

/** A JSON-RPC error answer, the server's or `transportFetch`'s (a closed link's failure is LinkClosed, not an McpError). */
function isServerAnswer(e: unknown): boolean {
  return e instanceof McpError && e.code !== ErrorCode.RequestTimeout;
}
