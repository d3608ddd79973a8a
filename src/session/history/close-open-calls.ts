/**
 * What closing the open calls writes (`HistoryStore.closeOpenCalls`): the options of a close (`CloseOptions`, with
 * the results a client supplied, `SuppliedResult`), each open call's result (stored, supplied, or the synthetic
 * `unavailable` one, recorded in the ledger), and the parts of the one user message that carries them
 * (`closingParts`): the results fitted under the row budget, the declarations the row holds, the user's own parts.
 */
import type { Origin, Part, ToolDeclaration, ToolResultContent, ToolResultPart } from "../../model/message";
import { ROW_BUDGET_BYTES } from "../../storage/limits";
import { type CallLedger, storedResultPart, type ToolCallRow } from "./call-ledger";
import { boundResultContent, fitDeclarations, fitMessageResults } from "./truncate";

export interface SuppliedResult {
  tool_use_id: string;
  content: ToolResultContent;
  is_error: boolean;
}

/** What `closeOpenCalls` writes besides the open calls' results. */
export interface CloseOptions {
  turnId: string | null;
  reason: string;
  supplied?: ReadonlyMap<string, SuppliedResult>;
  /**
   * Schemas loaded since the last user message (message-level projection reads them), in load order. Those the
   * row cannot hold are not written: their names come back as `undeclared`.
   */
  declarations?: ToolDeclaration[];
  extra?: Part[];
  origin?: Origin;
  /** Recovery's last resort: stored results are not read, every open call gets a synthetic one. */
  discardStored?: boolean;
}

/** The result a call gets when none was recorded and the call is closed (`closeOpenCalls`). */
export function unavailable(reason: string): string {
  return `tool result unavailable: ${reason}`;
}

/**
 * The user message that closes the `open` calls: the tool_results first, in tool_use order, then the declarations
 * the row holds and `extra` (the user's own parts). A pending call takes the result supplied with this message if
 * any, else a synthetic `is_error` result; either is recorded in `calls` now. Returns the parts (none: no message
 * is written), the message's origin, which calls were synthesized and which declarations the row could not hold.
 */
export function closingParts(
  open: ToolCallRow[],
  opts: CloseOptions,
  calls: CallLedger,
): { parts: Part[]; origin: Origin; synthesized: string[]; undeclared: string[] } {
  const synthesized: string[] = [];
  const results: ToolResultPart[] = open.map((call) => {
    if (opts.discardStored && call.state !== "pending") {
      const content = unavailable(opts.reason);
      calls.synthesize(call.id, content);
      synthesized.push(call.id);
      return { type: "tool_result", tool_use_id: call.id, content, is_error: true };
    }
    if (call.state === "pending") {
      const given = opts.supplied?.get(call.id);
      if (given) {
        calls.storeResult(call.id, "resolved", given.content, given.is_error);
        return {
          type: "tool_result",
          tool_use_id: call.id,
          content: boundResultContent(given.content),
          is_error: given.is_error,
        };
      }
      const content = unavailable(opts.reason);
      calls.storeResult(call.id, "synthesized", content, true);
      synthesized.push(call.id);
      return { type: "tool_result", tool_use_id: call.id, content, is_error: true };
    }
    return storedResultPart(call);
  });
  const { fitted, left } = fitDeclarations(opts.declarations ?? [], results, opts.extra ?? [], ROW_BUDGET_BYTES);
  const undeclared = left.map((d) => d.name);
  const decl: Part[] = fitted.length ? [{ type: "tool_declarations", tools: fitted }] : [];
  const others: Part[] = [...decl, ...(opts.extra ?? [])];
  const parts: Part[] = [...fitMessageResults(results, others, ROW_BUDGET_BYTES), ...others];
  const origin: Origin = opts.origin ?? (synthesized.length ? "synthetic" : results.length ? "tool" : "system");
  return { parts, origin, synthesized, undeclared };
}
