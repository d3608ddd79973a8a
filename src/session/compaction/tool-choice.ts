/**
 * The loaded tools a compaction keeps and drops at its boundary (`toolChoice`), and the snapshot its record
 * stores: each loaded tool with its last use, size and declaration fingerprint, through the keep rule of
 * tools.ts; a tool whose source is away is dropped unless the kept turns still declare it.
 */
import type { AgentConfig } from "../../agents/types";
import type { Message } from "../../model/message";
import { all } from "../../storage/sql";
import { announcedTools } from "../../tools/disclosure";
import { declaration, declarationPrint } from "../../tools/registry";
import type { RegisteredTool } from "../../tools/types";
import type { SessionTools } from "../session-tools";
import { BYTES_PER_TOKEN } from "./estimate";
import { latestCompaction, type ToolSnapshot } from "./records";
import { keepLoaded, toolsDeclaredIn, toolsNamedIn } from "./tools";

/**
 * Loaded tools kept and dropped at a boundary (`summarised` before it, `kept` after), and the record's snapshot;
 * `budget`: the tokens the kept declarations may take.
 */
export function toolChoice(
  deps: { storage: DurableObjectStorage; tools: SessionTools },
  agent: AgentConfig,
  budget: number,
  summarised: readonly Message[],
  kept: readonly Message[],
): { choice: { kept: string[]; dropped: string[] }; snapshot: ToolSnapshot } {
  const { tools } = deps;
  const previous = latestCompaction(deps.storage.sql);
  const reg = tools.registry(agent);
  const atBoundary = announcedTools(summarised);
  const prevPrints = new Map((previous?.tools.kept ?? []).map((k) => [k.name, k.fingerprint]));
  const lastUse = new Map(
    all<{ name: string; last: number }>(
      deps.storage.sql,
      "SELECT name, max(message_seq) AS last FROM tool_calls GROUP BY name",
    ).map((r) => [r.name, r.last]),
  );
  const names = tools.loaded.list();
  const named = toolsNamedIn(kept);
  // A loaded tool whose source is away (its MCP server down) has no declaration to carry across the boundary:
  // unless the kept turns still declare it, it leaves the loaded set rather than stay loaded with nothing in the
  // view that declares it; once its server is back, tool_search or select_tools loads it again. A call to it in
  // the kept turns is not enough: its declaration (or tool_reference) is summarised away all the same, and a tool
  // left loaded and marked declared would never be declared again when its server returns.
  const declared = toolsDeclaredIn(kept);
  const away = names.filter((n) => reg.get(n) === undefined && !declared.has(n));
  const loaded = names
    .map((n) => reg.get(n))
    .filter((t): t is RegisteredTool => t?.deferred === true)
    .map((t) => {
      const decl = declaration(t);
      const prev = prevPrints.get(t.name);
      return {
        name: t.name,
        lastUse: lastUse.get(t.name) ?? 0,
        tokens: Math.ceil(JSON.stringify(decl).length / BYTES_PER_TOKEN),
        fingerprint: declarationPrint(t),
        ...(prev !== undefined ? { previous: prev } : {}),
        decl,
      };
    });
  const rule = keepLoaded(loaded, named, budget);
  const choice = { kept: rule.kept, dropped: [...rule.dropped, ...away] };
  const keptSet = new Set(choice.kept);
  const snapshot: ToolSnapshot = {
    kept: loaded.filter((t) => keptSet.has(t.name)).map((t) => ({ name: t.name, fingerprint: t.fingerprint })),
    dropped: choice.dropped,
    baseline: atBoundary.baseline ? { tools: [...atBoundary.known], listing: atBoundary.listing } : null,
    declarations: loaded.filter((t) => keptSet.has(t.name)).map((t) => t.decl),
  };
  return { choice, snapshot };
}
