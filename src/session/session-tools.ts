/**
 * `SessionTools`: a session's tool set, built from its agent's tools and MCP servers, the loaded deferred
 * tools and the tool notices in history. The MCP tool set is pinned at turn admission and stays fixed for the
 * turn; `callMcp` never throws except when the turn is cancelled.
 */
import { ToolIndex } from "@switchboard/tool-search";
import type { AgentConfig } from "../agents/types";
import type { Env } from "../env";
import { mcpLimits } from "../mcp/limits";
import { McpCatalog, type McpServerStatus, type McpSnapshot } from "../mcp/mcp-catalog";
import type { JsonObject } from "../model/json";
import { type NoticePart, type ToolDeclaration, toolsReferencedIn } from "../model/message";
import { announcedTools, PLAIN_TOOLS_MAX, type Projection, projectionFor, toolSetNotices } from "../tools/disclosure";
import type { ToolOutcome } from "../tools/http-tool";
import { LoadedTools } from "../tools/loaded-tools";
import { declaration, declarationDigest, fullSchema, ToolRegistry } from "../tools/registry";
import type { RegisteredTool } from "../tools/types";
import type { CloseOptions } from "./history/close-open-calls";
import type { HistoryStore } from "./history/history-store";

/**
 * The session's tool state across turns: the registry for the current agent
 * config and MCP tool lists (cached, with its search index), the persisted
 * loaded set, and the tool-set baseline/notices derived from history.
 *
 * MCP tool lists need network I/O, so `refresh` (async) runs before a turn is
 * admitted, and the admission transaction pins a snapshot of them: the tool set
 * then stays fixed for the whole turn, and changes (a server drops or comes
 * back) are announced at the next turn boundary, never mid-turn.
 */
export class SessionTools {
  readonly loaded: LoadedTools;
  readonly mcp: McpCatalog;
  #pinned: McpSnapshot | null = null;
  #key = "";
  /** The config object and MCP listing version the registry was last asked for (see `registry`). */
  #seen: { agent: AgentConfig; mcpVersion: number } | null = null;
  #registry: ToolRegistry | null = null;
  #index: ToolIndex | null = null;
  /** The projection of this instance's last admission (undefined before the first: that one checks, see `admit`). */
  #projection: Projection | undefined = undefined;

  readonly #history: HistoryStore;
  constructor(sql: SqlStorage, history: HistoryStore) {
    this.#history = history;
    this.loaded = new LoadedTools(sql);
    this.mcp = new McpCatalog(sql);
  }

  /** Lists the agent's MCP servers whose cached tool lists are missing, expired or announced as changed. */
  async refresh(agent: AgentConfig, env: Env): Promise<void> {
    await this.mcp.refresh(agent.mcp_servers, mcpLimits(env));
  }

  /** The pinned MCP snapshot; a fresh instance (e.g. resuming after client tool results) pins the cache as is. */
  #snapshot(agent: AgentConfig): McpSnapshot {
    this.#pinned ??= this.mcp.snapshot(agent.mcp_servers);
    return this.#pinned;
  }

  /**
   * The registry of the agent's tools and the pinned MCP listing. Asked several times per step, so the same config
   * object (the object's agent copy, agent-cache.ts; configs are never changed in place) with the same listing
   * returns it at once; another object is compared by its tools as JSON, which for an agent of 100 tools costs
   * about 0.2 ms, so an equal config re-read keeps the registry and its search index.
   */
  registry(agent: AgentConfig): ToolRegistry {
    const mcp = this.#snapshot(agent);
    if (this.#registry && this.#seen?.agent === agent && this.#seen.mcpVersion === mcp.version) return this.#registry;
    // The servers' names and `defer` too: removing one, or deferring its tools, changes the tool set.
    const servers = agent.mcp_servers.map((s) => [s.name, s.defer ?? null]);
    // Outside Anthropic's tool search every tool sent at once is in tools[]: MCP core tools past its cap are
    // deferred (one slot kept for structured_output), so a server's `defer: false` never wedges the session.
    const capped = projectionFor(agent.model) !== "anthropic";
    const key = JSON.stringify([agent.tools, agent.disclosure, servers, mcp.version, capped]);
    if (key !== this.#key || !this.#registry) {
      this.#key = key;
      this.#registry = new ToolRegistry(agent, mcp.tools, capped ? { alwaysMax: PLAIN_TOOLS_MAX - 1 } : {});
      this.#index = null;
    }
    this.#seen = { agent, mcpVersion: mcp.version };
    return this.#registry;
  }

  /**
   * Status per MCP server (`McpCatalog.statuses`), each `error` also saying which of its tools the cap on tools
   * sent with every request deferred or dropped for `agent` (null: the statuses as listed).
   */
  statuses(agent: AgentConfig | null): McpServerStatus[] {
    const over = agent ? this.registry(agent).overCap : null;
    return this.mcp.statuses().map((s) => {
      const names = over?.byServer.get(s.name);
      if (!over || !names) return s;
      const note =
        `${names.length} tools ${over.action} (at most ${PLAIN_TOOLS_MAX} tools are sent with every request` +
        `${over.action === "deferred" ? "; tool_search finds them" : " and tool_search is off"}): ${names.join(", ")}`;
      return { ...s, error: [s.error, note.slice(0, 1000)].filter((e) => e !== null).join("; ") };
    });
  }

  /** Search index over the deferred tools; built on first use and kept while the tool set is unchanged. */
  index(agent: AgentConfig): ToolIndex {
    const reg = this.registry(agent);
    if (!this.#index) {
      this.#index = new ToolIndex(
        reg.deferred().map((t) => ({
          name: t.name,
          description: t.description,
          ...(t.search_hint ? { search_hint: t.search_hint } : {}),
          input_schema: fullSchema(t),
        })),
      );
    }
    return this.#index;
  }

  /** The frozen deferred-tools section of the system prompt, from the baseline in history. */
  listing(): string {
    return announcedTools(this.#history.view()).listing;
  }

  /**
   * At turn admission, inside its transaction: drops loaded tools the agent no
   * longer has (so a re-registered tool is not silently "loaded") and returns
   * the tool-set notices for the new user message. The loaded set is the
   * `loaded_tools` table alone, written in the transaction of the result that
   * loaded each tool: history is not read back into it (a call there may have
   * been invalid or declined, or its tool dropped since).
   */
  admit(agent: AgentConfig): { notices: NoticePart[]; unloaded: string[]; unreferenced: string[] } {
    this.#pinned = this.mcp.snapshot(agent.mcp_servers);
    const down = this.#pinned.down;
    const reg = this.registry(agent);
    const current = this.loaded.list();
    // A tool whose server is down stays loaded (it is back, still loaded, when the server returns);
    // one its server no longer lists, or of a server no longer configured, is dropped.
    const gone = current.filter((n) => reg.get(n)?.deferred !== true && !down.has(n));
    if (gone.length) this.loaded.remove(gone);
    // Anthropic shows a loaded tool through a tool_reference in history (or the compaction preamble's declarations).
    // One loaded under another projection (the provider changed, native_tool_search turned on) has none: it is
    // deferred again, and a search or select loads it with a reference. Checked at a switch and once per instance.
    const projection = projectionFor(agent.model);
    const unreferenced = projection === "anthropic" && this.#projection !== projection ? this.#unreferenced(reg) : [];
    if (unreferenced.length) this.loaded.remove(unreferenced);
    this.#projection = projection;
    // Message-level tools: history is where the model reads a loaded tool's schema, so a changed one (agent PUT,
    // an MCP server's new listing) is declared again.
    if (projectionFor(agent.model) === "message_level") {
      this.loaded.redeclare((name) => {
        const tool = reg.get(name);
        // A tool missing here (its server down) is left as declared: unchanged until its server says otherwise.
        return tool?.deferred ? declarationDigest(tool) : undefined;
      });
    }
    // Whatever changed since the last turn (an agent PUT adding core tools, a projection switch, a server back
    // with its tools), the plain projection's tools[] fits again before any request.
    const unloaded = this.#fit(agent, reg, []);
    return { notices: toolSetNotices(reg, this.#history.view()), unloaded, unreferenced };
  }

  /**
   * When a paused turn resumes (in the resume's transaction): the plain projection's tools[] fits again, as at
   * admission. A fresh instance pins the MCP cache as it is now (`#snapshot`), where a server down at admission may
   * be back with the loaded tools it kept, or with its `defer: false` tools; on the admitting instance this finds
   * nothing to do. Returns what it unloaded, for a `tools_unloaded` event.
   */
  refit(agent: AgentConfig): string[] {
    return this.#fit(agent, this.registry(agent), []);
  }

  /** Loaded tools Anthropic would not show: no tool_reference in history or a paused step's stored results. */
  #unreferenced(reg: ToolRegistry): string[] {
    const loaded = this.loaded.list().filter((n) => reg.get(n)?.deferred === true);
    if (loaded.length === 0) return [];
    const shown = toolsReferencedIn([...this.#history.view(), { parts: this.#history.storedResults() }]);
    for (const p of this.#history.preamble()?.parts ?? []) {
      if (p.type === "tool_declarations") for (const t of p.tools) shown.add(t.name);
    }
    return loaded.filter((n) => !shown.has(n));
  }

  /**
   * Loads `names` (in the caller's transaction). In the plain projection every loaded schema is in tools[],
   * which providers cap (OpenAI Chat Completions: 128 functions): past `PLAIN_TOOLS_MAX` the tools loaded
   * longest ago make room. They are deferred again, so a call or a search loads them back; a session never
   * reaches a request the provider refuses by loading tools. `keep`: tools earlier calls of the same step loaded,
   * called directly or answered as there ("already available", a match), kept like this call's own: their answers
   * said so, and a tool the step called is one the model goes on calling.
   */
  load(
    agent: AgentConfig,
    names: readonly string[],
    via: string,
    keep: readonly string[] = [],
  ): { added: string[]; unloaded: string[] } {
    const added = this.loaded.add(names, via);
    if (added.length === 0) return { added, unloaded: [] };
    // Every tool this step loaded, called or named stays (the built-ins keep them within `loadRoom`).
    return { added, unloaded: this.#fit(agent, this.registry(agent), [...keep, ...names]) };
  }

  /**
   * How many deferred tools can be loaded at once: in the plain projection the room tools[] leaves beside core
   * tools, built-ins and one slot for a turn's structured_output; elsewhere no limit (undefined).
   */
  loadRoom(agent: AgentConfig): number | undefined {
    if (projectionFor(agent.model) !== "plain") return undefined;
    const reg = this.registry(agent);
    return Math.max(0, PLAIN_TOOLS_MAX - 1 - reg.core().length - reg.builtins.length);
  }

  /**
   * The plain projection's tools[] within `loadRoom`. Unloads the tools loaded longest ago first, those of this
   * very step (`added`) last.
   */
  #fit(agent: AgentConfig, reg: ToolRegistry, added: readonly string[]): string[] {
    const room = this.loadRoom(agent);
    if (room === undefined) return [];
    const present = this.loaded.list().filter((n) => reg.get(n)?.deferred === true);
    const over = present.length - room;
    if (over <= 0) return [];
    const fresh = new Set(added);
    const unloaded = [...present.filter((n) => !fresh.has(n)), ...present.filter((n) => fresh.has(n))].slice(0, over);
    this.loaded.remove(unloaded);
    return unloaded;
  }

  /**
   * Writes the user message that closes the open calls (`HistoryStore.closeOpenCalls`, in the caller's
   * transaction) with the declarations of loaded tools no message carries yet. Those the row cannot hold stay
   * undeclared, for a later message with room. In the message-level projection they also leave the loaded set
   * (`unloaded`, for a `tools_unloaded` event): history is the only place where that model sees a schema, so one
   * left loaded would be callable with no schema in view. The other projections show a loaded tool by other
   * means (tools[], or a tool_reference in its loading result) and never send these declarations, so there the
   * tool stays loaded: unloading it would take back what select_tools just reported as loaded.
   */
  closeOpenCalls(agent: AgentConfig, opts: Omit<CloseOptions, "declarations">) {
    const { declarations, digests } = this.#declarations(agent);
    const closed = this.#history.closeOpenCalls({ ...opts, declarations });
    const left = new Set(closed.undeclared);
    this.loaded.markDeclared(
      declarations.map((d) => d.name).filter((n) => !left.has(n)),
      (name) => digests.get(name) ?? null,
    );
    const unloaded = projectionFor(agent.model) === "message_level" ? closed.undeclared : [];
    if (unloaded.length) this.loaded.remove(unloaded);
    return { message: closed.message, synthesized: closed.synthesized, unloaded };
  }

  /** Declarations of loaded tools no history message carries yet, with each one's digest (`markDeclared`). */
  #declarations(agent: AgentConfig): { declarations: ToolDeclaration[]; digests: Map<string, string> } {
    const reg = this.registry(agent);
    const names = this.loaded.undeclared();
    // Only what is declared now: a loaded tool whose server is down gets its declaration when it returns.
    const tools = names.map((n) => reg.get(n)).filter((t): t is RegisteredTool => t?.deferred === true);
    return {
      declarations: tools.map(declaration),
      digests: new Map(tools.map((t) => [t.name, declarationDigest(t)])),
    };
  }

  /** The answer for a call to a tool missing from the turn's registry because its MCP server is down. */
  missing(name: string): string | null {
    const down = this.#pinned?.down.get(name);
    if (!down) return null;
    // A core tool was in tools[], so the model had it as surely as a loaded one.
    const loaded = !down.deferred || this.loaded.list().includes(name);
    return loaded ? this.mcp.explainDown(down, name, true) : null;
  }

  /** Calls an MCP tool of the agent's config; never throws except for cancellation of the turn. */
  callMcp(
    agent: AgentConfig,
    env: Env,
    tool: RegisteredTool,
    input: JsonObject,
    opts: { signal: AbortSignal; loaded: boolean },
  ): Promise<ToolOutcome> {
    const server = agent.mcp_servers.find((s) => s.name === tool.mcp?.server);
    if (!server || !tool.mcp) {
      return Promise.resolve({
        content: `MCP server of "${tool.name}" is no longer configured.`,
        is_error: true,
        ms: 0,
      });
    }
    return this.mcp.call(server, tool.mcp.tool, input, { ...opts, limits: mcpLimits(env) });
  }

  clear(): void {
    this.loaded.clear();
  }

  /**
   * After the session's storage was wiped: MCP listings in flight write nothing, the pinned set starts
   * over (the loaded set is dropped with the other stores' rows, session-tx.ts `dropCaches`).
   */
  forget(): void {
    this.mcp.forget();
    this.#pinned = null;
  }
}
