/** The tools of a step (agent + MCP + built-ins) with defer/always_load, and each tool's declaration. */
import type { AgentConfig } from "../agents/types";
import type { JsonObject } from "../model/json";
import type { ToolDeclaration } from "../model/message";
import { builtinTools } from "./builtins/declarations";
import { widenSchema } from "./refs/index";
import type { RegisteredTool } from "./types";

const widened = new WeakMap<RegisteredTool, JsonObject>();

/**
 * The declaration sent to providers. Parameters of server-executed tools (http, MCP) are
 * widened so a `{"$tool", "$path"}` reference is accepted at every value
 * position (resolved and validated against the original before execution).
 */
export function declaration(tool: RegisteredTool): ToolDeclaration {
  // Built-ins take no references, nor do client tools (the client receives the arguments as written).
  if (tool.source === "builtin" || tool.source === "client")
    return { name: tool.name, description: tool.description, input_schema: tool.input_schema };
  let schema = widened.get(tool);
  if (!schema) {
    schema = widenSchema(tool.input_schema);
    widened.set(tool, schema);
  }
  return { name: tool.name, description: tool.description, input_schema: schema };
}

const digests = new WeakMap<RegisteredTool, string>();

/**
 * The declaration digest: a short, stable digest of a tool's declaration as the model is shown it (FNV-1a over its
 * JSON), once per tool object. Compaction records it for the tools it keeps, and message-level tools are declared
 * again when it changes. Stored (`loaded_tools.declared_as`, a compaction's kept tools) and compared with what
 * earlier releases stored, so its hash must not change.
 */
export function declarationDigest(tool: RegisteredTool): string {
  let digest = digests.get(tool);
  if (digest === undefined) {
    const text = JSON.stringify(declaration(tool));
    let h = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    digest = (h >>> 0).toString(16).padStart(8, "0");
    digests.set(tool, digest);
  }
  return digest;
}

/** The schema arguments are validated against: the discovery schema when present. */
export function fullSchema(tool: RegisteredTool): JsonObject {
  return tool.discovery_schema ?? tool.input_schema;
}

/** The built-in disclosure tools the agent offers once any tool is deferred. */
export function disclosureBuiltins(agent: AgentConfig, anyDeferred: boolean): RegisteredTool[] {
  return builtinTools({
    search: anyDeferred,
    info: anyDeferred && agent.disclosure.tool_info,
    select: anyDeferred && agent.disclosure.select_tools !== false,
  });
}

/** Slots the cap on tools sent with every request leaves for loaded tools once any tool is deferred. */
export const LOAD_ROOM = 16;

/** MCP tools past the cap on tools sent with every request (see `ToolRegistry`'s `alwaysMax`). */
interface OverCap {
  /** `deferred`: kept, found by tool_search; `dropped`: with tool_search off nothing defers, so they are left out. */
  action: "deferred" | "dropped";
  /** Their full names, per server. */
  byServer: ReadonlyMap<string, string[]>;
}

/**
 * Every tool a step may use: the agent's, then external sources' (MCP servers),
 * in their configured order, plus the built-ins disclosure needs. With
 * tool_search disabled nothing is deferred, so every tool stays callable.
 *
 * `alwaysMax` caps the tools sent with every request (core tools and built-ins): MCP tools are core when their
 * server says `defer: false` or they ask to always load, up to 200 a server, which no agent PUT can see. Past the
 * cap the last of them in configured order are deferred (or, with tool_search off, dropped), so the first ones
 * stay core on every turn and tools[] keeps its order. The agent's own core tools are checked at PUT.
 */
export class ToolRegistry {
  readonly tools: readonly RegisteredTool[];
  readonly builtins: readonly RegisteredTool[];
  readonly searchEnabled: boolean;
  readonly overCap: OverCap | null;
  readonly #byName = new Map<string, RegisteredTool>();

  constructor(agent: AgentConfig, external: RegisteredTool[] = [], opts: { alwaysMax?: number } = {}) {
    this.searchEnabled = agent.disclosure.tool_search;
    const own: RegisteredTool[] = agent.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.input_schema,
      ...(t.discovery_schema ? { discovery_schema: t.discovery_schema } : {}),
      source: t.execution.type,
      deferred: this.searchEnabled && t.defer === true && t.always_load !== true,
      ...(t.search_hint ? { search_hint: t.search_hint } : {}),
      execution: t.execution,
    }));
    // One tool per name: an MCP tool whose full name another tool already has (a server named `gh__issues` listing
    // `create` against `gh`'s `issues__create`) is left out, or tools[] would name it twice and the provider
    // would refuse every request.
    const taken = new Set(own.map((t) => t.name));
    const unique = external.filter((t) => {
      if (taken.has(t.name)) return false;
      taken.add(t.name);
      return true;
    });
    let tools = [...own, ...unique.map((t) => ({ ...t, deferred: this.searchEnabled && t.deferred }))];
    const excess = opts.alwaysMax === undefined ? [] : this.#excess(agent, tools, opts.alwaysMax);
    if (excess.length === 0) this.overCap = null;
    else {
      const over = new Set(excess.map((t) => t.name));
      const action = this.searchEnabled ? "deferred" : "dropped";
      tools =
        action === "deferred"
          ? tools.map((t) => (over.has(t.name) ? { ...t, deferred: true } : t))
          : tools.filter((t) => !over.has(t.name));
      const byServer = new Map<string, string[]>();
      for (const t of excess) {
        const server = t.mcp?.server ?? "";
        byServer.set(server, [...(byServer.get(server) ?? []), t.name]);
      }
      this.overCap = { action, byServer };
    }
    this.tools = tools;
    this.builtins = disclosureBuiltins(
      agent,
      this.tools.some((t) => t.deferred),
    );
    for (const t of [...this.tools, ...this.builtins]) this.#byName.set(t.name, t);
  }

  /**
   * The MCP core tools that do not fit in `max` with the agent's core tools and the built-ins they would bring.
   * Once anything is deferred, `LOAD_ROOM` slots stay free for loading it: a deferred tool tools[] has no room
   * for could be found by tool_search but never loaded.
   */
  #excess(agent: AgentConfig, tools: RegisteredTool[], max: number): RegisteredTool[] {
    const core = tools.filter((t) => !t.deferred);
    const anyDeferred = tools.some((t) => t.deferred);
    const builtins = disclosureBuiltins(agent, anyDeferred).length;
    if (core.length + builtins + (anyDeferred ? LOAD_ROOM : 0) <= max) return [];
    const mcp = core.filter((t) => t.source === "mcp");
    // With tool_search off nothing defers or loads: what does not fit at all is dropped. Otherwise deferring one
    // brings in the built-ins and the room to load into, so they take room first.
    const room = this.searchEnabled ? max - disclosureBuiltins(agent, true).length - LOAD_ROOM : max;
    return mcp.slice(Math.max(0, room - (core.length - mcp.length)));
  }

  get(name: string): RegisteredTool | undefined {
    return this.#byName.get(name);
  }

  deferred(): RegisteredTool[] {
    return this.tools.filter((t) => t.deferred);
  }

  core(): RegisteredTool[] {
    return this.tools.filter((t) => !t.deferred);
  }

  hasDeferred(): boolean {
    return this.tools.some((t) => t.deferred);
  }

  /**
   * Whether any tool takes `$tool` references: one the session runs itself (http, MCP), not a built-in or a client
   * tool (`declaration`). Only then is the model told of them (REFS_PROMPT), and a summary keeps the ids they name.
   */
  takesReferences(): boolean {
    return this.tools.some((t) => t.source !== "client" && t.source !== "builtin");
  }
}
