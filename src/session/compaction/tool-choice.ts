/**
 * The loaded tools a compaction keeps and drops at its boundary (`toolChoice`), and the snapshot its record
 * stores: each loaded tool with its last use, size and declaration fingerprint, through the keep rule of
 * tools.ts; a tool whose source is away is dropped unless the kept turns still declare it. A paused step's
 * stored results and the loads they made count as kept turns: they are written to history when the turn resumes.
 * The kept declarations fit the record's row beside its summary (src/storage/limits.ts), and the tokens they may
 * take (`toolBudget`).
 */
import type { AgentConfig } from "../../agents/types";
import type { Message } from "../../model/message";
import { jsonBytes } from "../../storage/fit";
import { ROW_BUDGET_BYTES } from "../../storage/limits";
import { all } from "../../storage/sql";
import { announcedTools } from "../../tools/disclosure";
import { declaration, declarationDigest } from "../../tools/registry";
import type { RegisteredTool } from "../../tools/types";
import type { HistoryStore } from "../history/history-store";
import type { SessionTools } from "../session-tools";
import { ContextBudget } from "./context-budget";
import { textTokens } from "./estimate";
import { latestCompaction, type ToolSnapshot } from "./records";
import { keepLoaded, toolsDeclaredIn, toolsNamedIn } from "./tools";

/**
 * Loaded tools kept and dropped at a boundary (`summarised` before it, `kept` after), and the record's snapshot;
 * `budget`: the tokens the kept declarations may take; `summary`: the text stored beside the snapshot.
 */
export function toolChoice(
  deps: { storage: DurableObjectStorage; tools: SessionTools; history: Pick<HistoryStore, "storedResults"> },
  agent: AgentConfig,
  budget: number,
  summarised: readonly Message[],
  kept: readonly Message[],
  summary: string,
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
  // A paused turn (awaiting client results or approvals) has its step's results stored but not yet in history, and
  // the tools they loaded are not declared yet (their declarations come with that results message): both count as
  // named, or a tool the step just loaded would be dropped and its "loaded" result land after the removal note.
  const stored = { parts: deps.history.storedResults() };
  const afterBoundary = [...kept, stored];
  // What the paused step loaded (its tool_references, the loads still to be declared): never called yet, but the
  // model was just told they loaded, so the row's room drops them last (tools.ts).
  const justLoaded = new Set([...toolsDeclaredIn([stored]), ...tools.loaded.undeclared()]);
  const named = new Set([...toolsNamedIn(afterBoundary), ...justLoaded]);
  // A loaded tool whose source is away (its MCP server down) has no declaration to carry across the boundary:
  // unless the kept turns still declare it, it leaves the loaded set rather than stay loaded with nothing in the
  // view that declares it; once its server is back, tool_search or select_tools loads it again. A call to it in
  // the kept turns is not enough: its declaration (or tool_reference) is summarised away all the same, and a tool
  // left loaded and marked declared would never be declared again when its server returns.
  const declared = toolsDeclaredIn(afterBoundary);
  const away = names.filter((n) => reg.get(n) === undefined && !declared.has(n));
  const loaded = names
    .map((n) => reg.get(n))
    .filter((t): t is RegisteredTool => t?.deferred === true)
    .map((t) => {
      const decl = declaration(t);
      const prev = prevPrints.get(t.name);
      const fingerprint = declarationDigest(t);
      return {
        name: t.name,
        lastUse: lastUse.get(t.name) ?? 0,
        ...(justLoaded.has(t.name) ? { justLoaded: true } : {}),
        tokens: textTokens(JSON.stringify(decl)),
        // Its declaration and kept entry, each with a separating comma.
        bytes: jsonBytes(decl) + jsonBytes({ name: t.name, fingerprint }) + 2,
        fingerprint,
        ...(prev !== undefined ? { previous: prev } : {}),
        decl,
      };
    });
  const baseline = atBoundary.baseline ? { tools: [...atBoundary.known], listing: atBoundary.listing } : null;
  // The row's room for kept tools: the budget less the summary and the snapshot with every loaded tool dropped.
  const fixed = jsonBytes(summary) + jsonBytes({ kept: [], dropped: names, baseline, declarations: [] });
  const rule = keepLoaded(loaded, named, budget, ROW_BUDGET_BYTES - fixed);
  const choice = { kept: rule.kept, dropped: [...rule.dropped, ...away] };
  const keptSet = new Set(choice.kept);
  const snapshot: ToolSnapshot = {
    kept: loaded.filter((t) => keptSet.has(t.name)).map((t) => ({ name: t.name, fingerprint: t.fingerprint })),
    dropped: choice.dropped,
    baseline,
    declarations: loaded.filter((t) => keptSet.has(t.name)).map((t) => t.decl),
  };
  return { choice, snapshot };
}

/** The tokens the declarations a compaction keeps may take: the agent's `tool_budget_tokens`, or a tenth of the window. */
export function toolBudget(agent: AgentConfig, budget: ContextBudget): number {
  return ContextBudget.config(agent).tool_budget_tokens ?? Math.floor(budget.window(agent) * 0.1);
}
