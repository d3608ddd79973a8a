/**
 * A session's MCP tool sources: `McpCatalog` keeps each configured server's last tool list and status (in
 * memory and the `mcp_servers` table), re-lists servers before a turn and calls their tools. A call never
 * throws except when the turn is cancelled; a server that is down keeps its last list, so calls to its
 * tools are explained.
 */
import type { McpServerConfig } from "../agents/types";
import type { JsonObject } from "../model/json";
import { headChars } from "../storage/fit";
import { all, write } from "../storage/sql";
import type { ToolOutcome } from "../tools/http-tool";
import { checkOutboundUrl } from "../tools/outbound";
import type { RegisteredTool } from "../tools/types";
import { McpConnection } from "./connection";
import {
  acceptTools,
  disconnectedMessage,
  failureKind,
  failureOutcome,
  type McpToolInfo,
  qualifiedName,
  registeredTool,
  resultContent,
} from "./convert";
import { fingerprint } from "./fingerprint";
import { MAX_MCP_SERVERS, type McpLimits, RETRY_AFTER_TIMEOUT_MS } from "./limits";
import { withTimeout } from "./timeout";

type ServerStatus = "connected" | "disconnected";

interface ServerState {
  fingerprint: string;
  status: ServerStatus;
  /** Last tool list the server gave; kept while it is down, to tell "loaded but disconnected" apart. */
  tools: McpToolInfo[];
  fetched_at: number;
  /** Why it is down, or what was skipped from its list (names, schemas, the tool cap). */
  error: string | null;
  timed_out: boolean;
  /**
   * Memory only: a list_changed notification, a broken notification stream or a failed call: probe again. Also
   * set by a change that came while this list was being fetched (`McpCatalog.#changes`).
   */
  stale: boolean;
}

/** What the session's read API shows of one MCP server. */
export interface McpServerStatus {
  name: string;
  status: ServerStatus;
  /** Tools of its last list (kept while it is down). */
  tools: number;
  /** Why it is down, or what was skipped from its list. */
  error: string | null;
  /** When it was last listed or probed. */
  checked_at: string;
}

/** A tool of a configured server that is down right now. */
interface DownTool {
  server: string;
  deferred: boolean;
  error: string | null;
}

export interface McpSnapshot {
  version: number;
  tools: RegisteredTool[];
  down: ReadonlyMap<string, DownTool>;
}

/**
 * The session's MCP tool sources: one state per configured server (tool list, status, last error),
 * cached in memory and in the `mcp_servers` table, and one lazily opened connection per server.
 * `refresh` does the network I/O and runs before a turn is admitted; `snapshot` is synchronous, so
 * the admission transaction can pin a consistent tool set for the whole turn.
 */
export class McpCatalog {
  #states: Map<string, ServerState> | null = null;
  readonly #conns = new Map<string, McpConnection>();
  /**
   * Listings running, by server name and config fingerprint: a refresh for a changed config (new URL or headers)
   * starts its own rather than joining the old one, whose result is for a config no longer wanted.
   */
  readonly #inflight = new Map<string, Promise<void>>();
  /**
   * The config fingerprint each server was last refreshed for: a listing for an older config that ends after
   * the newer one started writes nothing, so it cannot overwrite the newer config's state.
   */
  readonly #wanted = new Map<string, string>();
  /**
   * Changes announced per server name (list_changed, a failed call), counted in memory apart from its state: one
   * that comes while a listing runs (also the first, before the server has a state) makes the list it saves stale.
   */
  readonly #changes = new Map<string, number>();
  /** Bumped whenever the registered tool set could differ; the registry cache keys on it. */
  version = 1;
  /** Bumped by `forget`: a listing that was in flight then writes nothing. */
  #epoch = 0;

  readonly #sql: SqlStorage;
  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  get #map(): Map<string, ServerState> {
    if (!this.#states) {
      this.#states = new Map();
      type Row = {
        name: string;
        fingerprint: string;
        status: string;
        tools: string;
        fetched_at: number;
        error: string | null;
        timed_out: number;
      };
      for (const r of all<Row>(this.#sql, "SELECT * FROM mcp_servers")) {
        this.#states.set(r.name, {
          fingerprint: r.fingerprint,
          status: r.status === "connected" ? "connected" : "disconnected",
          tools: JSON.parse(r.tools) as McpToolInfo[],
          fetched_at: r.fetched_at,
          error: r.error,
          timed_out: r.timed_out === 1,
          stale: false,
        });
      }
    }
    return this.#states;
  }

  #conn(s: McpServerConfig): McpConnection {
    const fp = fingerprint(s);
    const have = this.#conns.get(s.name);
    if (have && fingerprint({ ...s, url: have.target.url, headers: have.target.headers }) === fp) return have;
    // Calls running on the old config's link end there; new ones use the new config.
    have?.retire();
    const conn = new McpConnection({ name: s.name, url: s.url, headers: s.headers ?? {} }, () =>
      this.#markStale(s.name),
    );
    this.#conns.set(s.name, conn);
    return conn;
  }

  #markStale(name: string): void {
    this.#changes.set(name, this.#changeCount(name) + 1);
    const st = this.#map.get(name);
    if (st) st.stale = true;
  }

  #changeCount(name: string): number {
    return this.#changes.get(name) ?? 0;
  }

  #save(name: string, st: ServerState, changed: boolean): void {
    this.#map.set(name, st);
    if (changed) this.version++;
    write(
      this.#sql,
      `INSERT OR REPLACE INTO mcp_servers (name, fingerprint, status, tools, fetched_at, error, timed_out)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      name,
      st.fingerprint,
      st.status,
      JSON.stringify(st.tools),
      st.fetched_at,
      st.error,
      st.timed_out ? 1 : 0,
    );
  }

  /** Re-lists the servers whose cached list is missing, expired, stale or for another config; in parallel. */
  async refresh(servers: readonly McpServerConfig[], limits: McpLimits): Promise<void> {
    const wanted = servers.slice(0, MAX_MCP_SERVERS);
    const names = new Set(wanted.map((s) => s.name));
    for (const name of [...this.#wanted.keys()]) if (!names.has(name)) this.#wanted.delete(name);
    for (const name of [...this.#map.keys()]) {
      if (names.has(name)) continue;
      this.#map.delete(name);
      this.#conns.get(name)?.retire();
      this.#conns.delete(name);
      write(this.#sql, "DELETE FROM mcp_servers WHERE name = ?", name);
      // Its tools leave the next admission's snapshot (and are announced removed).
      this.version++;
    }
    await Promise.all(
      wanted.map((s) => {
        const fp = fingerprint(s);
        this.#wanted.set(s.name, fp);
        const key = `${s.name}\n${fp}`;
        const running = this.#inflight.get(key);
        if (running) return running;
        const p = this.#refreshOne(s, limits).finally(() => this.#inflight.delete(key));
        this.#inflight.set(key, p);
        return p;
      }),
    );
  }

  async #refreshOne(s: McpServerConfig, limits: McpLimits): Promise<void> {
    const epoch = this.#epoch;
    const fp = fingerprint(s);
    const st = this.#map.get(s.name);
    const now = Date.now();
    const conn = this.#conn(s);
    if (st && st.fingerprint === fp && !st.stale && !conn.broken) {
      if (st.status === "connected" && now - st.fetched_at < limits.ttlMs) return;
      if (st.status === "disconnected" && st.timed_out && now - st.fetched_at < RETRY_AFTER_TIMEOUT_MS) return;
    }
    // A link whose notification stream broke is reopened for the listing (which also reopens that stream);
    // re-listing on it would leave `broken` set and list again at every turn.
    if (conn.broken) conn.retire();
    const blocked = checkOutboundUrl(s.url, limits.allowPrivate);
    if (blocked) {
      const next: ServerState = {
        fingerprint: fp,
        status: "disconnected",
        tools: [],
        fetched_at: now,
        error: `URL refused: ${blocked}`,
        timed_out: false,
        stale: false,
      };
      return this.#save(s.name, next, st?.status !== "disconnected" || st.fingerprint !== fp);
    }
    // A change announced from here on may not be in the list this listing gets: it saves that list as stale.
    const changes = this.#changeCount(s.name);
    try {
      // The whole listing (initialize and every page) within the one list timeout a turn is documented to wait.
      const listed = await withTimeout(conn.list(limits.listTimeoutMs), limits.listTimeoutMs);
      if (epoch !== this.#epoch || this.#wanted.get(s.name) !== fp) return;
      // Compared with the state now, not before the await: a listing for another config may have been saved since.
      const cur = this.#map.get(s.name);
      const { tools, skipped } = acceptTools(s.name, listed.tools);
      const notes = [
        ...(listed.truncated ? [`only the first ${tools.length + skipped.length} tools are used`] : []),
        ...(skipped.length ? [`skipped: ${headChars(skipped.join(", "), 1000)}`] : []),
      ];
      const same =
        cur?.status === "connected" && cur.fingerprint === fp && JSON.stringify(cur.tools) === JSON.stringify(tools);
      const next: ServerState = {
        fingerprint: fp,
        status: "connected",
        tools,
        fetched_at: Date.now(),
        error: notes.join("; ") || null,
        timed_out: false,
        stale: this.#changeCount(s.name) !== changes,
      };
      this.#save(s.name, next, !same);
    } catch (e) {
      // A fresh link for the next try; calls running on this one (other requests' turns) still end normally.
      conn.retire();
      if (epoch !== this.#epoch || this.#wanted.get(s.name) !== fp) return;
      const cur = this.#map.get(s.name);
      const timedOut = failureKind(e, false) === "timeout";
      const error = headChars(e instanceof Error ? e.message : String(e), 500);
      const next: ServerState = {
        fingerprint: fp,
        status: "disconnected",
        // The last tools listed, kept while it is down, so its loaded tools stay loaded: this config's, else (its
        // URL or headers changed and the first listing under them failed) the previous config's.
        tools: cur?.fingerprint === fp ? cur.tools : st?.fingerprint === fp ? st.tools : ((cur ?? st)?.tools ?? []),
        fetched_at: Date.now(),
        error,
        timed_out: timedOut,
        stale: this.#changeCount(s.name) !== changes,
      };
      this.#save(s.name, next, cur?.status !== "disconnected" || cur.fingerprint !== fp);
    }
  }

  /** The tools of connected servers, in configured order, and the last-known tools of servers that are down. */
  snapshot(servers: readonly McpServerConfig[]): McpSnapshot {
    const tools: RegisteredTool[] = [];
    const down = new Map<string, DownTool>();
    for (const s of servers.slice(0, MAX_MCP_SERVERS)) {
      const st = this.#map.get(s.name);
      if (!st || st.fingerprint !== fingerprint(s)) continue;
      for (const info of st.tools) {
        const t = registeredTool(s, info);
        if (st.status === "connected") tools.push(t);
        else down.set(t.name, { server: s.name, deferred: t.deferred, error: st.error });
      }
    }
    return { version: this.version, tools, down };
  }

  /** Status per server as of its last listing (GET /v1/sessions/{id}); a server the agent dropped goes at the next. */
  statuses(): McpServerStatus[] {
    return [...this.#map.entries()].map(([name, st]) => ({
      name,
      status: st.status,
      tools: st.tools.length,
      error: st.error,
      checked_at: new Date(st.fetched_at).toISOString(),
    }));
  }

  /**
   * tools/call. Never throws except for cancellation of the turn. A transport failure marks the server
   * for a re-probe at the next turn boundary; the tool set of the running turn does not change under it.
   */
  async call(
    s: McpServerConfig,
    tool: string,
    input: JsonObject,
    opts: { signal: AbortSignal; limits: McpLimits; loaded: boolean },
  ): Promise<ToolOutcome> {
    const started = Date.now();
    const name = qualifiedName(s.name, tool);
    const timeoutMs = opts.limits.callTimeoutMs;
    const blocked = checkOutboundUrl(s.url, opts.limits.allowPrivate);
    if (blocked)
      return {
        content: `MCP server "${s.name}" refused by the outbound URL policy: ${blocked}`,
        is_error: true,
        ms: 0,
      };
    const timer = AbortSignal.timeout(timeoutMs);
    try {
      // The output schema from the session's list of the server, which a restart keeps (the connection's is gone).
      const declared = this.#map.get(s.name)?.tools.find((t) => t.name === tool)?.output_schema;
      const res = await this.#conn(s).call(tool, input, timeoutMs, AbortSignal.any([opts.signal, timer]), declared);
      return { ...resultContent(res.result, res.schemaError), ms: Date.now() - started };
    } catch (e) {
      if (opts.signal.aborted) throw e;
      const kind = failureKind(e, timer.aborted);
      if (kind !== "refused") this.#markStale(s.name);
      return failureOutcome(kind, e, {
        name,
        server: s.name,
        loaded: opts.loaded,
        timeoutMs,
        ms: Date.now() - started,
      });
    }
  }

  /** For a call to a tool that is not in the turn's registry because its server is down. */
  explainDown(down: DownTool, name: string, loaded: boolean): string {
    return disconnectedMessage(name, down.server, loaded, down.error);
  }

  close(): void {
    for (const c of this.#conns.values()) c.close();
    this.#conns.clear();
  }

  /** Drops everything held in memory after the storage was wiped; listings in flight write nothing. */
  forget(): void {
    this.close();
    this.#epoch++;
    this.#states = null;
    this.#inflight.clear();
    this.#wanted.clear();
    this.version++;
  }
}
