import type { AgentConfig } from "../agents/types";
import { announcedTools, toolSetNotices } from "../tools/disclosure";
import { LoadedTools, loadedFromHistory } from "../tools/loaded";
import { declaration, fullSchema, type RegisteredTool, ToolRegistry } from "../tools/registry";
import { ToolIndex } from "../tools/search/index";
import type { NoticePart, ToolDeclaration } from "./history/parts";
import type { HistoryStore } from "./history/store";

/**
 * The session's tool state across turns: the registry for the current agent
 * config (cached, with its search index), the persisted loaded set, and the
 * tool-set baseline/notices derived from history.
 */
export class SessionTools {
  readonly loaded: LoadedTools;
  #key = "";
  #registry: ToolRegistry | null = null;
  #index: ToolIndex | null = null;
  #rederived = false;

  constructor(
    sql: SqlStorage,
    private readonly history: HistoryStore,
  ) {
    this.loaded = new LoadedTools(sql);
  }

  registry(agent: AgentConfig): ToolRegistry {
    const key = JSON.stringify([agent.tools, agent.disclosure]);
    if (key !== this.#key || !this.#registry) {
      this.#key = key;
      this.#registry = new ToolRegistry(agent);
      this.#index = null;
    }
    return this.#registry;
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
    return announcedTools(this.history.messages()).listing;
  }

  /**
   * At turn admission, inside its transaction: drops loaded tools the agent no
   * longer has (so a re-registered tool is not silently "loaded"), rebuilds the
   * loaded set from history once per wake-up, and returns the tool-set notices
   * for the new user message and the names re-derived (for an event after commit).
   */
  admit(agent: AgentConfig): { notices: NoticePart[]; rederived: string[] } {
    const reg = this.registry(agent);
    const current = this.loaded.list();
    const gone = current.filter((n) => reg.get(n)?.deferred !== true);
    if (gone.length) this.loaded.remove(gone);
    let rederived: string[] = [];
    if (!this.#rederived) {
      this.#rederived = true;
      const fromHistory = loadedFromHistory(this.history.messages()).filter((n) => reg.get(n)?.deferred === true);
      rederived = this.loaded.add(fromHistory, "history");
      // They are already in history, so they need no new declaration.
      this.loaded.markDeclared(rederived);
    }
    return { notices: toolSetNotices(reg, this.history.messages()), rederived };
  }

  /** Declarations of loaded tools no history message carries yet; marks them as carried (same transaction). */
  takeDeclarations(agent: AgentConfig): ToolDeclaration[] {
    const reg = this.registry(agent);
    const names = this.loaded.undeclared();
    const tools = names.map((n) => reg.get(n)).filter((t): t is RegisteredTool => t?.deferred === true);
    this.loaded.markDeclared(names);
    return tools.map(declaration);
  }

  clear(): void {
    this.loaded.clear();
  }
}
