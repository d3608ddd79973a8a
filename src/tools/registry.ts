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

const prints = new WeakMap<RegisteredTool, string>();

/**
 * A short, stable fingerprint of a tool's declaration as the model is shown it (FNV-1a over its JSON), once per
 * tool object: compaction records it for the tools it keeps, and message-level tools are declared again when it
 * changes.
 */
export function declarationPrint(tool: RegisteredTool): string {
  let print = prints.get(tool);
  if (print === undefined) {
    const text = JSON.stringify(declaration(tool));
    let h = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    print = (h >>> 0).toString(16).padStart(8, "0");
    prints.set(tool, print);
  }
  return print;
}

/** The schema arguments are validated against: the discovery schema when present. */
export function fullSchema(tool: RegisteredTool): JsonObject {
  return tool.discovery_schema ?? tool.input_schema;
}

/**
 * Every tool a step may use: the agent's, then external sources' (MCP servers),
 * in their configured order, plus the built-ins disclosure needs. With
 * tool_search disabled nothing is deferred, so every tool stays callable.
 */
export class ToolRegistry {
  readonly tools: readonly RegisteredTool[];
  readonly builtins: readonly RegisteredTool[];
  readonly searchEnabled: boolean;
  readonly #byName = new Map<string, RegisteredTool>();

  constructor(agent: AgentConfig, external: RegisteredTool[] = []) {
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
    this.tools = [...own, ...unique.map((t) => ({ ...t, deferred: this.searchEnabled && t.deferred }))];
    const anyDeferred = this.tools.some((t) => t.deferred);
    this.builtins = builtinTools({
      search: anyDeferred,
      info: anyDeferred && agent.disclosure.tool_info,
      select: anyDeferred && agent.disclosure.select_tools !== false,
    });
    for (const t of [...this.tools, ...this.builtins]) this.#byName.set(t.name, t);
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
}
