/**
 * The session object's transaction: one `transactionSync` (storage/transaction.ts) that, when it rolls back,
 * also drops what the rollback leaves wrong in memory — the history view and the loaded-tool set, both read
 * again on next use.
 */
import { transaction } from "../storage/transaction";
import type { HistoryStore } from "./history/store";
import type { SessionTools } from "./session-tools";

export function sessionTx<T>(
  d: { storage: DurableObjectStorage; history: HistoryStore; tools: SessionTools },
  fn: () => T,
): T {
  return transaction(d.storage, fn, () => {
    d.history.invalidate();
    d.tools.loaded.invalidate();
  });
}
